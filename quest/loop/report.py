"""The loop's report: DIR/report.json (machine-readable), DIR/report.md (for people) and
DIR/report.html (plotly: training curves, each model's reward distribution, per-class means).

report.json: {"models": {"base": {mean, ci95, n, ...}, "sft": {...}, "grpo": {...}},
"difference": {the best trained model minus base: mean, ci95, n, wins, losses, ties},
"differences": {every pair}, "grpo_vs_sft": {mean, ci95, n, ...}, "split": {train, heldout,
dropped_mixed, out_of_family, ...}, "slices": {"heldout": {tasks, models, differences},
"out_of_family": {...}, "practised": {...}}, "practised": {"grpo_vs_sft": the paired
difference on the train tasks GRPO rolled out on}, "stages": {each stage's status, seconds,
outputs}, "config": ...}.
The top-level models and differences are the entity-disjoint held-out slice's.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from quest.loop.config import CONFIG_FILE, LoopConfig, render_loop_config
from quest.loop.state import LoopState
from quest.training.evaluate import TaskScore, paired_difference

PAIRS = (("sft", "base"), ("grpo", "base"), ("grpo", "sft"))
SLICES = {
    "heldout": "entity-disjoint held-out tasks",
    "out_of_family": "out-of-family tasks (a family never trained on)",
    "practised": "train tasks GRPO rolled out on (does the optimisation work where it practised?)",
}
PLOTLY_BUNDLE = "plotly.min.js"


def build_report(directory: Path, config: LoopConfig, state: LoopState) -> dict[str, Any]:
    slices = {name: _slice(state, name, config.seed) for name in SLICES}
    models = _evaluations(state, "heldout")
    scores = {name: _scores(m) for name, m in models.items()}
    classes = _classes(directory)
    differences = slices["heldout"]["differences"]
    best = _best(models)
    headline = None
    if best is not None and f"{best}-base" in differences:
        headline = {"model": best, "against": "base", **differences[f"{best}-base"]}
    return {
        "directory": str(directory),
        "models": {name: _summary(m) for name, m in models.items()},
        "difference": headline,
        "differences": differences,
        "grpo_vs_sft": differences.get("grpo-sft"),
        "practised": {"grpo_vs_sft": slices["practised"]["differences"].get("grpo-sft")},
        "split": _split(directory),
        "slices": slices,
        "per_class": _per_class(scores, classes),
        "bar_met": bool(headline and headline["ci95"] and headline["ci95"][0] > 0),
        "active_minutes": round(state.active_s / 60, 1),
        "costs": costs(directory, config, state),
        "budget_minutes": config.minutes,
        "stages": {name: stage.to_json() for name, stage in state.stages.items()},
        "config": config.model_dump(mode="json"),
        "config_file": str(directory / CONFIG_FILE),
    }


def write_report(directory: Path, config: LoopConfig, state: LoopState) -> dict[str, str]:
    report = build_report(directory, config, state)
    files = {
        "json": directory / "report.json",
        "md": directory / "report.md",
        "html": directory / "report.html",
    }
    files["json"].write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    files["md"].write_text(markdown(report, config), encoding="utf-8")
    files["html"].write_text(html(directory, report, state), encoding="utf-8")
    return {kind: str(path) for kind, path in files.items()}


def costs(directory: Path, config: LoopConfig, state: LoopState) -> dict[str, Any]:
    """What each stage cost on this machine, per unit, and the minutes the whole config would
    take at those rates: what to ask for when the budget cut a stage short."""
    stages = state.stages
    synth = stages["synth"].outputs.get("proposals") or 0
    rollouts = stages["collect"].outputs.get("rollouts") or 0
    evaluated = len(stages["evaluate"].outputs.get("models", {}))
    per_step = {
        kind: _mean(_series(directory / "runs" / kind / "metrics.jsonl", "step_s")[1])
        for kind in ("sft", "grpo")
    }
    out: dict[str, Any] = {
        "synth_s_per_proposal": _ratio(stages["synth"].seconds, synth),
        "collect_s_per_rollout": _ratio(stages["collect"].seconds, rollouts),
        "sft_s_per_step": per_step["sft"],
        "grpo_s_per_step": per_step["grpo"],
        "eval_s_per_model": _ratio(stages["evaluate"].seconds, evaluated),
    }
    planned = {"sft": config.sft.max_steps, "grpo": config.grpo.max_steps}
    full = stages["synth"].seconds + stages["gate"].seconds + stages["collect"].seconds
    for kind, steps in planned.items():
        full += (per_step[kind] or 0.0) * steps
    full += (out["eval_s_per_model"] or 0.0) * 3
    out["minutes_for_the_whole_config"] = round(full / 60, 1)
    return out


def _mean(values: list[float]) -> float | None:
    return round(math.fsum(values) / len(values), 2) if values else None


def _ratio(seconds: float, count: int) -> float | None:
    return round(seconds / count, 2) if count else None


def _slice(state: LoopState, name: str, seed: int) -> dict[str, Any]:
    """One slice's models and their paired differences over the slice's tasks."""
    outputs = _slice_outputs(state, name)
    models = _evaluations(state, name)
    scores = {model: _scores(m) for model, m in models.items()}
    return {
        "description": SLICES[name],
        "slice": outputs.get("slice"),  # the family or class, for the out-of-family slice
        "tasks": outputs.get("tasks"),
        "models": {model: _summary(m) for model, m in models.items()},
        "differences": {
            f"{a}-{b}": paired_difference(scores[a], scores[b], seed=seed)
            for a, b in PAIRS
            if a in scores and b in scores
        },
    }


def _slice_outputs(state: LoopState, name: str) -> dict[str, Any]:
    """The evaluate stage's outputs for one slice: the held-out slice's are at its top."""
    outputs = state.stages["evaluate"].outputs
    found: dict[str, Any] = outputs if name == "heldout" else outputs.get(name, {})
    return found


def _evaluations(state: LoopState, slice_name: str = "heldout") -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for name, item in _slice_outputs(state, slice_name).get("models", {}).items():
        path = Path(item["file"])
        if path.is_file():
            found[name] = json.loads(path.read_text(encoding="utf-8"))
    return found


def _scores(model: dict[str, Any]) -> list[TaskScore]:
    return [TaskScore(**score) for score in model.get("scores", [])]


def _summary(model: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in model.items() if key != "scores"}


def _best(models: dict[str, dict[str, Any]]) -> str | None:
    trained = [n for n in ("grpo", "sft") if n in models and models[n].get("mean") is not None]
    if not trained:
        return None
    return max(trained, key=lambda n: (models[n]["mean"], n == "grpo"))


def _split(directory: Path) -> dict[str, Any] | None:
    """The split's counts (train, heldout, dropped_mixed, out_of_family, its method)."""
    path = directory / "tasks" / "split.json"
    if not path.is_file():
        return None
    counts: dict[str, Any] | None = json.loads(path.read_text(encoding="utf-8")).get("counts")
    return counts


def _classes(directory: Path) -> dict[str, str]:
    path = directory / "tasks" / "split.json"
    if not path.is_file():
        return {}
    classes: dict[str, str] = json.loads(path.read_text(encoding="utf-8")).get("classes", {})
    return classes


def _per_class(
    scores: dict[str, list[TaskScore]], classes: dict[str, str]
) -> dict[str, dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for name, items in scores.items():
        groups: dict[str, list[float]] = defaultdict(list)
        for score in items:
            if score.reward is not None:
                groups[classes.get(score.task_id) or "?"].append(score.reward)
        table[name] = {
            c: {"n": len(v), "mean": math.fsum(v) / len(v)} for c, v in sorted(groups.items())
        }
    return table


def _number(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _interval(ci: Any) -> str:
    return "-" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def markdown(report: dict[str, Any], config: LoopConfig) -> str:
    lines = [
        "# questweb recipe loop",
        "",
        f"Directory `{report['directory']}`; {report['active_minutes']} active minutes of a "
        f"{report['budget_minutes']:g}-minute budget.",
        "",
        "## Held-out results",
        "",
        "| model | n | mean reward | 95% CI | answer rate | valid turns | citation validity |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, m in report["models"].items():
        lines.append(
            f"| {name} (`{m.get('model', '')}`) | {m.get('n')} | {_number(m.get('mean'))} | "
            f"{_interval(m.get('ci95'))} | {_number(m.get('answer_rate'), 2)} | "
            f"{_number(m.get('valid_turn_rate'), 2)} | {_number(m.get('citation_validity'), 2)} |"
        )
    lines += ["", "## Paired differences (bootstrap over tasks)", ""]
    lines += [
        "| pair | n | mean | 95% CI | wins / losses / ties |",
        "| --- | --- | --- | --- | --- |",
    ]
    for pair, d in report["differences"].items():
        lines.append(
            f"| {pair} | {d['n']} | {_number(d['mean'])} | {_interval(d['ci95'])} | "
            f"{d['wins']} / {d['losses']} / {d['ties']} |"
        )
    head = report["difference"]
    if head is None:
        verdict = "No trained model was evaluated against the base yet."
    elif report["bar_met"]:
        verdict = (
            f"**{head['model']} beats the base**: the 95% interval of the difference, "
            f"{_interval(head['ci95'])}, lies above 0."
        )
    else:
        verdict = (
            f"**Not shown**: the 95% interval of {head['model']} - base, "
            f"{_interval(head['ci95'])}, does not lie above 0."
        )
    lines += ["", verdict, "", *_slice_lines(report), "## Stages", ""]
    lines += ["| stage | status | seconds | runs | note |", "| --- | --- | --- | --- | --- |"]
    for name, stage in report["stages"].items():
        if name == "report":
            continue  # this file: it is being written
        lines.append(
            f"| {name} | {stage['status']} | {stage['seconds']} | {stage['runs']} | "
            f"{stage['note']} |"
        )
    spent = report["costs"]
    lines += [
        "",
        "Costs on this machine: "
        + ", ".join(f"{key.replace('_', ' ')} {value}" for key, value in spent.items())
        + ".",
        "",
        "## Artefacts",
        "",
    ]
    for name, stage in report["stages"].items():
        for label, path in stage["outputs"].get("files", {}).items():
            lines.append(f"- {name} / {label}: `{path}`")
        if "model" in stage["outputs"]:
            lines.append(f"- {name} / model: `{stage['outputs']['model']}`")
    lines += ["", "## Config", "", "```yaml", render_loop_config(config).rstrip(), "```", ""]
    return "\n".join(lines)


def _slice_lines(report: dict[str, Any]) -> list[str]:
    """The split's counts, then each slice's models and paired differences."""
    split = report.get("split")
    lines = ["## Slices", ""]
    if split:
        lines += [
            f"Split ({split['method']}): {split['train']} train, {split['heldout']} held out "
            f"sharing no entity with a train task, {split['dropped_mixed']} dropped (their "
            f"entities on both sides), {split['out_of_family']} out of family "
            f"(`{split['out_of_family_slice']}`, never trained on).",
            "",
        ]
    for name, slice_ in report["slices"].items():
        lines += [
            f"### {name}: {slice_['description']}",
            "",
            "| model or difference | n | mean reward | 95% CI |",
            "| --- | --- | --- | --- |",
        ]
        for model, m in slice_["models"].items():
            mean, ci = _number(m.get("mean")), _interval(m.get("ci95"))
            lines.append(f"| {model} | {m.get('n')} | {mean} | {ci} |")
        for pair, d in slice_["differences"].items():
            lines.append(f"| {pair} | {d['n']} | {_number(d['mean'])} | {_interval(d['ci95'])} |")
        lines.append("")
    return lines


def html(directory: Path, report: dict[str, Any], state: LoopState) -> str:
    """One self-contained page: plotly is inlined, so it opens offline from any folder."""
    import plotly.graph_objects as go
    from plotly.io import to_html
    from plotly.subplots import make_subplots

    figures: list[Any] = []
    curves = make_subplots(rows=1, cols=2, subplot_titles=("SFT loss", "GRPO reward"))
    for col, (stage, key) in enumerate((("sft", "loss"), ("grpo", "reward")), start=1):
        steps, values = _series(directory / "runs" / stage / "metrics.jsonl", key)
        curves.add_trace(go.Scatter(x=steps, y=values, mode="lines+markers", name=stage), 1, col)
    curves.update_layout(title="Training curves", height=380)
    figures.append(curves)
    distribution = go.Figure()
    for slice_name in SLICES:
        for name, model in _evaluations(state, slice_name).items():
            rewards = [s["reward"] for s in model.get("scores", []) if s["reward"] is not None]
            label = name if slice_name == "heldout" else f"{name} ({slice_name})"
            distribution.add_trace(go.Box(y=rewards, name=label, boxpoints="all", jitter=0.4))
    distribution.update_layout(title="Held-out reward per task", yaxis_title="reward", height=380)
    figures.append(distribution)
    per_class = go.Figure()
    for name, table in report["per_class"].items():
        names = list(table)
        per_class.add_trace(go.Bar(x=names, y=[table[c]["mean"] for c in names], name=name))
    per_class.update_layout(title="Mean held-out reward per class", barmode="group", height=380)
    figures.append(per_class)
    parts = [
        to_html(fig, full_html=False, include_plotlyjs="inline" if i == 0 else False)
        for i, fig in enumerate(figures)
    ]
    head = report["difference"]
    summary = "no trained model evaluated yet"
    if head is not None:
        summary = f"{head['model']} - base: {_number(head['mean'])} {_interval(head['ci95'])}"
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>questweb recipe loop</title>"
        "</head><body style='font-family:sans-serif;max-width:1100px;margin:auto'>"
        f"<h1>questweb recipe loop</h1><p>{summary}</p>{''.join(parts)}</body></html>"
    )


def _series(path: Path, key: str) -> tuple[list[int], list[float]]:
    steps: list[int] = []
    values: list[float] = []
    if not path.is_file():
        return steps, values
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("kind") == "step" and isinstance(record.get(key), int | float):
            steps.append(int(record["step"]))
            values.append(float(record[key]))
    return steps, values
