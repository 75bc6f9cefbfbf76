"""Rollout generation with and without the kept keys and values of a session's earlier turns
(quest.training.decoding.Prefixes)

    .venv/bin/python benchmarks/rollout_bench.py [--model smollm2|tiny] [--sessions 4]
        [--turns 6] [--turn-tokens 96] [--repeats 2] [--json OUT]

What a GRPO step's rollouts and an evaluation do: concurrent agent sessions (the real loop, the
corpus tools, QUEST's protocol) whose turns are decoded together by quest.training
.agent_rollouts.BatchSampler, greedy so that both sides make the same sessions. The questions
are hand-written geography questions (not generated from the corpus) over a corpus of GeoNames
and countryinfo pages with a BM25 index.

- **reuse**: the default. A session's next turn feeds only what the loop added since its last
  turn (its last sampled token, the tool response, the next header).
- **baseline, re-prefill**: the same sampler with the kept prefixes switched off: every turn
  prefills the whole session so far, as a turn-by-turn `generate` does.

The runs alternate (reuse, baseline, reuse, baseline, ...) in one process on the same loaded
model so that a machine's load falls on both; the best run of each is compared. Printed: seconds,
sampled tokens per second, prompt tokens prefilled, and whether both made the same tokens (they
must: the reuse is exact up to float rounding, and greedy decoding turns that into equal ids).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

QUESTIONS = (
    "What is the capital of Peru?",
    "Which river flows through Vienna?",
    "How many people live in Oslo?",
    "Which country is Mount Kenya in?",
    "What currency does Japan use?",
    "Which countries border Bolivia?",
    "What is the largest city of Canada?",
    "Which ocean lies west of Portugal?",
)


def main() -> int:
    args = _arguments()
    from quest.agent import Budgets
    from quest.corpus import corpus_write, load_countryinfo, load_geonames
    from quest.search.indexing import bm25_build
    from quest.tools.offline import offline_toolbox
    from quest.training.models import load_model

    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        corpus_write(corpus, [*load_geonames(), *load_countryinfo()])
        bm25_build(corpus)
        toolbox = offline_toolbox(corpus)
        model, tokenizer = load_model(args.model)
        model.eval()
        budgets = dataclasses.replace(
            Budgets.rl(),
            max_turns=args.turns,
            max_turn_tokens=args.turn_tokens,
            max_invalid=args.turns,
        )
        questions = [QUESTIONS[i % len(QUESTIONS)] for i in range(args.sessions)]
        runs: dict[str, list[dict[str, Any]]] = {"reuse": [], "baseline": []}
        for repeat in range(args.repeats):
            for label, done in runs.items():
                run = _rollouts(
                    model, tokenizer, toolbox, budgets, questions, reuse=label == "reuse"
                )
                done.append(run)
                print(f"repeat {repeat + 1}/{args.repeats} {label:<8} {run['seconds']:7.1f} s, "
                      f"{run['sampled']} sampled, {run['fed']} prefilled",
                      file=sys.stderr)  # fmt: skip
    summary = _report(runs, args)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 0 if summary["same_tokens"] else 1


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--model", default="smollm2", help="smollm2, tiny or a model directory")
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--turn-tokens", type=int, default=96)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", help="write the summary here")
    return parser.parse_args()


def _rollouts(
    model: Any, tokenizer: Any, toolbox: Any, budgets: Any, questions: list[str], *, reuse: bool
) -> dict[str, Any]:
    from quest.agent import run_agent
    from quest.training.agent_rollouts import BatchSampler, TokenCounter, TokenPolicy
    from quest.training.decoding import Prefixes

    sampler = BatchSampler(model, tokenizer, 0.0, logprobs=False)
    sampler.prefixes = Prefixes(enabled=reuse)
    sampler.expect(len(questions))
    sessions: list[Any] = [None] * len(questions)

    def one(index: int) -> None:
        try:
            policy = TokenPolicy(
                model, tokenizer, max_tokens=budgets.max_turn_tokens, sampler=sampler.sample
            )
            run_agent(
                questions[index],
                policy=policy,
                toolbox=toolbox,
                budgets=budgets,
                token_counter=TokenCounter(tokenizer),
            )
            sessions[index] = [
                [t for t, m in zip(s.completion_ids, s.env_mask, strict=True) if m]
                for s in policy.sessions
            ]
        finally:
            sampler.leave()

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(questions)) as pool:
        list(pool.map(one, range(len(questions))))
    seconds = time.perf_counter() - started
    sampled = sum(len(ids) for turns in sessions for ids in turns)
    return {
        "seconds": seconds,
        "sampled": sampled,
        "fed": sampler.prefixes.fed,
        "reused": sampler.prefixes.reused,
        "digest": hashlib.sha256(json.dumps(sessions).encode()).hexdigest(),
    }


def _report(runs: dict[str, list[dict[str, Any]]], args: argparse.Namespace) -> dict[str, Any]:
    best = {label: min(rs, key=lambda r: r["seconds"]) for label, rs in runs.items()}
    digests = {r["digest"] for rs in runs.values() for r in rs}
    print(f"\n== {Path(args.model).name}: {args.sessions} sessions, at most {args.turns} turns of "
          f"{args.turn_tokens} tokens, greedy; best of {args.repeats}")  # fmt: skip
    for label, run in best.items():
        rate = run["sampled"] / run["seconds"]
        print(f"{label:<10} {run['seconds']:7.1f} s  {rate:6.1f} sampled tokens/s  "
              f"{run['fed']:7d} prompt tokens prefilled, {run['reused']:7d} reused")  # fmt: skip
    speedup = best["baseline"]["seconds"] / best["reuse"]["seconds"]
    fed = best["reuse"]["fed"] / max(best["baseline"]["fed"], 1)
    same = len(digests) == 1
    print(f"reuse/baseline: {speedup:.2f}x faster, {fed:.2f}x the prefilled tokens; "
          f"same sampled tokens in every run: {'yes' if same else 'NO'}")  # fmt: skip
    return {"best": best, "speedup": speedup, "prefilled_ratio": fed, "same_tokens": same}


if __name__ == "__main__":
    raise SystemExit(main())
