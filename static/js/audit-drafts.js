/* questweb audit page: the draft's trips to the server, and merging when another tab or device
 * saved in between.
 *
 * The server numbers the draft's revisions and every save sends the revision it was based on. A
 * save from a tab that fell behind is refused (409) with the stored draft and, node by node, what
 * changed here and what changed elsewhere since. A change made on one side only (this tab
 * judged one node, the other tab another) is in the server's merge: the page takes it by itself
 * and the status line says how many changes came from elsewhere. Only a node (or the decision or
 * comment) changed on both sides opens the merge dialog, which asks about each of them (1 keeps
 * mine, 2 takes theirs, m / t for all of them). The copy in localStorage (for reloads) carries
 * its revision too, so an old copy goes through the same merge instead of overwriting newer work.
 *
 * audit.js calls window.questwebAuditDrafts(page) once, with the page's state and helpers.
 */
(() => {
  "use strict";
  const SAVE_DELAY_MS = 800;
  const KEEPALIVE_MS = 60_000;
  const FIELD_NAMES = { decision: "The decision", comment: "The task comment" };

  // The audit pages' one time format, as apps/audit/templatetags/audit_format.py writes it.
  function auditTime(date) {
    return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  }

  // JSON with object keys sorted, so two drafts compare equal whatever order labels were built in.
  function canonical(value) {
    return JSON.stringify(value, (key, v) => (v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));
  }

  window.questwebAuditDrafts = (page) => {
    const { root, api, storageKey, state, call, say, saveState } = page;
    const dialog = document.getElementById("dlg-draft-conflict");
    const $ = (selector, scope = dialog) => scope.querySelector(selector);
    let revision = Number(root.dataset.draftRevision || 0);  // the server revision state is based on
    let edits = 0;  // changes made on this page; a save remembers how many it carried
    let unsaved = false;
    let timer = null;
    let inFlight = null;
    let saveAgain = false;
    let lastSave = Date.now();  // the page was just served with the lock it holds
    let pending = null;  // { body, sent }: a refused save waiting for the merge dialog
    let choices = {};
    let picked = 0;
    let refusedSubmit = false;
    let mergedNote = "";  // what a silent merge took from elsewhere, for the next status line

    const content = () => ({ version: state.version, verdicts: state.verdicts, decision: state.decision, comment: state.comment });
    const sameWork = (a, b) => canonical([a.verdicts || {}, a.decision || "", a.comment || ""]) === canonical([b.verdicts || {}, b.decision || "", b.comment || ""]);

    function keepLocal() {
      localStorage.setItem(storageKey, JSON.stringify({ ...content(), revision }));
    }

    function use(draft) {
      state.verdicts = draft.verdicts || {};
      state.decision = draft.decision || "";
      state.comment = draft.comment || "";
    }

    /* ---- saving ------------------------------------------------------------------------ */

    function changed() {
      edits += 1;
      unsaved = true;
      keepLocal();
      clearTimeout(timer);
      timer = setTimeout(save, SAVE_DELAY_MS);
      saveState("saving…");
    }

    function save() {
      clearTimeout(timer);
      if (pending) return Promise.resolve();  // the merge comes first
      if (inFlight) { saveAgain = true; return inFlight; }
      inFlight = send().finally(() => {
        inFlight = null;
        if (saveAgain) { saveAgain = false; save(); }
      });
      return inFlight;
    }

    async function send() {
      const sent = edits;
      lastSave = Date.now();
      const result = await call("PUT", `${api}/draft`, { ...content(), base_revision: revision });
      if (result.status === 409 && Array.isArray(result.data.nodes)) refused(result.data, sent);
      else if (result.ok) saved(result.data, sent);
      else { saveState("not saved on the server"); say(result.data.detail || "the draft could not be saved", "error"); }
    }

    // The status line, followed by what the last silent merge took from elsewhere.
    function status(text) {
      saveState(mergedNote ? `${text} · ${mergedNote}` : text);
      mergedNote = "";
    }

    function saved(data, sent) {
      revision = data.draft_revision;
      keepLocal();
      if (sent === edits) {
        unsaved = false;
        status(`saved ${auditTime(new Date())}`);
      }
      const lock = document.getElementById("lock");
      lock.dateTime = data.lock_expires_at;
      lock.textContent = auditTime(new Date(data.lock_expires_at));
      if (data.current_version > state.version) {
        say(`Someone else saved version ${data.current_version} of this tree: press r to load it (your verdicts on nodes that still exist are kept).`, "warn");
      }
    }

    function keepAlive() {
      if (Date.now() - lastSave > KEEPALIVE_MS) save();
    }

    /* ---- refused: merge by itself, or ask ---------------------------------------------- */

    const changes = (n) => `${n} change${n === 1 ? "" : "s"}`;
    const onlyElsewhere = (body) => [...body.nodes, ...body.fields].filter((d) => d.changed_elsewhere && !d.changed_here).length;

    // Only the same node (or task field) changed on both sides needs the annotator: every other
    // difference has one side to take, and the server's merge took it.
    function refused(body, sent) {
      if (sent !== edits) { saveAgain = true; return; }  // changed meanwhile: ask again with it
      saveState("not saved: changed elsewhere");
      if ([...body.nodes, ...body.fields].some((d) => d.conflict)) { pending = { body, sent }; showWhenFree(); return; }
      const theirs = onlyElsewhere(body);
      mergedNote = theirs ? `merged ${changes(theirs)} from another tab or device` : "";
      merge(body, {});
      tell("");
    }

    function tell(text) {
      const again = refusedSubmit ? " Nothing was submitted yet: press s to submit the merged audit." : "";
      refusedSubmit = false;
      if (text || again) say(`${text}${again}`.trim());
    }

    // Resolved conflicts keep "mine" where chosen; everything else is the server's merge.
    function merge(body, picks) {
      const merged = { ...body.merged, verdicts: { ...body.merged.verdicts } };
      let keepsMine = [...body.nodes, ...body.fields].some((d) => d.changed_here && !d.changed_elsewhere);
      body.nodes.filter((d) => d.conflict && picks[`node:${d.node}`] === "mine").forEach((d) => {
        keepsMine = true;
        if (d.mine) merged.verdicts[d.node] = d.mine; else delete merged.verdicts[d.node];
      });
      body.fields.filter((d) => d.conflict && picks[`field:${d.field}`] === "mine").forEach((d) => {
        keepsMine = true;
        merged[d.field] = d.mine;
      });
      use(merged);
      revision = body.draft_revision;
      pending = null;
      keepLocal();
      page.replaced();
      if (keepsMine) { save(); return; }
      unsaved = false;
      status("up to date");
    }

    function showWhenFree() {
      const other = document.querySelector("dialog[open]:not(#dlg-draft-conflict)");
      if (other) { other.addEventListener("close", showWhenFree, { once: true }); return; }
      if (!pending) return;
      if (pending.sent !== edits) { pending = null; save(); return; }  // stale comparison
      openMerge(pending.body);
    }

    function conflictsOf(body) {
      const nodes = body.nodes.filter((d) => d.conflict)
        .sort((a, b) => page.rowIndex(a.node) - page.rowIndex(b.node))
        .map((d) => ({ key: `node:${d.node}`, name: d.node, title: page.nodeTitle(d.node), what: "this node was changed elsewhere", mine: page.describe(d.mine), theirs: page.describe(d.theirs) }));
      const fields = body.fields.filter((d) => d.conflict)
        .map((d) => ({ key: `field:${d.field}`, name: FIELD_NAMES[d.field], title: "", what: "it was changed elsewhere", mine: page.describeField(d.field, d.mine), theirs: page.describeField(d.field, d.theirs) }));
      return [...nodes, ...fields];
    }

    function element(tag, text, className) {
      const el = document.createElement(tag);
      if (text) el.textContent = text;
      if (className) el.className = className;
      return el;
    }

    function option(index, side, key, text) {
      const label = element("label", "", "inline-check");
      const radio = element("input");
      Object.assign(radio, { type: "radio", name: `merge-${index}`, value: side });
      radio.addEventListener("change", () => choose(key, side));
      label.append(radio, " ", element("kbd", side === "mine" ? "1" : "2"), ` ${side}: ${text}`);
      return label;
    }

    function mergeRow(conflict, index) {
      const li = element("li", "", "mrow unchosen");
      li.dataset.key = conflict.key;
      li.tabIndex = -1;
      const head = element("p");
      head.append(element("b", conflict.name), conflict.title ? ` ${conflict.title} ` : " ", element("span", `— ${conflict.what}`, "elsewhere"));
      li.append(head, option(index, "mine", conflict.key, conflict.mine), option(index, "theirs", conflict.key, conflict.theirs));
      return li;
    }

    function summary(body, conflicts) {
      const theirs = onlyElsewhere(body);
      const mine = [...body.nodes, ...body.fields].filter((d) => d.changed_here && !d.changed_elsewhere).length;
      const parts = [theirs && `${changes(theirs)} made elsewhere`, mine && `${changes(mine)} of yours`].filter(Boolean);
      const merged = parts.length ? `Merged by themselves: ${parts.join(" and ")}. ` : "";
      return `${merged}${changes(conflicts.length)} on both sides — keep yours or take theirs:`;
    }

    function openMerge(body) {
      const conflicts = conflictsOf(body);
      choices = {};
      $(".conflict-text").textContent = `${body.detail[0].toUpperCase()}${body.detail.slice(1)}.`;
      $(".merge-summary").textContent = summary(body, conflicts);
      $(".merge-rows").replaceChildren(...conflicts.map(mergeRow));
      $(".merge-error").textContent = "";
      if (!dialog.open) dialog.showModal();
      focusMerge(0);
    }

    function mergeRows() { return [...dialog.querySelectorAll(".mrow")]; }

    function focusMerge(index) {
      const all = mergeRows();
      if (!all.length) return;
      picked = Math.max(0, Math.min(index, all.length - 1));
      all.forEach((li, i) => li.classList.toggle("focus", i === picked));
      all[picked].focus();
      all[picked].scrollIntoView({ block: "nearest" });
    }

    function choose(key, side) {
      choices[key] = side;
      const li = mergeRows().find((row) => row.dataset.key === key);
      li.querySelectorAll("input").forEach((radio) => { radio.checked = radio.value === side; });
      li.classList.remove("unchosen");
      $(".merge-error").textContent = "";
    }

    function chooseAll(side) {
      mergeRows().forEach((li) => choose(li.dataset.key, side));
    }

    function finish() {
      if (!pending) return;
      const open = mergeRows().filter((li) => !choices[li.dataset.key]);
      if (open.length) {
        $(".merge-error").textContent = `Choose for ${open.length} more: 1 keeps yours, 2 takes theirs (or m / t for all).`;
        focusMerge(mergeRows().indexOf(open[0]));
        return;
      }
      const { body } = pending;
      dialog.close();
      merge(body, choices);
      tell(`Merged your draft with revision ${body.draft_revision} from elsewhere.`);
    }

    function dialogKey(event) {
      const key = event.key;
      if (key === "Enter") finish();
      else if (key === "j" || key === "ArrowDown") focusMerge(picked + 1);
      else if (key === "k" || key === "ArrowUp") focusMerge(picked - 1);
      else if ((key === "1" || key === "2") && mergeRows().length) {
        choose(mergeRows()[picked].dataset.key, key === "1" ? "mine" : "theirs");
        focusMerge(picked + 1);
      } else if (key === "m" || key === "t") chooseAll(key === "m" ? "mine" : "theirs");
      else return false;
      return true;
    }

    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();  // Esc would leave the draft unsaved: the annotator chooses
      $(".merge-error").textContent = "Your draft is not saved until you merge: press Enter when you have chosen.";
    });
    // The browser may close it anyway (Esc twice): then the merge waits for the next change.
    dialog.addEventListener("close", () => {
      if (!pending || dialog.open) return;
      pending = null;
      say("Not merged yet: your draft is not saved while it differs from the one saved elsewhere. The merge comes back with your next change.", "warn");
    });
    dialog.addEventListener("click", (event) => {
      const action = event.target.closest("[data-merge]")?.dataset.merge;
      if (action === "save") finish();
      else if (action) chooseAll(action);
    });

    /* ---- loading, submitting ----------------------------------------------------------- */

    // The server's draft, unless the local copy holds work it lacks: then the local copy is
    // saved on the revision it was based on, and the server accepts it or answers with a merge.
    function restore() {
      const server = JSON.parse(document.getElementById("audit-draft")?.textContent || "{}");
      use(server);
      let local = null;
      try { local = JSON.parse(localStorage.getItem(storageKey) || "null"); } catch { local = null; }
      if (!local) return;
      if (!Number.isInteger(local.revision)) {  // a copy from before revisions: newer wins, once
        if (!(local.saved_at > (Date.parse(server.saved_at) || 0))) return;
        local.revision = 0;
      }
      if (local.revision === revision && sameWork(local, server)) return;
      use(local);
      revision = local.revision;
      save();
    }

    // Before submitting: no save under way, and no merge waiting.
    async function settle() {
      clearTimeout(timer);
      while (inFlight) await inFlight;
      return !pending;
    }

    // The submission was refused because the draft moved on: save it, which brings the merge.
    function submitRefused() {
      refusedSubmit = true;
      return save();
    }

    function resume() {
      if (unsaved && !pending) timer = setTimeout(save, SAVE_DELAY_MS);
    }

    return { changed, keepAlive, restore, settle, submitRefused, resume, dialogKey, revision: () => revision };
  };
})();
