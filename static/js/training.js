// The training pages: figures built server-side, the forms' kind switches, and a job's live
// curves, fed by its websocket. Text from the server is written with textContent only.
(() => {
  "use strict";
  const PLOT_CONFIG = { displaylogo: false, responsive: true };
  const ACTIVE = new Set(["queued", "running"]);
  const COLOURS = ["#2f5fd0", "#c2410c", "#1f7a3d", "#7c3aed", "#b3261e", "#0e7490"];

  // ---- figures built by apps/training/charts.py ----
  function drawFigures() {
    const source = document.getElementById("training-figures");
    if (!source || !window.Plotly) return;
    const figures = JSON.parse(source.textContent);
    document.querySelectorAll("[data-figure]").forEach((el) => {
      const figure = figures[el.dataset.figure];
      if (figure) window.Plotly.newPlot(el, figure.data, figure.layout, PLOT_CONFIG);
    });
  }

  // ---- forms: groups shown for the chosen kind, selects that submit themselves ----
  // form.dataset is not read: the launch form has a control named "dataset", which shadows it.
  function kindSwitch(form) {
    const kind = form.querySelector("select[name=kind]");
    if (!kind) return;
    const datasetKinds = Object.fromEntries(
      (form.getAttribute("data-dataset-kinds") || "").trim().split(/\s+/).filter(Boolean).map((pair) => pair.split(":")));
    const apply = () => {
      form.querySelectorAll("[data-kinds]").forEach((el) => {
        el.hidden = !el.dataset.kinds.split(" ").includes(kind.value);
      });
      const dataset = form.querySelector("select[name=dataset]");
      const wanted = datasetKinds[kind.value];
      if (!dataset || !wanted) return;
      dataset.querySelectorAll("option[data-kind]").forEach((option) => {
        option.hidden = option.dataset.kind !== wanted;
      });
      const chosen = dataset.selectedOptions[0];
      if (chosen && chosen.hidden) dataset.value = "";
    };
    kind.addEventListener("change", apply);
    apply();
  }

  document.querySelectorAll("form[data-kind-switch]").forEach(kindSwitch);
  document.querySelectorAll("select[data-autosubmit]").forEach((select) => {
    select.addEventListener("change", () => select.form.requestSubmit());
  });

  // ---- the log scrolls to its end, on load and after each poll ----
  const toLogEnd = () => {
    const log = document.getElementById("job-log");
    if (log) log.scrollTop = log.scrollHeight;
  };
  document.body.addEventListener("htmx:afterSwap", toLogEnd);

  // ---- a job's live curves ----
  // Whole steps between ticks: the least of 1, 2, 5, 10, 20, ... that keeps the axis to six
  // intervals (apps/training/charts.py's step_dtick is the same).
  function stepDtick(steps) {
    const span = steps.reduce((most, s) => Math.max(most, s), -Infinity)
      - steps.reduce((least, s) => Math.min(least, s), Infinity);
    for (let scale = 1; ; scale *= 10) {
      for (const factor of [1, 2, 5]) if (!(span > 6 * factor * scale)) return factor * scale;
    }
  }

  function liveJob(root, live) {
    const $ = (selector) => root.querySelector(selector);
    const state = { lastLine: live.after, stream: null, ended: !live.active, timer: null, revision: 0 };
    const boxes = new Map();
    document.querySelectorAll("[data-chart]").forEach((box) => boxes.set(box.dataset.chart, box));

    const numeric = (value) => typeof value === "number" && Number.isFinite(value);
    // A trace's meta (apps/training/job_charts.py) names the metric it draws, and the one its
    // band edge adds (sign 1) or subtracts (sign -1).
    function valueOf(meta, values) {
      const y = values[meta.key];
      if (!numeric(y) || !meta.band) return numeric(y) ? y : null;
      const spread = values[meta.band];
      return numeric(spread) ? y + meta.sign * spread : null;
    }
    function append(step, values) {
      for (const chart of live.charts) {
        for (const trace of chart.figure.data) {
          const y = trace.meta ? valueOf(trace.meta, values) : null;
          if (y === null) continue;
          trace.x.push(step);
          trace.y.push(y);
          trace.visible = true;
        }
      }
    }
    function draw() {
      state.timer = null;
      if (!window.Plotly) return;
      state.revision += 1;
      for (const chart of live.charts) {
        const box = boxes.get(chart.name);
        const shown = chart.figure.data.filter((trace) => trace.visible !== false);
        if (!box || !shown.length) continue;
        box.hidden = false;
        const layout = chart.figure.layout;
        layout.xaxis.dtick = stepDtick(shown.flatMap((trace) => trace.x));
        layout.datarevision = state.revision;
        window.Plotly.react(box.querySelector(".chart"), chart.figure.data, layout, PLOT_CONFIG);
      }
    }
    const redraw = () => { if (!state.timer) state.timer = setTimeout(draw, 250); };

    function setStatus(message) {
      const badge = $("[data-role=status]");
      badge.textContent = message.label;
      badge.className = "status status-" + message.status;
      $("[data-role=step]").textContent = String(message.step);
      $("[data-role=max-steps]").textContent = String(message.max_steps);
      const progress = $("[data-role=progress]");
      progress.max = Math.max(1, message.max_steps);
      progress.value = message.step;
      const active = ACTIVE.has(message.status);
      const cancel = $("[data-role=cancel]");
      if (cancel) cancel.hidden = !active || message.cancel_requested;
      $("[data-role=stopping]").hidden = !(active && message.cancel_requested);
      const error = $("[data-role=error]");
      error.textContent = message.error || "";
      error.hidden = !message.error;
      if (!active && !state.ended) {
        // The run has ended: the page is drawn again for its final checkpoints, log and rollouts.
        state.ended = true;
        if (state.stream) state.stream.close();
        setTimeout(() => window.location.reload(), 1500);
      }
    }

    function receive(message) {
      if (message.type === "status") { setStatus(message); return; }
      if (message.type !== "metric" || message.line <= state.lastLine) return;
      state.lastLine = message.line;
      if (message.kind === "step") {
        append(message.step, message.values);
        const empty = document.querySelector("[data-role=no-metrics]");
        if (empty) empty.hidden = true;
        const progress = $("[data-role=progress]");
        if (message.step > progress.value) {
          progress.value = message.step;
          $("[data-role=step]").textContent = String(message.step);
        }
        redraw();
      }
    }

    const connection = (text) => { $("[data-role=connection]").textContent = text; };
    function connect() {
      state.stream = window.resumingSocket({
        path: live.ws,
        after: () => state.lastLine,
        receive,
        ended: () => state.ended,
        status: connection,
      });
    }

    draw();
    if (live.active) connect();
  }

  const root = document.getElementById("job-live");
  const data = document.getElementById("training-live");
  if (root && data) liveJob(root, JSON.parse(data.textContent));
  drawFigures();
  toLogEnd();
})();
