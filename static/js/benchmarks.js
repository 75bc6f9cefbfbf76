/* Draws a benchmark run's calibration plot and search-call histogram (plotly figures built
   by quest.bench.plots on the server) with the vendored plotly.js. */
(() => {
  "use strict";
  const source = document.getElementById("benchmark-figures");
  if (!source || !window.Plotly) return;
  const figures = JSON.parse(source.textContent);
  document.querySelectorAll("[data-figure]").forEach((el) => {
    const figure = figures[el.dataset.figure];
    if (!figure) return;
    // The figure's caption names it: its own title would crowd a phone's width.
    // The legend sits above the plot, where a phone's width leaves it room.
    const layout = {
      ...figure.layout,
      title: undefined,
      autosize: true,
      margin: { l: 56, r: 16, t: 40, b: 48 },
      legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" },
    };
    window.Plotly.newPlot(el, figure.data, layout, { displaylogo: false, responsive: true });
  });
})();
