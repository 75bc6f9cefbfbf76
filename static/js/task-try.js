/* The task page's "Try an answer" form: a new try first clears the last result (reward and the
   scored tree), so an old reward never sits beside a new answer's error; a response htmx would
   not swap (a 5xx, an expired form, an oversized body) or a lost connection is shown in its
   place. The view answers its own refusals (an empty answer…) with a 200 fragment. */
(() => {
  "use strict";
  const form = document.querySelector("form[data-try]");
  const result = document.getElementById("try-result");
  const panel = () => document.getElementById("tree-panel"); // each result swaps in a new one
  if (!form || !result || !panel()) return;
  const pristine = panel().innerHTML;

  const show = (text) => {
    const p = document.createElement("p");
    p.className = "error-text try-error";
    p.setAttribute("role", "alert");
    p.dataset.testid = "try-error";
    p.textContent = "Not scored: " + text;
    result.replaceChildren(p);
  };

  const serverMessage = (xhr) => {
    const type = xhr.getResponseHeader("Content-Type") || "";
    if (type.includes("json")) {
      try { return JSON.parse(xhr.responseText).detail || ""; } catch (e) { return ""; }
    }
    const doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
    const message = doc.querySelector("section.error p");
    return message ? message.textContent.trim() : "";
  };

  // htmx fires some of these on the form, others on the target: listen above both.
  const on = (name, handler) =>
    document.body.addEventListener(name, (event) => {
      const config = event.detail.requestConfig;
      if ((config ? config.elt : event.detail.elt) === form) handler(event);
    });

  on("htmx:beforeRequest", () => {
    panel().innerHTML = pristine;
    const p = document.createElement("p");
    p.className = "muted";
    p.setAttribute("role", "status");
    p.textContent = "Scoring…";
    result.replaceChildren(p);
  });

  on("htmx:beforeSwap", (event) => {
    const xhr = event.detail.xhr;
    if (xhr.status < 400) return;
    event.detail.shouldSwap = false;
    event.detail.isError = false; // handled here: the page says it, not the console
    const message = serverMessage(xhr);
    show(`the server answered ${xhr.status}${message ? ": " + message : ""}`);
  });

  on("htmx:sendError", () => {
    show("the server could not be reached; check the connection and try again.");
  });
})();
