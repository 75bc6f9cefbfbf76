/* Copy buttons: <button data-copy="#selector">: copies that element's text; says so briefly. */
(() => {
  "use strict";
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-copy]");
    if (!button) return;
    const source = document.querySelector(button.dataset.copy);
    if (!source) return;
    const label = button.textContent;
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      button.textContent = "copied";
    } catch {
      // No clipboard (an insecure origin): select the text so Ctrl+C copies it.
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = "selected: press Ctrl+C";
    }
    setTimeout(() => { button.textContent = label; }, 2000);
  });
})();
