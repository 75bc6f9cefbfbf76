"""Seconds per GRPO step through questweb against TRL called directly (quest.training)

    .venv/bin/python benchmarks/train_bench.py [--steps 3] [--model smollm2|tiny] [--json OUT]

Data: a corpus of GeoNames and countryinfo pages from the packages with a BM25 index, and an RL
set (quest.training.rl, TRL layout) of 8 tasks from the kg synthesizer, each with its canonical
rubric tree; the reward is the rubric reward with citations checked against that corpus. The
model is SmolLM2-135M-Instruct on CPU (`--model tiny`: the 2-layer test model, for a quick run).

Runs, each in its own process, one after the other, on the same GRPO settings: 2 prompts a step,
a group of 2, lr 1e-6, clip 0.2/0.28, no KL, temperature 1.0, DAPO loss, max_completion_length
96, seed 0, --steps + 1 optimiser steps:
- A, questweb: `python -m quest train CONFIG.yaml`, the user's path. Rollouts are multi-turn
  agent runs (quest.training.agent_rollouts) with the corpus tools: at most 3 turns of 32 tokens,
  a session budget of 96 tokens, tool results cut at 1,500 characters, then the forced final
  answer turn.
- A1, questweb with one turn: the same, at most 1 turn of 48 tokens and the forced final answer
  (48 more): at most 96 sampled tokens per rollout, as B, but still the agent loop.
- B, the baseline: what a user writes without questweb: GRPOTrainer with the GRPOConfig built
  from the same values, the same model and weights (loaded by quest.training.models, outside
  the timing), the same prompts and quest.rewards.rubric_reward, with TRL's own single-turn
  generation (no rollout_func, no tools), all of a step's completions in one batched generate.

B does less work per step than A: no tool calls, no second or third turn, no re-encoding of a
grown conversation, and one batched generation of all completions where the agent loop runs a
step's rollouts in threads and batches one turn of each per generate (quest.training
.agent_rollouts.BatchSampler), so a rollout's turns are sequential.
So A/B measures what questweb's multi-turn rollouts cost over a plain single-turn GRPO step, and
A1/B the agent loop's overhead at a comparable token budget (A1 still decodes twice per rollout,
its turns one after the other). The issue's goal is A/B within 10% (ratio <= 1.10).

Step time is each run's own log: A's OUTPUT_DIR/metrics.jsonl `step_s` (questweb's callback,
from the step's begin to its end), B's a callback timing the same window. The model load and
the first step (warm-up) are left out; mean and median of the remaining steps are printed. For
A and A1, the share of step time in rollouts, reward and optimisation (log-probs, loss,
backward, optimiser) comes from the same metrics. TRL's `completions/mean_length` is printed
for every run; in A it counts the tool results inside the session as well as sampled tokens.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
GOAL = 1.10
TASKS = 8
# Dynamic sampling off: bare TRL rolls out each group once, so both sides generate the same groups.
GRPO = {"num_generations": 2, "prompts_per_step": 2, "curriculum": False}
COMPLETION = 96  # max_completion_length of every run: A's and A1's session budget
AGENT = {"max_turns": 3, "max_turn_tokens": 32, "max_session_tokens": COMPLETION}
ONE_TURN = {"max_turns": 1, "max_turn_tokens": COMPLETION // 2, "max_session_tokens": COMPLETION}
TOOL_CHARS = 1_500
STEP_FILE = "steps.jsonl"


def main() -> int:
    args = _arguments()
    if args.baseline:
        return _baseline(Path(args.baseline))
    os.environ["HF_HUB_OFFLINE"] = "1"
    work = Path(tempfile.mkdtemp(prefix="train_bench_"))
    started = time.monotonic()
    corpus, dataset = _data(work)
    print(f"data: corpus and {TASKS} RL rows in {time.monotonic() - started:.1f} s ({work})")
    if args.precision:
        return _precision(work, corpus, dataset, args)
    runs = {
        "A: questweb, agent rollouts": _run_questweb(work, "a", corpus, dataset, args, AGENT),
        "A1: questweb, one turn": _run_questweb(work, "a1", corpus, dataset, args, ONE_TURN),
        "B: TRL directly": _run_baseline(work, corpus, dataset, args),
    }
    summary = _report(runs, args)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 0


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=3, help="timed steps (after one warm-up)")
    parser.add_argument("--model", default="smollm2", choices=["smollm2", "tiny"])
    parser.add_argument("--json", metavar="OUT", help="also write the summary to this file")
    parser.add_argument(
        "--precision",
        action="store_true",
        help="instead: A in fp32 against A in bf16 autocast (quest.training.precision)",
    )
    parser.add_argument("--baseline", metavar="CONFIG", help=argparse.SUPPRESS)  # run B here
    return parser.parse_args()


def _data(work: Path) -> tuple[Path, Path]:
    """The corpus (with its BM25 index) and the RL set of kg-synthesized tasks."""
    from quest.corpus import CorpusStore, corpus_write, load_countryinfo, load_geonames
    from quest.search.indexing import bm25_build
    from quest.synthesis import BatchSpec, synthesize
    from quest.training.rl import build_rl, write_rl
    from quest.training.tasks import task_from_record

    corpus = work / "corpus"
    corpus_write(corpus, [*load_geonames(), *load_countryinfo()])
    bm25_build(corpus)
    made = synthesize(BatchSpec(count=TASKS, baseline=False), pages=CorpusStore(corpus))
    tasks = [task_from_record({**c.record, "task_id": f"kg-{c.index}"}) for c in made if c.accepted]
    built = build_rl(tasks)
    dataset = work / "rl.jsonl"
    write_rl(dataset, built.rows)
    return corpus, dataset


def _config(
    out: Path,
    corpus: Path,
    dataset: Path,
    args: argparse.Namespace,
    rollout: dict[str, int],
    precision: str = "fp32",
) -> Path:
    """The run's YAML: A reads it with `python -m quest train`, B takes its GRPO values."""
    from quest.training.config import parse_config, render_yaml

    config = parse_config(
        {
            "kind": "grpo",
            "model": args.model,
            "dataset": str(dataset),
            "corpus": str(corpus),
            "output_dir": str(out),
            "max_steps": args.steps + 1,
            "save_steps": 10_000,  # no checkpoint inside the timed steps
            "precision": precision,
            "grpo": GRPO,
            "rollout": {**rollout, "max_tool_chars": TOOL_CHARS},
        }
    )
    path = out.with_suffix(".yaml")
    path.write_text(render_yaml(config), encoding="utf-8")
    return path


def _run_questweb(
    work: Path,
    name: str,
    corpus: Path,
    dataset: Path,
    args: argparse.Namespace,
    rollout: dict[str, int],
    precision: str = "fp32",
) -> dict[str, Any]:
    out = work / name
    config = _config(out, corpus, dataset, args, rollout, precision)
    seconds = _subprocess([sys.executable, "-m", "quest", "train", str(config)], out, corpus)
    steps = _records(out / "metrics.jsonl")
    return {"wall_s": seconds, "steps": steps}


def _run_baseline(
    work: Path, corpus: Path, dataset: Path, args: argparse.Namespace
) -> dict[str, Any]:
    out = work / "b"
    config = _config(out, corpus, dataset, args, ONE_TURN)  # only its GRPO values are used
    seconds = _subprocess([sys.executable, __file__, "--baseline", str(config)], out, corpus)
    return {"wall_s": seconds, "steps": _records(out / STEP_FILE)}


def _subprocess(command: list[str], out: Path, corpus: Path) -> float:
    """Runs one training process, its log in OUT.log; the wall seconds, model load included."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "QUESTWEB_CORPUS_DIR": str(corpus)}
    started = time.monotonic()
    with out.with_suffix(".log").open("w") as log:
        done = subprocess.run(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, check=False
        )
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}); see {out.with_suffix('.log')}")
    return time.monotonic() - started


def _records(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [r for r in map(json.loads, lines) if r.get("kind") == "step"]


def _baseline(config_path: Path) -> int:
    """Run B: TRL's GRPOTrainer as a user calls it, with the config's GRPO values."""
    from datasets import Dataset
    from transformers.utils import logging
    from trl import GRPOConfig, GRPOTrainer

    from quest.rewards import rubric_reward
    from quest.training.config import load_config
    from quest.training.models import load_model
    from quest.training.records import read_jsonl

    logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    config = load_config(config_path)
    params, out = config.grpo, Path(config.output_dir)
    model, tokenizer = load_model(config.model, seed=config.seed)
    rows = [row for path in config.dataset for _, row in read_jsonl(path)]
    args = GRPOConfig(
        output_dir=str(out),
        max_steps=config.max_steps,
        save_steps=config.save_steps,
        logging_steps=config.logging_steps,
        seed=config.seed,
        report_to="none",
        disable_tqdm=True,
        bf16=False,  # TRL's default; a CPU cannot
        learning_rate=params.learning_rate,
        num_generations=params.num_generations,
        per_device_train_batch_size=params.num_generations,
        gradient_accumulation_steps=params.prompts_per_step,
        epsilon=params.epsilon,
        epsilon_high=params.epsilon_high,
        beta=params.beta,
        temperature=params.temperature,
        loss_type=params.loss_type,
        max_completion_length=config.rollout.max_session_tokens,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[rubric_reward],
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
        callbacks=[_step_timer(out / STEP_FILE)],
    )
    trainer.train()
    return 0


def _step_timer(path: Path) -> Any:
    """B's log: each step's seconds over the window questweb's metrics callback times, with
    TRL's numbers of that step."""
    from transformers import TrainerCallback

    class StepTimer(TrainerCallback):  # type: ignore[misc]
        started, seconds = 0.0, 0.0

        def on_step_begin(self, args: Any, state: Any, control: Any, **_: Any) -> None:
            self.started = time.monotonic()

        def on_step_end(self, args: Any, state: Any, control: Any, **_: Any) -> None:
            self.seconds = time.monotonic() - self.started

        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **_: Any) -> None:
            if "train_runtime" in (logs or {}):
                return
            numbers = {k: v for k, v in (logs or {}).items() if isinstance(v, int | float)}
            record = {"kind": "step", "step": state.global_step, "step_s": self.seconds}
            with path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps({**record, **numbers}) + "\n")

    return StepTimer()


def _report(runs: dict[str, dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    print(f"\n== {Path(args.model).name}, {args.steps} timed steps after 1 warm-up step, CPU "
          f"({os.cpu_count()} cores)")  # fmt: skip
    summary: dict[str, Any] = {"model": Path(args.model).name, "steps": args.steps, "runs": {}}
    for label, run in runs.items():
        summary["runs"][label] = _run_summary(label, run)
    a, a1, b = (summary["runs"][label]["mean_s"] for label in runs)
    summary["ratio"] = {"A/B": a / b, "A1/B": a1 / b}
    print()
    for name, value in summary["ratio"].items():
        verdict = "met" if value <= GOAL else "NOT met"
        print(f"{name}: {value:.2f}x seconds per step (goal within 10%, <= {GOAL:.2f}: {verdict})")
    return summary


def _precision(work: Path, corpus: Path, dataset: Path, args: argparse.Namespace) -> int:
    """A (agent rollouts) in float32, then under bf16 autocast: the same seed, data and steps.
    Per step and per sampled token (TRL's completions/mean_length times the step's rollouts)."""
    runs = {
        f"A {name}": _run_questweb(work, f"a-{name}", corpus, dataset, args, AGENT, name)
        for name in ("fp32", "bf16")
    }
    print(f"\n== {Path(args.model).name}, {args.steps} timed GRPO steps after 1 warm-up, CPU "
          f"({os.cpu_count()} cores)")  # fmt: skip
    summary: dict[str, Any] = {"model": Path(args.model).name, "steps": args.steps, "runs": {}}
    rollouts = GRPO["num_generations"] * GRPO["prompts_per_step"]
    for label, run in runs.items():
        out = summary["runs"][label] = _run_summary(label, run)
        tokens = out["completion_mean_length"] * rollouts
        out["s_per_rollout_token"] = out["mean_s"] / tokens if tokens else float("nan")
        print(f"{'':<30} {out['s_per_rollout_token'] * 1000:.1f} ms per rollout token")
    fp32, bf16 = (summary["runs"][label] for label in runs)
    summary["ratio"] = {"bf16/fp32 step": bf16["mean_s"] / fp32["mean_s"]}
    print(f"\nbf16/fp32: {summary['ratio']['bf16/fp32 step']:.2f}x seconds per step")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 0


def _run_summary(label: str, run: dict[str, Any]) -> dict[str, Any]:
    timed = run["steps"][1:]  # the first step warms up
    seconds = [r["step_s"] for r in timed]
    out: dict[str, Any] = {
        "wall_s": run["wall_s"],
        "step_s": seconds,
        "mean_s": statistics.mean(seconds),
        "median_s": statistics.median(seconds),
        "completion_mean_length": _mean(timed, "completions/mean_length"),
        "reward": _mean(timed, "reward"),
    }
    print(f"{label:<30} step {out['mean_s']:6.2f} s mean, {out['median_s']:6.2f} s median "
          f"(process {run['wall_s']:.0f} s); "
          f"completion length {out['completion_mean_length']:.0f}, "
          f"reward {out['reward']:.3f}")  # fmt: skip
    if "share/rollout" in timed[0]:
        out["shares"] = {
            part: _mean(timed, f"share/{part}") for part in ("rollout", "reward", "optimisation")
        }
        out["turns"] = _mean(timed, "rollout/turns")
        out["tool_calls"] = _mean(timed, "rollout/tool_calls")
        shares = ", ".join(f"{part} {share:.1%}" for part, share in out["shares"].items())
        print(f"{'':<30} share of step time: {shares}; per rollout {out['turns']:.1f} turns, "
              f"{out['tool_calls']:.1f} tool calls")  # fmt: skip
    return out


def _mean(records: list[dict[str, Any]], key: str) -> float:
    values = [r[key] for r in records if isinstance(r.get(key), int | float)]
    return statistics.mean(values) if values else float("nan")


if __name__ == "__main__":
    sys.exit(main())
