/* questweb audit page: collapsing and expanding subtrees of a big rubric tree.
 *
 * The tree is flat rows with a depth (see apps/audit/rows.py), so a collapsed group hides the
 * rows after it that are deeper than it. Each group row has a toggle button (reachable with Tab);
 * "Collapse all" / "Expand all" sit above the tree; audit.js adds keys (←, →, x, [ and ]).
 * Which groups are collapsed is kept in localStorage per assignment, so it survives a reload
 * and a tree swapped in after an edit. Works on read-only pages too.
 */
(() => {
  "use strict";
  const root = document.getElementById("audit");
  if (!root) return;
  const key = `questweb.audit.${root.dataset.assignment}.collapsed`;
  let collapsed = new Set();
  try { collapsed = new Set(JSON.parse(localStorage.getItem(key) || "[]")); } catch { collapsed = new Set(); }

  const rows = () => [...root.querySelectorAll(".anode")];
  const depth = (li) => Number(li.dataset.depth || 0);
  const isGroup = (li) => li.dataset.leaf === "0";

  function keep() { localStorage.setItem(key, JSON.stringify([...collapsed])); }

  // Hide every row under a collapsed group; paint each toggle's state.
  function apply() {
    let hideBelow = Infinity;
    for (const li of rows()) {
      const d = depth(li);
      if (d <= hideBelow) hideBelow = Infinity;
      li.hidden = d > hideBelow;
      const closed = isGroup(li) && collapsed.has(li.dataset.node);
      li.classList.toggle("collapsed", closed);
      const button = li.querySelector(":scope > .aline > [data-toggle]");
      if (button) {
        button.setAttribute("aria-expanded", String(!closed));
        button.setAttribute("aria-label", `${closed ? "Expand" : "Collapse"} ${li.dataset.node}`);
        button.textContent = closed ? "▸" : "▾";
      }
      if (!li.hidden && closed) hideBelow = d;
    }
    const count = root.querySelector("#collapsed-count");
    if (count) count.textContent = collapsed.size ? `${rows().filter((li) => li.hidden).length} nodes hidden` : "";
  }

  function set(nodeId, closed) {
    if (closed) collapsed.add(nodeId); else collapsed.delete(nodeId);
    keep();
    apply();
  }

  function toggle(nodeId) { set(nodeId, !collapsed.has(nodeId)); }

  function all(closed) {
    collapsed = new Set(closed ? rows().filter(isGroup).map((li) => li.dataset.node) : []);
    keep();
    apply();
  }

  // The rows above `li` that contain it, nearest first.
  function ancestors(li) {
    const list = rows();
    const out = [];
    let d = depth(li);
    for (let i = list.indexOf(li) - 1; i >= 0 && d > 0; i -= 1) {
      if (depth(list[i]) < d) { out.push(list[i]); d = depth(list[i]); }
    }
    return out;
  }

  // Expand whatever hides `li`, so it can take the focus.
  function reveal(li) {
    if (!li || !li.hidden) return;
    ancestors(li).forEach((a) => collapsed.delete(a.dataset.node));
    keep();
    apply();
  }

  root.addEventListener("click", (event) => {
    const button = event.target.closest("[data-toggle], [data-collapse-all]");
    if (!button) return;
    if (button.dataset.collapseAll) all(button.dataset.collapseAll === "1");
    else toggle(button.closest(".anode").dataset.node);
  });

  window.questwebAuditTree = {
    apply, toggle, all, reveal, ancestors,
    isCollapsed: (li) => collapsed.has(li.dataset.node),
    collapse: (li) => set(li.dataset.node, true),
    expand: (li) => set(li.dataset.node, false),
  };
  apply();
})();
