/* questweb audit page: editing a node, which saves a new tree version, and what happens when
 * someone else saved a version first.
 *
 * The server answers such an edit with a 409 that says whether it can be merged (it touches
 * none of the nodes the other version changed); merging is offered only then. Whatever the
 * outcome, what the annotator typed is never thrown away: the conflict dialog shows it to copy,
 * and after a reload it is put back into the edit form, against the new tree, to save again.
 */
(() => {
  "use strict";

  window.questwebAuditEdit = (page) => {
    const dialog = document.getElementById("dlg-edit");
    const conflict = document.getElementById("dlg-conflict");
    const $ = (selector, scope = dialog) => scope.querySelector(selector);
    const FIELDS = ["description", "critical", "strategy", "check", "add_child", "move_to", "remove", "note"];
    // The edit the server refused, while its conflict is being resolved: { node, ops, base, typed }.
    let pending = null;

    function field(name) { return $(`[name=${name}]`); }

    function typedNow() {
      return Object.fromEntries(FIELDS.map((name) => {
        const input = field(name);
        return [name, input.type === "checkbox" ? input.checked : input.value];
      }));
    }

    function fill(values) {
      FIELDS.forEach((name) => {
        const input = field(name);
        if (input.type === "checkbox") input.checked = Boolean(values[name]);
        else input.value = values[name] ?? "";
      });
    }

    // The form for `li` as the tree has it; `typed` (kept from a refused edit) goes on top.
    function open(li, typed) {
      if (!li) return;
      const nodeId = li.dataset.node;
      if (!typed && pending && pending.node === nodeId) typed = pending.typed;
      page.openDialog("dlg-edit");
      const leaf = li.dataset.leaf === "1";
      $(".node-name").textContent = nodeId;
      dialog.querySelectorAll("[data-for=leaf]").forEach((el) => { el.hidden = !leaf; });
      dialog.querySelectorAll("[data-for=group]").forEach((el) => { el.hidden = leaf; });
      const form = {
        description: $(".desc", li).textContent,
        critical: li.dataset.critical === "1",
        strategy: li.dataset.strategy || "parallel",
        check: leaf ? JSON.stringify(JSON.parse(li.dataset.check || "null"), null, 1) : "",
      };
      dialog.dataset.original = JSON.stringify(form);
      fill({ ...form, add_child: "", move_to: "", remove: false, note: "", ...(typed || {}) });
      $(".edit-error").textContent = "";
      $(".edit-info").textContent = typed
        ? `Your edit is back in the form, on version ${page.state.version} of the tree: check it and save again.`
        : "";
      $("#group-ids").replaceChildren(...page.rows().filter((r) => r.dataset.leaf === "0").map((r) => new Option(r.dataset.node)));
      field("description").focus();
    }

    function editOps(nodeId) {
      const original = JSON.parse(dialog.dataset.original);
      const value = (name) => field(name).value.trim();
      if (field("remove").checked) return [{ op: "remove_node", node: nodeId }];
      const ops = [];
      if (value("description") !== original.description.trim()) ops.push({ op: "set_description", node: nodeId, description: value("description") });
      if (field("critical").checked !== original.critical) ops.push({ op: "set_critical", node: nodeId, critical: field("critical").checked });
      if (original.check === "" && value("strategy") !== original.strategy) ops.push({ op: "set_strategy", node: nodeId, strategy: value("strategy") });
      if (original.check !== "" && value("check") !== original.check.trim()) ops.push({ op: "set_check", node: nodeId, check: JSON.parse(value("check")) });
      if (value("add_child")) ops.push({ op: "add_node", parent: nodeId, description: value("add_child") });
      if (value("move_to")) ops.push({ op: "move_node", node: nodeId, parent: value("move_to") });
      return ops;
    }

    async function save(merge = false) {
      if (merge && !pending) return;
      const nodeId = merge ? pending.node : $(".node-name").textContent;
      const typed = merge ? pending.typed : typedNow();
      let ops;
      try { ops = merge ? pending.ops : editOps(nodeId); } catch (error) {
        $(".edit-error").textContent = `The check is not valid JSON: ${error.message}`;
        return;
      }
      if (!ops.length) { pending = null; dialog.close(); return; }
      const base = merge ? pending.base : page.state.version;
      const body = { base_version: base, ops, note: String(typed.note).trim(), merge };
      const result = await page.call("POST", `${page.api}/edits`, body);
      if (result.status === 409 && "mergeable" in result.data) {
        pending = { node: nodeId, ops, base, typed };
        if (dialog.open) dialog.close();
        openConflict(result.data);
        return;
      }
      if (!result.ok) {
        page.openDialog("dlg-edit");
        $(".edit-error").textContent = result.data.detail || "the edit failed";
        return;
      }
      pending = null;
      if (dialog.open) dialog.close();
      await page.saved(base, result.data, nodeId);
    }

    // What the refused edit would have changed, in words, to read or copy.
    function describe(kept) {
      const said = kept.ops.map((op) => ({
        set_description: () => `Description of ${op.node}: ${op.description}`,
        set_critical: () => `${op.node} ${op.critical ? "critical" : "not critical"}`,
        set_strategy: () => `Strategy of ${op.node}: ${op.strategy}`,
        set_check: () => `Check of ${op.node}: ${JSON.stringify(op.check)}`,
        add_node: () => `New child of ${op.parent}: ${op.description}`,
        move_node: () => `Move ${op.node} under ${op.parent}`,
        remove_node: () => `Remove ${op.node}`,
      }[op.op] || (() => JSON.stringify(op)))());
      if (String(kept.typed.note).trim()) said.push(`Note: ${String(kept.typed.note).trim()}`);
      return said.join("\n");
    }

    function openConflict(data) {
      page.openDialog("dlg-conflict");
      $(".conflict-text", conflict).textContent = data.detail.charAt(0).toUpperCase() + data.detail.slice(1);
      $("[data-conflict=merge]", conflict).hidden = !data.mergeable;
      $("[data-conflict=reload] .label", conflict).textContent = data.mergeable ? "Reload the tree" : "Reload and redo my edit";
      $(".your-edit", conflict).textContent = describe(pending);
      $(".kept", conflict).hidden = false;
    }

    // "merge" sends the kept edit again; "reload" fetches the tree and, when an edit was
    // refused, opens it again on the node (or, if the node is gone, says what was typed).
    async function resolve(choice) {
      if (conflict.open) conflict.close();
      if (choice === "merge") { await save(true); return; }
      const kept = pending;
      await page.reloadTree(kept?.node);
      if (!kept) { page.say(`Reloaded version ${page.state.version}. Verdicts on nodes that still exist are kept.`); return; }
      const li = page.rows().find((row) => row.dataset.node === kept.node);
      if (li) { open(li, kept.typed); return; }
      pending = null;
      page.say(`${kept.node} is not in version ${page.state.version}, so your edit cannot be redone there. What you typed: ${describe(kept)}`, "warn");
    }

    function mergeable() { return pending && !$("[data-conflict=merge]", conflict).hidden; }

    return { open, save, resolve, mergeable };
  };
})();
