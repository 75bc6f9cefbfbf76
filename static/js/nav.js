/* questweb: on a narrow screen the top navigation folds behind a menu button (questweb.css
 * says how narrow). The button is a plain <button aria-expanded aria-controls>, so Enter and
 * Space work as on any button; Esc closes the menu and puts the focus back on it. Without this
 * script the button stays hidden and the links wrap, as they always did.
 */
(() => {
  "use strict";
  const header = document.querySelector(".topbar");
  const button = header?.querySelector(".menu-toggle");
  if (!button) return;

  const isOpen = () => button.getAttribute("aria-expanded") === "true";

  function show(open) {
    button.setAttribute("aria-expanded", String(open));
    header.dataset.menu = open ? "open" : "closed";
  }

  show(false);
  button.hidden = false;
  button.addEventListener("click", () => show(!isOpen()));
  header.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !isOpen() || getComputedStyle(button).display === "none") return;
    show(false);
    button.focus();
  });
})();
