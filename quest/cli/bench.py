"""`quest eval bench …`: a checkpoint or endpoint on a public benchmark, in its own format and
metrics (quest.bench).

    quest eval bench --benchmark browsecomp-plus|flashrag|frames --data FILE
        [--corpus FILE|DIR] (--model CHECKPOINT|SPEC | --responses FILE) [--judge SPEC]
        --out DIR [--limit N] [--canary TEXT] [--dataset NAME] [--get-document]
        [--grader-prompt FILE] [--judge-cache FILE] [--beta 100] [--budgets rl|inference]
    quest eval bench compare DIR_A DIR_B

--model is a checkpoint directory, `scripted`, an LLM backend spec (`transformers:…`,
`vllm:…`) or OpenAI-compatible endpoints (`URL|MODEL[|KEY_ENV]`); --judge an endpoint or spec.
--corpus is the benchmark's corpus (BrowseComp-Plus `{docid, text, url}` or FlashRAG
`{id, contents}` JSONL, or a folder of JSONL/parquet shards), indexed once into DIR/corpus,
or a questweb corpus directory; flashrag and frames default to $QUESTWEB_CORPUS_DIR.

Rows go to DIR/rows.jsonl as each question finishes (a re-run resumes), then DIR/results.json
and DIR/plots.html. Progress goes to stderr, a summary to stdout as JSON. `compare` prints the
paired difference of two runs of one benchmark. Bad input exits 1 with one `error: …` line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from quest.bench.config import BenchConfig, BenchError
from quest.bench.formats import BENCHMARKS, FormatError
from quest.bench.judge import DEFAULT_MAX_TOKENS
from quest.bench.results import RESULTS, BenchResults, paired_difference
from quest.bench.run import run_benchmark
from quest.cli.common import Handler, UsageError, emit, guarded


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quest eval bench", description="run a model on a public benchmark"
    )
    parser.add_argument("--benchmark", choices=BENCHMARKS, required=True)
    parser.add_argument("--data", type=Path, required=True, help="the benchmark's question file")
    parser.add_argument("--out", type=Path, required=True, help="the run's directory")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help="checkpoint directory, scripted, backend spec or URL|MODEL")
    source.add_argument("--responses", type=Path, help="score saved {id, response} rows instead")
    parser.add_argument("--corpus", type=Path, help="corpus file, shard folder or questweb corpus")
    parser.add_argument("--judge", help="an OpenAI-compatible judge: URL|MODEL, or a backend spec")
    parser.add_argument("--grader-prompt", type=Path, help="another wording of the grader prompt")
    parser.add_argument("--judge-cache", type=Path, help="default DIR/judge-cache.jsonl")
    parser.add_argument("--judge-max-tokens", type=int, default=DEFAULT_MAX_TOKENS)
    parser.add_argument("--limit", type=int, help="only the first N questions")
    parser.add_argument("--canary", help="the password of an encrypted BrowseComp-Plus file")
    parser.add_argument("--dataset", help="flashrag: the set's name (default: from the path)")
    parser.add_argument("--get-document", action="store_true", help="add get_document (and visit)")
    parser.add_argument("--top-k", type=int, default=5, help="search results per query")
    parser.add_argument("--beta", type=int, default=100, help="calibration bin size")
    parser.add_argument("--budgets", choices=("rl", "inference"), default="inference")
    parser.add_argument("--temperature", type=float, help="LLM sampling temperature")
    parser.add_argument("--batch", type=int, default=8, help="questions judged per batch")
    parser.set_defaults(func=_guarded(_run))
    return parser


def build_compare_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quest eval bench compare", description="paired difference of two benchmark runs"
    )
    parser.add_argument("a", type=Path, metavar="DIR_A")
    parser.add_argument("b", type=Path, metavar="DIR_B")
    parser.set_defaults(func=_guarded(_compare))
    return parser


def main(argv: Sequence[str]) -> int:
    """`quest eval bench ARGS`, given ARGS."""
    arguments = list(argv)
    if arguments[:1] == ["compare"]:
        args = build_compare_parser().parse_args(arguments[1:])
    else:
        args = build_parser().parse_args(arguments)
    code: int = args.func(args)
    return code


def _guarded(handler: Handler) -> Handler:
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except (FormatError, BenchError, ValueError) as error:
            raise UsageError(str(error)) from None

    return guarded(run)


def _run(args: argparse.Namespace) -> int:
    default_corpus = os.environ.get("QUESTWEB_CORPUS_DIR")
    config = BenchConfig(
        benchmark=args.benchmark,
        data=args.data,
        out=args.out,
        model=args.model,
        responses=args.responses,
        corpus=args.corpus,
        judge=args.judge,
        grader_prompt=args.grader_prompt,
        judge_cache=args.judge_cache,
        judge_max_tokens=args.judge_max_tokens,
        limit=args.limit,
        canary=args.canary,
        dataset=args.dataset,
        get_document=args.get_document,
        search_k=args.top_k,
        beta=args.beta,
        budgets=args.budgets,
        temperature=args.temperature,
        batch=args.batch,
        default_corpus=Path(default_corpus) if default_corpus else None,
    )
    run_benchmark(config, on_progress=_progress, on_corpus=_corpus_progress)
    emit(_summary(args.out))
    return 0


def _summary(out: Path) -> dict[str, Any]:
    """results.json as the run wrote it (its bootstrap intervals are not drawn again)."""
    data: dict[str, Any] = json.loads((out / RESULTS).read_text(encoding="utf-8"))
    headline = data["metrics"]["accuracy"] or data["metrics"]["exact_match"]
    return {"out": str(out), "headline": headline, **data}


def _compare(args: argparse.Namespace) -> int:
    a, b = BenchResults.load(args.a), BenchResults.load(args.b)
    benchmarks = {a.setup.get("benchmark"), b.setup.get("benchmark")}
    if len(benchmarks) != 1:
        raise UsageError(f"the runs are of different benchmarks: {sorted(map(str, benchmarks))}")
    emit(
        {
            "a": {"out": str(args.a), "model": a.setup.get("model")},
            "b": {"out": str(args.b), "model": b.setup.get("model")},
            "difference": paired_difference(a.rows, b.rows, benchmark=benchmarks.pop()),
        }
    )
    return 0


def _progress(line: str) -> None:
    print(f"bench: {line}", file=sys.stderr, flush=True)


def _corpus_progress(stage: str, done: int, total: int | None) -> None:
    if stage == "load":
        state = "read" if total is None else "read; cutting them into passages"
        _progress(f"corpus: {done:,} documents {state}")
    elif stage == "chunk":
        _progress(f"corpus: about {done:,}/{total or 0:,} documents cut into passages")
    elif total is not None:
        _progress(f"corpus: BM25 index {done:,}/{total:,} passages")
