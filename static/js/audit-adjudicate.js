/* questweb adjudication: keys over the list of disputes, and over the disputed nodes of one
 * task, like the audit page's.
 *
 * j / k move between disputed nodes, a / b / c… take that annotator's verdict (the "Take A's
 * verdict" buttons: an htmx post that saves the gold verdict and swaps the row back in),
 * 1 / 2 / 3 set the gold verdict in the form, s goes to the decision, Ctrl+Enter decides, ? opens
 * the key sheet.
 * Without JS the same buttons post the form to the take endpoint and the page comes back.
 */
(() => {
  "use strict";
  // The list of disputes: j / k move between its tasks, Enter follows the focused link.
  const links = [...document.querySelectorAll("[data-dispute]")];
  if (links.length) {
    document.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey || !["j", "k"].includes(event.key)) return;
      const at = links.indexOf(document.activeElement);
      const next = event.key === "j" ? at + 1 : Math.max(0, at - 1);
      links[Math.min(next, links.length - 1)].focus();
      event.preventDefault();
    });
  }
})();

(() => {
  "use strict";
  const form = document.getElementById("adjudicate-form");
  if (!form) return;
  const VERDICT_KEYS = { 1: "correct", 2: "wrong", 3: "unverifiable" };
  let focused = 0;

  const $ = (selector, scope = document) => scope.querySelector(selector);
  const disputed = () => [...form.querySelectorAll("tr[data-disputed='1']")];

  function say(message, kind = "info") {
    const notice = $("#adj-notice");
    notice.textContent = message;
    notice.dataset.kind = kind;
    notice.hidden = !message;
  }

  function focusRow(index) {
    const rows = disputed();
    if (!rows.length) { say("No disputed node on this task: decide below (s)."); return; }
    focused = Math.max(0, Math.min(index, rows.length - 1));
    form.querySelectorAll("tr.focus").forEach((tr) => tr.classList.remove("focus"));
    rows[focused].classList.add("focus");
    rows[focused].focus({ preventScroll: true });
    rows[focused].scrollIntoView({ block: "nearest" });
  }

  function take(letter) {
    const tr = disputed()[focused];
    const button = tr && $(`[data-take="${letter}"]`, tr);
    if (!button) { say(`There is no annotator ${letter.toUpperCase()} on this task.`, "warn"); return; }
    if (button.disabled) { say(button.title, "warn"); return; }
    button.click();
  }

  function setGold(verdict) {
    const tr = disputed()[focused];
    const select = tr && $("select[name^='gold-']", tr);
    if (!select) return;
    select.value = verdict;
    if (verdict === "correct") $("select[name^='gold_type-']", tr).value = "";
    say(`Gold verdict on ${tr.dataset.node}: ${verdict} (saved when you decide).`);
    focusRow(focused + 1);
  }

  function toDecision() {
    const radio = $("input[name=decision]:checked", form) || $("input[name=decision]:not(:disabled)", form);
    $("#decision").scrollIntoView({ block: "start" });
    radio.focus();
  }

  const KEYS = {
    j: () => focusRow(focused + 1), ArrowDown: () => focusRow(focused + 1),
    k: () => focusRow(focused - 1), ArrowUp: () => focusRow(focused - 1),
    s: toDecision,
    "?": () => { const d = $("#dlg-adj-keys"); if (!d.open) d.showModal(); },
  };

  document.addEventListener("keydown", (event) => {
    if (document.querySelector("dialog[open]")) return;  // Esc closes it natively
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit(form.querySelector("button[type=submit]:not([name])"));
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const typing = ["TEXTAREA", "SELECT"].includes(target.tagName) || (target.tagName === "INPUT" && target.type !== "radio");
    if (typing || (target.tagName === "INPUT" && event.key.startsWith("Arrow"))) return;
    let action = KEYS[event.key];
    if (!action && VERDICT_KEYS[event.key]) action = () => setGold(VERDICT_KEYS[event.key]);
    if (!action && /^[a-z]$/.test(event.key)) action = () => take(event.key);
    if (action) { event.preventDefault(); action(); }
  });

  form.addEventListener("click", (event) => {
    const tr = event.target.closest("tr[data-disputed='1']");
    if (tr) {
      const index = disputed().indexOf(tr);
      focused = index;
      form.querySelectorAll("tr.focus").forEach((row) => row.classList.remove("focus"));
      tr.classList.add("focus");
    }
    const pick = event.target.closest("[data-take-decision]");
    if (!pick) return;
    const radio = $(`input[name=decision][value="${pick.dataset.takeDecision}"]`, form);
    if (radio && !radio.disabled) radio.checked = true;
    $("select[name=version]", form).value = pick.dataset.takeVersion;
    say(`${pick.textContent.trim()}: filled in below; press Decide to save it.`);
  });

  document.body.addEventListener("htmx:afterSettle", (event) => {
    const value = event.detail.requestConfig?.elt?.value || "";
    const node = value.split(":").slice(1).join(":");
    const row = node && document.getElementById(`node-${node}`);
    if (!row) return;
    // The swapped row lost its focus mark; keep the reviewer where they are now (they may
    // have moved on with j / k while the verdict was saving).
    focusRow(focused);
    const gold = $("select[name^='gold-']", row);
    say(`Gold verdict on ${node}: ${gold ? gold.selectedOptions[0].textContent : ""} (saved).`);
  });
  document.body.addEventListener("htmx:responseError", (event) => {
    say(event.detail.xhr.responseText.replace(/<[^>]*>/g, " ").trim().slice(0, 200) || "The verdict could not be taken.", "error");
  });

  $("[data-testid=take-decision]").hidden = false;
  document.querySelectorAll("[data-open='dlg-adj-keys']").forEach((b) => b.addEventListener("click", () => $("#dlg-adj-keys").showModal()));
  const first = disputed().findIndex((tr) => !$("select[name^='gold-']", tr)?.value);
  focusRow(first >= 0 ? first : 0);
  form.dataset.ready = "true";
})();
