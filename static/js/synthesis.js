/* Draws a synthesis batch's figures (built server-side with plotly) with vendored plotly.js. */
(() => {
  "use strict";
  const source = document.getElementById("synthesis-figures");
  if (!source || !window.Plotly) return;
  const figures = JSON.parse(source.textContent);
  document.querySelectorAll("[data-figure]").forEach((el) => {
    const figure = figures[el.dataset.figure];
    if (figure) window.Plotly.newPlot(el, figure.data, figure.layout, { displaylogo: false, responsive: true });
  });
})();
