"""GRPO against its random-reward control, from one SFT checkpoint (quest.training, quest.loop)

    .venv/bin/python benchmarks/rl_control.py --loop DIR --corpus CORPUS [--out OUT]
        [--steps N] [--tasks 40] [--json FILE]

DIR is a recipe loop (`python -m quest loop`) whose sft stage has finished: its config, train
tasks, RL rows and SFT model are read from there, never changed. Two GRPO runs start from that
SFT model with the loop's GRPO parameters, seed, RL rows, rollout budgets and the same number of
steps (--steps, default the loop's grpo.max_steps): `grpo.reward: rubric` (OUT/real) and
`grpo.reward: shuffled` (OUT/control), whose rewards are permuted within each step, keeping
their mean and spread. A random reward also raises scores (the "spurious rewards" result), so
the gain that counts is the real run's over the control's.

Then SFT, real and control are run greedy, with the loop's evaluation budgets, on the same
practised tasks: the first --tasks train tasks (by id) that both runs rolled out on. Printed,
with paired 95% bootstrap intervals over tasks: real - SFT, control - SFT, and real - control.
Each run's true mean rollout reward per step is printed too (the control logs its true reward).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RUNS = ("real", "control")
REWARDS = {"real": "rubric", "control": "shuffled"}


def main() -> int:
    args = _arguments()
    from quest.loop.config import read_loop_config

    loop = Path(args.loop)
    config = read_loop_config(loop)
    sft = _sft_model(loop)
    if config is None or sft is None:
        print(f"error: {loop}: not a recipe loop whose sft stage finished", file=sys.stderr)
        return 2
    out = Path(args.out or loop / "control")
    steps = args.steps or config.grpo.max_steps
    models = {"sft": str(sft)}
    for name in RUNS:
        models[name] = _train(loop, config, Path(args.corpus), out / name, sft, name, steps)
    summary = _evaluate(loop, config, Path(args.corpus), out, models, args.tasks)
    summary["curves"] = {name: _curve(out / name) for name in RUNS}
    _print(summary)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loop", required=True, metavar="DIR", help="a loop whose sft finished")
    parser.add_argument("--corpus", required=True, metavar="DIR", help="the loop's corpus")
    parser.add_argument("--out", metavar="DIR", help="where the two runs go (default DIR/control)")
    parser.add_argument("--steps", type=int, help="GRPO steps of each run (default: the loop's)")
    parser.add_argument("--tasks", type=int, default=40, help="practised tasks evaluated")
    parser.add_argument("--json", metavar="FILE", help="also write the summary here")
    return parser.parse_args()


def _sft_model(loop: Path) -> Path | None:
    state = json.loads((loop / "state.json").read_text(encoding="utf-8"))
    model = state.get("stages", {}).get("sft", {}).get("outputs", {}).get("model")
    return Path(model) if model and Path(model).is_dir() else None


def _train(
    loop: Path, config: Any, corpus: Path, out: Path, sft: Path, name: str, steps: int
) -> str:
    from quest.loop.runs import grpo_config
    from quest.training.trainers import FINAL_DIR, run_training

    base = grpo_config(loop, config, str(sft), corpus)
    params = base.grpo.model_copy(update={"reward": REWARDS[name]})
    run = base.model_copy(
        update={"output_dir": str(out), "max_steps": max(1, steps), "grpo": params}
    )
    if not (out / FINAL_DIR / "config.json").is_file():
        started = time.monotonic()
        print(f"{name}: {steps} GRPO steps, grpo.reward {REWARDS[name]} -> {out}", flush=True)
        run_training(run)
        print(f"{name}: done in {time.monotonic() - started:.0f} s", flush=True)
    return str(out / FINAL_DIR)


def _evaluate(
    loop: Path, config: Any, corpus: Path, out: Path, models: dict[str, str], limit: int
) -> dict[str, Any]:
    from quest.corpus.store import CorpusStore
    from quest.loop.runs import Evaluation, practised_tasks
    from quest.tools.offline import offline_toolbox
    from quest.training.evaluate import TaskScore, paired_difference
    from quest.training.trainers import ROLLOUTS

    tasks = practised_tasks(loop, [out / name / ROLLOUTS for name in RUNS], limit)
    if not tasks:
        raise SystemExit("error: the two runs rolled out on no common train task")
    (out / "eval").mkdir(parents=True, exist_ok=True)
    run = Evaluation(out, config, offline_toolbox(corpus), CorpusStore(corpus), print)
    scores: dict[str, list[TaskScore]] = {}
    means: dict[str, Any] = {}
    for name, model in models.items():
        means[name] = run(name, model, tasks, ".practised")
        report = json.loads(Path(means[name]["file"]).read_text(encoding="utf-8"))
        scores[name] = [TaskScore(**score) for score in report["scores"]]
    pairs = (("real", "sft"), ("control", "sft"), ("real", "control"))
    return {
        "tasks": len(tasks),
        "models": means,
        "differences": {
            f"{a}-{b}": paired_difference(scores[a], scores[b], seed=config.seed) for a, b in pairs
        },
    }


def _curve(run: Path) -> list[float]:
    """The run's true mean reward per step (from its rollouts file)."""
    from collections import defaultdict

    from quest.training.trainers import ROLLOUTS

    steps: dict[int, list[float]] = defaultdict(list)
    for line in (run / ROLLOUTS).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("reward") is not None:
            steps[int(row["step"])].append(float(row["reward"]))
    return [round(sum(v) / len(v), 3) for _, v in sorted(steps.items())]


def _print(summary: dict[str, Any]) -> None:
    print(f"\npractised tasks (train tasks both runs rolled out on): {summary['tasks']}")
    print(f"{'model':10} {'n':>4} {'mean':>7}")
    for name, m in summary["models"].items():
        print(f"{name:10} {m['n']:>4} {m['mean'] if m['mean'] is not None else '-':>7}")
    print(f"\n{'difference':16} {'n':>4} {'mean':>7}  95% CI")
    for pair, d in summary["differences"].items():
        ci = d["ci95"]
        shown = f"[{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else "-"
        mean = f"{d['mean']:+.3f}" if d["mean"] is not None else "-"
        print(f"{pair:16} {d['n']:>4} {mean:>7}  {shown}")
    for name, curve in summary["curves"].items():
        print(f"{name} true reward per step: {curve}")
    real = summary["differences"]["real-control"]
    above = bool(real["ci95"] and real["ci95"][0] > 0)
    print(f"\nreal - control interval above 0: {'yes' if above else 'no'}")


if __name__ == "__main__":
    raise SystemExit(main())
