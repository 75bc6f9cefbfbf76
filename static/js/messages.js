/* Flash messages are shown once. A success note ("Batch 1 queued.") leaves when a polled panel
   reports a new status (data-status), since what it said has stopped being true; no message is
   kept in htmx's history snapshots or brought back by the browser's back-forward cache. */
(() => {
  "use strict";
  const drop = (selector) => {
    document.querySelectorAll(selector).forEach((el) => el.remove());
    document.querySelectorAll("ul.messages:empty").forEach((el) => el.remove());
  };
  const STATUS = /data-status="([^"]*)"/;
  document.addEventListener("htmx:beforeSwap", (event) => {
    const before = event.detail.target && event.detail.target.dataset.status;
    const after = STATUS.exec(event.detail.serverResponse || "");
    if (before && after && after[1] !== before) drop("ul.messages li.msg-success");
  });
  document.addEventListener("htmx:beforeHistorySave", () => drop("ul.messages li"));
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) drop("ul.messages li");
  });
})();
