// The live session page: one renderer for events arriving over the websocket and for a replay
// of a finished session. Everything is written with textContent, never innerHTML: event payloads
// carry web text and model output. The one exception is a report's `html`, which the server
// renders from Markdown with raw HTML escaped and only safe links kept (apps/live/report.py).
// The session page holds one session, the compare page two: each is mounted on its own.
(function () {
  "use strict";

  document.querySelectorAll("[data-live-session]").forEach(mount);

  function mount(root) {
    const $ = (selector) => root.querySelector(selector);
    const el = (tag, cls, text) => {
      const node = document.createElement(tag);
      if (cls) node.className = cls;
      if (text !== undefined && text !== null) node.textContent = String(text);
      return node;
    };
    const TERMINAL = new Set(["finished", "stopped", "failed", "stalled"]);
    const state = { lastSeq: 0, events: [], sources: new Map(), seen: new Map(), stream: null, ended: false, replaying: false };
    // What the run has used so far, counted from its events; the `finished` event's own usage
    // replaces it at the end.
    const running = { turns: 0, tool_calls: 0, condensations: 0 };

    function docLink(url, label) {
      const a = el("a", "chip", label);
      a.href = root.dataset.doc + "?url=" + encodeURIComponent(url);
      a.title = url + " (opens in a new tab; the session keeps running here)";
      a.target = "_blank";
      a.rel = "noopener";
      return a;
    }

    function setStatus(status) {
      if (state.replaying) return; // a replay redraws the story, not the session's status
      const badge = $("[data-testid=status]");
      badge.textContent = status;
      badge.className = "status status-" + status;
      root.dataset.status = status;
      const stop = $(".stop-form");
      if (stop && TERMINAL.has(status)) stop.hidden = true;
    }

    function timeline(type, title, body) {
      const item = el("li", "ev ev-" + type);
      item.append(el("span", "ev-type", type.replace("_", " ")), el("span", "ev-title", title));
      if (body) {
        const details = el("details");
        details.append(el("summary", null, "show"), el("pre", null, body));
        item.append(details);
      }
      $("[data-testid=timeline]").append(item);
    }

    function fillList(list, items, render) {
      list.replaceChildren();
      if (!items || !items.length) list.append(el("li", "muted empty", "nothing yet"));
      for (const item of items || []) list.append(render(item));
    }

    function fact(item) {
      const li = el("li", null, item.claim);
      for (const url of item.sources || []) li.append(" ", docLink(url, "source"));
      if (item.need) li.append(el("div", "need", "next: " + item.need));
      if (item.reason) li.title = item.reason;
      return li;
    }

    // Contradicted and open items show why in the page, not only in a tooltip: a conflict's
    // reason names the other values and their sources, each source a chip with its title rather
    // than a bare URL.
    const URL_IN_TEXT = /https?:\/\/[^\s,;()]+/g;

    function sourceName(url) {
      const title = state.sources.get(url) || state.seen.get(url);
      if (title) return title;
      try {
        return new URL(url).hostname.replace(/^www\./, "");
      } catch (error) {
        return url;
      }
    }

    function reasonLine(text) {
      const line = el("div", "why");
      let last = 0;
      for (const match of text.matchAll(URL_IN_TEXT)) {
        line.append(text.slice(last, match.index), docLink(match[0], sourceName(match[0])));
        last = match.index + match[0].length;
      }
      line.append(text.slice(last));
      return line;
    }

    function flagged(item) {
      const li = fact(item);
      if (item.reason) li.append(reasonLine(item.reason));
      return li;
    }

    function renderState(dr) {
      const info = (dr && dr.information_state) || {};
      fillList($(".board .trusted"), info.trusted, fact);
      fillList($(".board .untrusted"), info.untrusted, flagged);
      fillList($(".board .uncertain"), info.uncertain, flagged);
    }

    // Pages the agent visited, apart from the results its searches listed (which it may never
    // have opened): both shown, labelled.
    function addSources(list, read) {
      const ul = $(read ? "[data-testid=sources]" : "[data-testid=seen]");
      const known = read ? state.sources : state.seen;
      for (const source of list || []) {
        if (!source.url || known.has(source.url)) continue;
        if (!known.size) ul.replaceChildren();
        known.set(source.url, source.title);
        const li = el("li");
        li.append(docLink(source.url, source.title || source.url));
        ul.append(li);
      }
      if (!read) $("[data-testid=seen-count]").textContent = "(" + known.size + ")";
    }

    function renderReport(payload) {
      const box = $("[data-testid=report]");
      box.classList.remove("muted");
      if (typeof payload.html === "string") box.innerHTML = payload.html;
      else box.replaceChildren(el("p", "plain", payload.text || ""));
      if (payload.partial || payload.forced) {
        box.prepend(el("p", "tag", payload.partial ? "partial report" : "forced final answer"));
      }
    }

    // Progress between events: the session's elapsed time and, for an llm policy, what the model
    // is doing. Progress messages carry no seq: they are not stored and not part of a replay.
    // A page opened on an ended session shows no progress line, its replay neither.
    const clock = {
      live: !TERMINAL.has(root.dataset.status),
      started: Date.parse(root.dataset.started || "") || null,
      turnStarted: null,
      timer: null,
    };

    function minutes(ms) {
      const s = Math.max(0, Math.floor(ms / 1000));
      return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    }

    function tick() {
      const elapsed = $("[data-testid=elapsed]");
      if (elapsed && clock.started) elapsed.textContent = minutes(Date.now() - clock.started);
      const turn = $("[data-testid=turn-elapsed]");
      if (turn && clock.turnStarted) turn.textContent = minutes(Date.now() - clock.turnStarted);
    }

    function startClock(startedAt) {
      if (!clock.live) return;
      if (!clock.started) clock.started = startedAt ? Date.parse(startedAt) || Date.now() : Date.now();
      $("[data-testid=progress]").hidden = false;
      if (!clock.timer) clock.timer = setInterval(tick, 1000);
      tick();
    }

    function renderProgress(p) {
      if (state.ended || !clock.live) return;
      startClock(null);
      const activity = $("[data-testid=activity]");
      if (p.phase === "loading" || p.phase === "loaded") {
        activity.textContent = p.phase === "loading"
          ? "loading the model " + (p.model || "") + " into the worker (its first use there takes a while)…"
          : "model " + (p.model || "") + " loaded · waiting for its first turn…";
        tick();
        return;
      }
      const generating = p.phase === "generating";
      root.classList.toggle("generating", generating);
      clock.turnStarted = generating ? Date.now() - 1000 * Number(p.turn_s || 0) : null;
      if (generating) {
        const since = el("span");
        since.dataset.testid = "turn-elapsed";
        activity.replaceChildren("model generating · turn " + p.turn + " · " + p.tokens + " tokens so far · ", since);
      } else {
        activity.replaceChildren("turn " + p.turn + " written (" + p.tokens + " tokens)");
      }
      const tokens = $("[data-testid=tokens]");
      if (tokens) tokens.textContent = String(p.total_tokens);
      tick();
    }

    // A run with no model to watch (scripted) says what it is doing from its events: the first one
    // means a worker picked it up. A replay or an ended run leaves the line alone.
    function activity(text) {
      if (state.replaying || state.ended || !clock.live) return;
      $("[data-testid=activity]").textContent = text;
    }

    function stepSeen(p, type) {
      if (p.turn) running.turns = Math.max(running.turns, Number(p.turn));
      if (type === "tool_call") running.tool_calls += 1;
      if (type === "state" && !p.final) running.condensations += 1;
      renderUsage(running);
      if (p.turn && root.dataset.policy !== "llm") activity("running: turn " + p.turn);
    }

    function endedText(usage) {
      if (!usage) return "ended";
      if (usage.status === "stopped" || usage.status === "failed") return usage.status;
      return "done";
    }

    function stopClock(usage) {
      if (clock.timer) clearInterval(clock.timer);
      clock.timer = null;
      clock.turnStarted = null;
      root.classList.remove("generating");
      const box = $("[data-testid=progress]");
      if (state.replaying || !clock.live) return;
      $("[data-testid=activity]").textContent = endedText(usage);
      if (usage && usage.elapsed_s !== undefined) $("[data-testid=elapsed]").textContent = minutes(1000 * usage.elapsed_s);
      const tokens = $("[data-testid=tokens]");
      if (tokens && usage && usage.completion_tokens !== undefined) tokens.textContent = String(usage.completion_tokens);
    }

    // A title cut to `n` characters says so (the full text is in the item's details).
    function clip(text, n) {
      return text.length > n ? text.slice(0, n - 1).trimEnd() + "…" : text;
    }

    // A node that a check which could not run leaves open (`undecided`, with its bracket on an
    // internal node) reads "undecided lo–hi" in grey, as on the task page: never a failed 0.
    const fixed = (x, n) => Number(x).toFixed(n);
    const bracket = (lo, hi, n) => "undecided " + fixed(lo, n) + "\u2013" + fixed(hi, n);

    // A negative criterion (points scoring, a weight below 0) is one a good answer does not meet:
    // not met is the good outcome and shown in green as "avoided"; met is the penalty, in red.
    const NEGATIVE = { fail: ["pass", "avoided"], pass: ["fail", "met: penalty"] };

    function shownState(result) {
      if (result.undecided) return "undecided";
      return result.negative && NEGATIVE[result.status] ? NEGATIVE[result.status][0] : result.status;
    }

    function badgeText(result, isScore) {
      if (!isScore && !result.undecided && result.negative && NEGATIVE[result.status]) {
        return NEGATIVE[result.status][1];
      }
      if (!isScore) return result.undecided ? "undecided" : result.status;
      if (result.undecided && result.upper !== undefined) return bracket(result.score, result.upper, 2);
      return fixed(result.score, 2);
    }

    function badgeTitle(result, isScore) {
      if (result.negative && !isScore && !result.undecided) {
        return "a negative criterion: a good answer does not meet it";
      }
      if (!result.undecided) return "";
      if (isScore) return "some checks below could not decide: the score lies between these bounds";
      return "the check could not decide (" + result.status + "): it counts neither as passed nor as failed";
    }

    function renderVerdict(payload) {
      for (const [id, result] of Object.entries(payload.nodes || {})) {
        const node = root.querySelector('[data-node="' + CSS.escape(id) + '"]');
        if (!node) continue;
        node.className = node.className.replace(/\bst-\S+/g, "").trim() + " st-" + shownState(result);
        let badge = node.querySelector(":scope > .line .verdict, :scope > details > summary .score");
        if (!badge) {
          const line = node.querySelector(":scope > .line, :scope > details > summary");
          badge = el("span", line && line.tagName === "SUMMARY" ? "score" : "verdict");
          if (line) line.prepend(badge);
        }
        const isScore = badge.classList.contains("score");
        badge.textContent = badgeText(result, isScore);
        const title = badgeTitle(result, isScore);
        if (title) badge.title = title;
        else badge.removeAttribute("title");
      }
    }

    function renderScore(payload) {
      const line = $("[data-testid=score]");
      if (!line) return;
      const open = !payload.complete && payload.lower !== payload.upper;
      line.classList.toggle("undecided-value", open);
      line.classList.toggle("nowrap", open); // "0.50–1.00" kept on one line at 390 px
      line.title = open ? "some checks could not decide: the score lies between these bounds" : "";
      const score = open ? bracket(payload.lower, payload.upper, 2) : fixed(payload.root_score, 2);
      line.textContent = (payload.final ? "final " : "so far ") + score;
      if (payload.reward) renderReward(payload.reward);
    }

    // The RL reward as its formula with the numbers in (QUEST-SPEC §2): R = 0.75·base + 0.25·v·base,
    // v the share of citations that hold. A verifier that could not decide gives no reward: the
    // box says "undecided" with the score's bracket, as the task page does, never a 0.
    function renderReward(r) {
      const box = $("[data-testid=reward]");
      box.hidden = false;
      const f = (x) => fixed(x, 3);
      const heading = el("strong", null, "Reward");
      box.replaceChildren(heading);
      if (r.dropped || r.reward === undefined || r.reward === null) {
        const value = el("span", "undecided-value", "undecided");
        value.dataset.testid = "reward-undecided";
        heading.append(" ", value);
        if (r.root_score_lower !== undefined && r.root_score_upper !== undefined) {
          const base = el("div", null, "rubric score (base): ");
          base.append(el("span", "undecided-value", "undecided"),
            ": between " + f(r.root_score_lower) + " and " + f(r.root_score_upper));
          box.append(base);
        }
        box.append(el("div", "undecided-note", "The verifier could not decide" + (r.reason ? ": " + r.reason : "") +
          ". A task like this is dropped from training, not scored 0."));
        return;
      }
      const base = Number(r.base), clipped = Math.min(1, Math.max(0, base)), v = Number(r.valid_rate || 0);
      box.append(
        el("div", "formula", "R = 0.75 × base + 0.25 × citations valid × base"),
        el("div", "formula", "= 0.75 × " + f(base) + " + 0.25 × " + f(v) + " × " + f(clipped) + " = " + f(r.reward)),
      );
      if (Array.isArray(r.leaves)) box.append(el("div", "muted small", r.leaves[0] + " of " + r.leaves[1] + " leaves passed"));
      if (r.reason) box.append(el("div", "muted small", r.reason));
      if (Array.isArray(r.invalid) && r.invalid.length) box.append(invalidCitations(r.invalid));
    }

    // Which citations did not hold and why, beside the share that did.
    function invalidCitations(invalid) {
      const wrap = el("div", "small");
      wrap.dataset.testid = "invalid-citations";
      wrap.append(el("div", null, invalid.length + " citation" + (invalid.length === 1 ? "" : "s") + " did not hold:"));
      const list = el("ul");
      for (const c of invalid) {
        const li = el("li");
        if (c.url) li.append(docLink(c.url, clip(c.url, 48)), " ");  // a long URL fits a phone; its title has it whole
        const why = c.label === "unknown" ? "could not be checked" : "not supported";
        li.append(el("span", "muted", why + (c.reason ? ": " + c.reason : "")));
        list.append(li);
      }
      wrap.append(list);
      return wrap;
    }

    function renderUsage(payload) {
      const dl = $("[data-testid=usage]");
      dl.replaceChildren();
      for (const key of ["turns", "tool_calls", "condensations", "prompt_tokens", "completion_tokens", "elapsed_s"]) {
        if (payload[key] === undefined) continue;
        const div = el("div");
        div.append(el("dt", null, key.replaceAll("_", " ")), el("dd", null, payload[key]));
        dl.append(div);
      }
    }

    // Why the run ended without its research done (the model broke the protocol, or failed),
    // with the last invalid turn's text: as text, since it is model output.
    function renderFailure(failure) {
      const box = $("[data-testid=failure]");
      if (!box || !failure) return;
      $("[data-testid=failure-reason]").textContent = failure.reason || "";
      $("[data-testid=last-invalid]").textContent = failure.last_invalid_turn || "";
      box.querySelector(".failure-turn").hidden = !failure.last_invalid_turn;
      box.hidden = false;
    }

    const RENDER = {
      started: (p, event) => {
        setStatus("running");
        timeline("started", p.policy || "", null);
        if (!state.replaying) {
          startClock(event.created_at);
          activity(root.dataset.policy === "llm" ? "waiting for the model…" : "running…");
        }
      },
      thought: (p) => {
        timeline("thought", clip(p.text || "", 160), p.text);
        stepSeen(p, "thought");
      },
      tool_call: (p) => {
        timeline("tool_call", p.name + " " + JSON.stringify(p.arguments || {}).slice(0, 200), null);
        stepSeen(p, "tool_call");
      },
      tool_result: (p) => {
        timeline("tool_result", (p.ok ? "" : "error: ") + (p.name || ""), p.text);
        addSources(p.sources, p.name === "visit");
      },
      reminder: (p) => timeline("reminder", p.problem || "invalid turn",
        (p.reply ? "The policy wrote:\n" + p.reply + "\n\n" : "") + p.text),
      state: (p) => {
        renderState(p.state);
        stepSeen(p, "state");
        const what = p.final ? "final research state" : "condensed";
        timeline("state", what + (p.recovered ? " (recovered from a bad condenser reply)" : ""), null);
      },
      answer: (p) => { renderReport(p); timeline("answer", p.partial ? "partial report" : "final answer", null); },
      verdict: renderVerdict,
      score: renderScore,
      error: (p) => timeline("error", p.message || "error", null),
      gap: (p) => timeline("gap", "events " + p.from + "–" + p.to + " were pruned and cannot be shown", null),
      finished: (p) => {
        // A run stopped by a person says so rather than "finished".
        setStatus(p.status === "stopped" ? "stopped" : p.session_status || (p.status === "failed" ? "failed" : "finished"));
        stopClock(p);
        renderUsage(p);
        renderFailure(p.failure);
        timeline("finished", p.status || "", null);
      },
    };

    function apply(event) {
      const render = RENDER[event.type];
      if (render) render(event.payload || {}, event);
    }

    function receive(event) {
      if (event.type === "progress") { renderProgress(event.payload || {}); return; }
      if (event.seq <= state.lastSeq) return; // a duplicate after a reconnect
      state.lastSeq = event.seq;
      state.events.push(event);
      apply(event);
      root.dataset.lastSeq = String(state.lastSeq);
      if (event.type === "finished" || (event.type === "error" && event.payload && event.payload.stalled)) {
        state.ended = true;
        if (event.type === "error") { setStatus("stalled"); stopClock(null); }
        enableReplay();
        if (state.stream) state.stream.close();
      }
    }

    function connection(text) {
      $("[data-testid=connection]").textContent = text;
    }

    function connect() {
      state.stream = window.resumingSocket({
        path: root.dataset.ws,
        after: () => state.lastSeq,
        receive,
        ended: () => state.ended,
        status: connection,
      });
    }

    function resetView() {
      $("[data-testid=timeline]").replaceChildren();
      Object.assign(running, { turns: 0, tool_calls: 0, condensations: 0 });
      $("[data-testid=usage]").replaceChildren();
      renderState(null);
      state.sources.clear();
      state.seen.clear();
      $("[data-testid=sources]").replaceChildren(el("li", "muted", "none yet"));
      $("[data-testid=seen]").replaceChildren(el("li", "muted", "none yet"));
      $("[data-testid=seen-count]").textContent = "(0)";
      const report = $("[data-testid=report]");
      report.replaceChildren(el("span", null, "No answer yet."));
      report.classList.add("muted");
      root.querySelectorAll("[data-node]").forEach((node) => {
        node.className = node.className.replace(/\bst-\S+/g, "").trim();
        node.querySelectorAll(":scope > .line .verdict, :scope > details > summary .score").forEach((b) => b.remove());
      });
      const score = $("[data-testid=score]");
      if (score) { score.textContent = ""; score.classList.remove("undecided-value", "nowrap"); score.title = ""; }
      const reward = $("[data-testid=reward]");
      if (reward) reward.hidden = true;
      const failure = $("[data-testid=failure]");
      if (failure) failure.hidden = true;
    }

    function enableReplay() {
      const label = $(".scrub");
      const range = label.querySelector("input");
      const output = label.querySelector("output");
      range.max = String(state.events.length);
      range.value = range.max;
      output.textContent = range.value + " / " + range.max;
      label.hidden = false;
      range.oninput = () => {
        resetView();
        state.replaying = true;
        try {
          state.events.slice(0, Number(range.value)).forEach(apply);
        } finally {
          state.replaying = false;
        }
        output.textContent = range.value + " / " + range.max;
      };
    }

    if (clock.started && clock.live) startClock(null);
    connect();
  }
})();
