/* questweb audit page: keyboard-first node verdicts, comments, edits, undo and drafts.
 *
 * State lives here and in localStorage (so a reload loses nothing, even offline) and is sent
 * to the server as a draft shortly after each change, which also keeps the task's lock alive;
 * audit-drafts.js does the sending, and the merging when another tab or device saved first.
 * Edits and submission go through the REST API (/api/audit/assignments/<id>/…), the same
 * services the API clients use; audit-edit.js holds the edit form and its conflicts. No
 * framework: the tree is server-rendered rows. Every key has a visible control too: the focused
 * node carries a toolbar (verdicts, judge's suggestion, comment, edit) that works by mouse and
 * touch, and the decision panel holds undo and "next without a verdict".
 */
(() => {
  "use strict";
  const root = document.getElementById("audit");
  if (!root || root.dataset.editable !== "1") return;

  const api = root.dataset.api;
  const storageKey = `questweb.audit.${root.dataset.assignment}`;
  const undoKey = `${storageKey}.undo`;
  const atKey = `${storageKey}.at`;
  const tree = window.questwebAuditTree;
  const UNDO_KEPT = 100;
  const VERDICT_KEYS = { 1: "correct", 2: "wrong", 3: "unverifiable" };
  const VERDICTS = Object.values(VERDICT_KEYS);
  const MARKS = { correct: "✓ correct", wrong: "✗ wrong", unverifiable: "? unverifiable" };
  const ERROR_TYPES = [...document.querySelectorAll("[data-error-type]")].map((b) => b.dataset.errorType);
  const ERROR_LABELS = Object.fromEntries(
    [...document.querySelectorAll("[data-error-type]")].map((b) => [b.dataset.errorType, b.textContent]),
  );

  const state = { version: currentTreeVersion(), verdicts: {}, decision: "", comment: "" };
  const history = [];
  let focused = 0;
  // The toolbar sits in a row of its own under the focused node (a tap on the node itself
  // only selects it, never presses a button by accident).
  const actions = document.createElement("li");
  actions.className = "node-actions-row";
  actions.append(document.getElementById("node-actions"));

  function $(selector, scope = document) { return scope.querySelector(selector); }
  function rows() { return [...root.querySelectorAll(".anode")]; }
  function row(nodeId) { return rows().find((li) => li.dataset.node === nodeId); }
  function currentTreeVersion() { return Number($(".atree", root).dataset.version); }
  function csrfToken() {
    return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
  }

  async function call(method, url, body) {
    const response = await fetch(url, {
      method,
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
    const text = await response.text();
    let data = {};
    try { data = text ? JSON.parse(text) : {}; } catch { data = { detail: text.slice(0, 200) }; }
    return { ok: response.ok, status: response.status, data };
  }

  function say(message, kind = "info") {
    const notice = $("#notice");
    notice.textContent = message;
    notice.dataset.kind = kind;
    notice.hidden = !message;
  }

  function saveState(text) { $("#save-state").textContent = text; }

  /* ---- painting ---------------------------------------------------------------------- */

  function verdictText(label) {
    const type = label.error_type ? ` · ${ERROR_LABELS[label.error_type] || label.error_type}` : "";
    return label.verdict ? MARKS[label.verdict] + type : "";
  }

  function paint(li) {
    const label = state.verdicts[li.dataset.node] || {};
    li.classList.remove("v-correct", "v-wrong", "v-unverifiable");
    if (label.verdict) li.classList.add(`v-${label.verdict}`);
    $(".vbadge", li).textContent = verdictText(label);
    const note = $(".anote", li);
    note.textContent = label.comment || "";
    note.hidden = !label.comment;
  }

  function paintAll() {
    rows().forEach(paint);
    const judged = rows().filter((li) => (state.verdicts[li.dataset.node] || {}).verdict).length;
    $("#judged").textContent = judged;
    root.querySelectorAll(".judged-copy").forEach((el) => { el.textContent = judged; });
    $("#total").textContent = rows().length;
    $("#version-number").textContent = state.version;
    $("#decision-shown").textContent = decisionText(state.decision) || "none yet";
    paintActions();
  }

  // The toolbar follows the focused node; its verdict buttons show the node's verdict.
  function paintActions() {
    const li = rows()[focused];
    if (!li) return;
    if (li.nextElementSibling !== actions) li.after(actions);
    actions.style.setProperty("--depth", li.dataset.depth);
    actions.hidden = li.hidden;
    $(".node-actions", actions).hidden = false;
    const label = state.verdicts[li.dataset.node] || {};
    actions.querySelectorAll("[data-act]").forEach((button) => {
      if (VERDICTS.includes(button.dataset.act)) button.setAttribute("aria-pressed", String(label.verdict === button.dataset.act));
    });
    const chip = $(".suggest", li);
    const suggest = $("[data-act=suggest]", actions);
    suggest.hidden = !chip;
    if (chip) $(".label", suggest).textContent = `Take the judge's: ${suggestedVerdict(li)}`;
    $("[data-act=comment] .label", actions).textContent = label.comment ? "Edit comment" : "Comment";
  }

  function suggestedVerdict(li) {
    const chip = $(".suggest", li);
    return chip && [...chip.classList].find((c) => c.startsWith("s-"))?.slice(2);
  }

  function decisionText(decision) {
    const shown = decision && document.querySelector(`input[name=decision][value="${decision}"]`);
    return shown ? shown.parentElement.textContent.trim().slice(2) : "";
  }

  function focusRow(index, block = "nearest") {
    const all = rows();
    if (!all.length) return;
    focused = Math.max(0, Math.min(index, all.length - 1));
    tree.reveal(all[focused]);
    all.forEach((li, i) => li.classList.toggle("focus", i === focused));
    all[focused].focus({ preventScroll: true });
    all[focused].scrollIntoView({ block });
    localStorage.setItem(atKey, all[focused].dataset.node);
    paintActions();
    if (!actions.hidden) actions.scrollIntoView({ block: "nearest" });
  }

  // The next row in `direction` that is not inside a collapsed subtree.
  function step(direction) {
    const all = rows();
    let index = focused + direction;
    while (index >= 0 && index < all.length && all[index].hidden) index += direction;
    if (index >= 0 && index < all.length) focusRow(index);
  }

  function collapseOrParent() {
    const li = rows()[focused];
    if (!li) return;
    if (li.dataset.leaf === "0" && !tree.isCollapsed(li)) { tree.collapse(li); return; }
    const parent = tree.ancestors(li)[0];
    if (parent) focusRow(rows().indexOf(parent));
  }

  function expandOrChild() {
    const li = rows()[focused];
    if (li && li.dataset.leaf === "0" && tree.isCollapsed(li)) tree.expand(li);
    else step(1);
  }

  function toggleFocused() {
    const li = rows()[focused];
    if (li && li.dataset.leaf === "0") tree.toggle(li.dataset.node);
    else say("A leaf has no subtree to collapse.");
  }

  function collapseAll(closed) {
    tree.all(closed);
    refocusVisible();
  }

  // After a collapse hid the focused node: focus the nearest ancestor still shown.
  function refocusVisible() {
    const li = rows()[focused];
    if (li && li.hidden) focusRow(rows().indexOf(tree.ancestors(li).find((a) => !a.hidden)));
  }

  // After a reload: the first node without a verdict from where the annotator was, else there.
  function startIndex() {
    const all = rows();
    const at = Math.max(0, all.findIndex((li) => li.dataset.node === localStorage.getItem(atKey)));
    for (let step = 0; step < all.length; step += 1) {
      const index = (at + step) % all.length;
      if (!(state.verdicts[all[index].dataset.node] || {}).verdict) return index;
    }
    return at;
  }

  function treeEdited() { return $(".atree", root).dataset.edited === "1"; }

  function focusedId() { return rows()[focused]?.dataset.node; }

  /* ---- state changes, undo and drafts ------------------------------------------------ */

  function setLabel(nodeId, next, record = true) {
    const before = state.verdicts[nodeId] ? { ...state.verdicts[nodeId] } : null;
    // What the change was, so that undo can say what it undid.
    const what = (before?.verdict || "") !== (next?.verdict || "") ? "verdict" : "comment";
    if (next && (next.verdict || next.comment)) state.verdicts[nodeId] = next;
    else delete state.verdicts[nodeId];
    if (record) history.push({ kind: "label", node: nodeId, before, what });
    changed();
  }

  function changed() {
    localStorage.setItem(undoKey, JSON.stringify(history.slice(-UNDO_KEPT)));
    paintAll();
    drafts.changed();
  }

  function restore() {
    drafts.restore();
    try { history.push(...JSON.parse(localStorage.getItem(undoKey) || "[]")); } catch { history.length = 0; }
  }

  async function undo() {
    const last = history.pop();
    if (!last) { say("Nothing to undo."); return; }
    if (last.kind === "label") {
      setLabel(last.node, last.before, false);
      focusRow(rows().findIndex((li) => li.dataset.node === last.node));
      say(`Undone: the ${last.what || "verdict"} on ${last.node}.`);
      return;
    }
    const result = await call("POST", `${api}/revert`, { base_version: last.to, to_version: last.from });
    if (!result.ok) { history.push(last); say(result.data.detail || "undo failed", "error"); return; }
    await reloadTree();
    say(`Undone: your edit (version ${result.data.version} restores version ${last.from}).`);
  }

  /* ---- verdicts ------------------------------------------------------------------------ */

  function giveVerdict(verdict) {
    const nodeId = focusedId();
    if (!nodeId) return;
    const next = { ...(state.verdicts[nodeId] || {}), verdict };
    if (verdict === "correct") delete next.error_type;
    setLabel(nodeId, next);
    if (verdict === "wrong") openDialog("dlg-errortype");
    else step(1);
  }

  function pickErrorType(type) {
    const nodeId = focusedId();
    const label = state.verdicts[nodeId];
    if (label && type) { label.error_type = type; changed(); }
    $("#dlg-errortype").close();
  }

  function takeSuggestion() {
    const verdict = suggestedVerdict(rows()[focused]);
    if (verdict) giveVerdict(verdict);
    else say("The judge has no suggestion for this node.");
  }

  function nextUnjudged() {
    const all = rows();
    for (let step = 1; step <= all.length; step += 1) {
      const index = (focused + step) % all.length;
      if (!(state.verdicts[all[index].dataset.node] || {}).verdict) { focusRow(index); return; }
    }
    say("Every node has a verdict: Submit… (s) when you are ready.");
  }

  /* ---- dialogs ------------------------------------------------------------------------- */

  function openDialog(id) {
    const dialog = document.getElementById(id);
    if (!dialog.open) dialog.showModal();
    return dialog;
  }

  function openComment() {
    const nodeId = focusedId();
    const dialog = openDialog("dlg-comment");
    $(".node-name", dialog).textContent = nodeId;
    const box = $("textarea", dialog);
    box.value = (state.verdicts[nodeId] || {}).comment || "";
    box.focus();
  }

  function saveComment() {
    const nodeId = focusedId();
    const comment = $("#dlg-comment textarea").value.trim();
    const next = { ...(state.verdicts[nodeId] || {}) };
    if (comment) next.comment = comment; else delete next.comment;
    setLabel(nodeId, next);
    $("#dlg-comment").close();
  }

  async function editSaved(base, data, nodeId) {
    history.push({ kind: "edit", from: base, to: data.version });
    await reloadTree(nodeId);
    const changes = data.changes.map((c) => `${c.op} ${c.node_id}${c.field ? `.${c.field}` : ""}`).join("; ");
    say(`Saved version ${data.version}${data.merged ? " (merged)" : ""}: ${changes}.`);
  }

  async function reloadTree(keepNode) {
    const nodeId = keepNode || focusedId();
    const response = await fetch(root.dataset.treeUrl, { credentials: "same-origin" });
    if (!response.ok) { say("The tree could not be reloaded.", "error"); return; }
    actions.remove();  // kept across the swap, put back by focusRow
    $("#audit-tree").innerHTML = await response.text();
    tree.apply();
    state.version = currentTreeVersion();
    changed();
    const index = rows().findIndex((li) => li.dataset.node === nodeId);
    focusRow(index >= 0 ? index : 0);
  }

  function openSubmit() {
    const dialog = openDialog("dlg-submit");
    const edited = treeEdited();
    const fix = $("input[name=decision][value=fix_accept]", dialog);
    fix.disabled = !edited;
    $(".fix-note", dialog).hidden = edited;
    $("textarea", dialog).value = state.comment;
    dialog.querySelectorAll("input[name=decision]").forEach((r) => { r.checked = r.value === state.decision && !r.disabled; });
    $(".submit-error", dialog).textContent = "";
  }

  function chooseDecision(decision) {
    if (decision === "fix_accept" && !treeEdited()) {
      $("#dlg-submit .submit-error").textContent = "Fix and accept needs an edited tree: edit a node first (e), or accept or reject it as it is.";
      return;
    }
    state.decision = decision;
    document.querySelectorAll("#dlg-submit input[name=decision]").forEach((r) => { r.checked = r.value === decision; });
    changed();
  }

  async function submit() {
    const dialog = $("#dlg-submit");
    const error = $(".submit-error", dialog);
    state.comment = $("textarea", dialog).value;
    const present = rows().map((li) => li.dataset.node);
    const missing = present.filter((id) => !(state.verdicts[id] || {}).verdict);
    if (missing.length) { error.textContent = `${missing.length} node(s) have no verdict yet: ${missing.slice(0, 5).join(", ")}`; return; }
    if (!state.decision) { error.textContent = `Choose a decision: ${treeEdited() ? "a, f or r" : "a or r"}.`; return; }
    if (state.decision === "fix_accept" && !treeEdited()) { error.textContent = "Fix and accept needs an edited tree: this one is as the audit found it."; return; }
    const verdicts = Object.fromEntries(present.map((id) => [id, state.verdicts[id]]));
    if (!(await drafts.settle())) { dialog.close(); return; }  // a merge comes first
    const body = { version: state.version, decision: state.decision, comment: state.comment, verdicts, base_revision: drafts.revision() };
    const result = await call("POST", `${api}/submit`, body);
    if (result.status === 409 && Array.isArray(result.data.nodes)) { dialog.close(); drafts.submitRefused(); return; }
    if (!result.ok) { error.textContent = result.data.detail || "the submission failed"; drafts.resume(); return; }
    localStorage.removeItem(storageKey);
    localStorage.removeItem(undoKey);
    localStorage.removeItem(atKey);
    document.getElementById("next-form").submit();
  }

  /* ---- keys ---------------------------------------------------------------------------- */

  const MAIN_KEYS = {
    j: () => step(1), ArrowDown: () => step(1),
    k: () => step(-1), ArrowUp: () => step(-1),
    ArrowLeft: collapseOrParent, ArrowRight: expandOrChild, x: toggleFocused,
    "[": () => collapseAll(true), "]": () => collapseAll(false),
    n: nextUnjudged, t: takeSuggestion, c: openComment, e: () => edits.open(rows()[focused]), u: undo, s: openSubmit,
    r: () => edits.resolve("reload"),
    "?": () => openDialog("dlg-cheatsheet"),
  };

  function dialogKey(dialog, event) {
    if (dialog.id === "dlg-draft-conflict") {
      if (drafts.dialogKey(event)) event.preventDefault();
      return;
    }
    const ctrlEnter = event.key === "Enter" && (event.ctrlKey || event.metaKey);
    if (dialog.id === "dlg-errortype" && /^[1-9]$/.test(event.key)) {
      pickErrorType(ERROR_TYPES[Number(event.key) - 1]);
    } else if (dialog.id === "dlg-comment" && ctrlEnter) {
      saveComment();
    } else if (dialog.id === "dlg-edit" && ctrlEnter) {
      edits.save();
    } else if (dialog.id === "dlg-submit" && event.target.tagName !== "TEXTAREA" && "afr".includes(event.key) && event.key.length === 1) {
      chooseDecision({ a: "accept", f: "fix_accept", r: "reject" }[event.key]);
    } else if (dialog.id === "dlg-submit" && (ctrlEnter || (event.key === "Enter" && event.target.tagName !== "TEXTAREA"))) {
      submit();
    } else if (dialog.id === "dlg-conflict" && ((event.key === "m" && edits.mergeable()) || event.key === "r")) {
      edits.resolve(event.key === "m" ? "merge" : "reload");
    } else {
      return;
    }
    event.preventDefault();
  }

  document.addEventListener("keydown", (event) => {
    const dialog = document.querySelector("dialog[open]");
    if (dialog) { dialogKey(dialog, event); return; }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName)) return;
    drafts.keepAlive();
    if (VERDICT_KEYS[event.key]) { event.preventDefault(); giveVerdict(VERDICT_KEYS[event.key]); return; }
    const action = MAIN_KEYS[event.key];
    if (action) { event.preventDefault(); action(); }
  });

  /* ---- mouse and touch: a tap selects a node, its toolbar acts on it ---------------- */

  const ACTIONS = {
    correct: () => giveVerdict("correct"), wrong: () => giveVerdict("wrong"),
    unverifiable: () => giveVerdict("unverifiable"), suggest: takeSuggestion,
    comment: openComment, edit: () => edits.open(rows()[focused]),
    undo, next: nextUnjudged, reload: () => edits.resolve("reload"),
  };

  root.addEventListener("click", (event) => {
    const li = event.target.closest(".anode");
    if (li) focusRow(rows().indexOf(li));
    else refocusVisible();  // "Collapse all" may have hidden it
  });
  document.addEventListener("click", (event) => {
    const target = event.target.closest("[data-act], [data-open], [data-error-type], [data-save], [data-conflict]");
    if (!target) return;
    if (target.dataset.act) { drafts.keepAlive(); ACTIONS[target.dataset.act](); return; }
    if (target.dataset.open === "dlg-submit") openSubmit();
    else if (target.dataset.open) openDialog(target.dataset.open);
    else if (target.dataset.errorType) pickErrorType(target.dataset.errorType);
    else if (target.dataset.save === "comment") saveComment();
    else if (target.dataset.save === "edit") edits.save();
    else if (target.dataset.save === "submit") submit();
    else if (target.dataset.conflict) edits.resolve(target.dataset.conflict);
  });
  document.querySelectorAll("#dlg-submit input[name=decision]").forEach((radio) => {
    radio.addEventListener("change", () => chooseDecision(radio.value));
  });
  $("#dlg-errortype").addEventListener("close", () => step(1));

  const edits = window.questwebAuditEdit({
    api, state, call, say, rows, openDialog, reloadTree, saved: editSaved,
  });
  const drafts = window.questwebAuditDrafts({
    root, api, storageKey, state, call, say, saveState,
    replaced: paintAll,
    rowIndex: (nodeId) => { const index = rows().indexOf(row(nodeId)); return index < 0 ? Infinity : index; },
    nodeTitle: (nodeId) => (row(nodeId) ? $(".desc", row(nodeId)).textContent : "(not in this version of the tree)"),
    describe: (label) => {
      const verdict = verdictText(label || {}) || "no verdict";
      return label?.comment ? `${verdict} · “${label.comment}”` : verdict;
    },
    describeField: (field, value) => (field === "decision" ? decisionText(value) : value && `“${value}”`) || "none",
  });
  restore();
  paintAll();
  focusRow(startIndex(), "center");
  root.dataset.ready = "true";  // keys work from here on (the script is deferred)
})();
