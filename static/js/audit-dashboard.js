/* Draws the audit dashboard's figures (built server-side with plotly) with vendored plotly.js. */
(() => {
  "use strict";
  // The campaign picker submits on change (no inline handler: the CSP allows none).
  document.querySelectorAll("[data-submit-on-change]").forEach((select) => {
    select.addEventListener("change", () => select.form.submit());
  });
  const source = document.getElementById("audit-figures");
  if (!source || !window.Plotly) return;
  const figures = JSON.parse(source.textContent);
  document.querySelectorAll("[data-figure]").forEach((el) => {
    const figure = figures[el.dataset.figure];
    if (figure) window.Plotly.newPlot(el, figure.data, figure.layout, { displaylogo: false, responsive: true });
  });
})();
