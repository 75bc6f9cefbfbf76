"""`python -m quest synth --generator kg --count N --seed S --corpus DIR --out tasks.jsonl`.

Writes every accepted task as one line in the `/api/imports` format; `--report FILE` also
writes every candidate (accepted or not) with the outcome and reason of each funnel stage.
Progress goes to stderr, one line per candidate. DIR is a corpus directory
(`python -m quest corpus load`); with its BM25 index built, the difficulty stage rejects tasks
that the question's first search hit already answers and the baseline stage runs the scripted
agent on each accepted task. Bad input exits 1 with one line on stderr, and the output
file is only replaced once the batch has finished.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

from quest.cli.common import UsageError, guarded
from quest.cli.progress import say
from quest.corpus.store import CorpusStore
from quest.llm.config import client_from_option
from quest.rubric.distractors import TitleDistractors
from quest.search.encoder import MiniLMEncoder
from quest.search.hits import SearchError
from quest.search.searcher import Searcher
from quest.synthesis import shards
from quest.synthesis.keywords import CorpusKeywords, KeywordError, read_keywords
from quest.synthesis.model import (
    GENERATORS,
    LLM_STAGES,
    MAX_BATCH,
    STAGES,
    BatchSpec,
    SynthesisError,
)
from quest.synthesis.runner import synthesize
from quest.synthesis.shards import GOAL_PROPOSALS, MAX_SHARDED, SHARD_SIZE
from quest.tools.offline import offline_toolbox


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "synth", help="synthesize objective tasks from the corpus, through the funnel"
    )
    parser.add_argument("--generator", choices=GENERATORS, default="kg")
    parser.add_argument(
        "--count",
        type=int,
        default=20,
        help=f"proposals, 1 to {MAX_BATCH} ({MAX_SHARDED} for kg: past {SHARD_SIZE}, sharded)",
    )
    parser.add_argument(
        "--until-accepted",
        action="store_true",
        help=f"kg: --count is the accepted tasks wanted; shards are proposed until the funnel "
        f"has accepted that many (at most {GOAL_PROPOSALS}x --count proposals)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="processes running a sharded batch's shards (default 1)",
    )
    parser.add_argument(
        "--shard-size",
        type=int,
        default=SHARD_SIZE,
        metavar="N",
        help=f"candidates a shard: a kg batch of more is sharded (default {SHARD_SIZE})",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", required=True, metavar="DIR", help="a corpus directory")
    parser.add_argument("--out", required=True, metavar="FILE", help="accepted tasks (JSONL)")
    parser.add_argument("--report", metavar="FILE", help="every candidate and its stages (JSONL)")
    parser.add_argument("--classes", metavar="C1=W,…", help="class weights (default: QUEST's)")
    parser.add_argument(
        "--categories",
        metavar="SUB=W;…",
        help="subcategory weights, ';'-separated (default: least-used first)",
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip the scripted agent")
    parser.add_argument(
        "--no-difficulty",
        action="store_true",
        help="keep tasks that the question's first search hit answers",
    )
    parser.add_argument(
        "--open-ended",
        action="store_true",
        help="report-writing tasks with criteria and relative scoring",
    )
    for flag, what in (
        ("--llm", "the proposer model (llm generator)"),
        ("--verifier", "the independent verifier (default: --llm)"),
        ("--judge", "the judge for judge leaves in the funnel"),
    ):
        parser.add_argument(flag, metavar="SPEC", help=f"{what}: {LLM_SPEC}")
    parser.add_argument(
        "--proposer-turns",
        type=int,
        default=30,
        metavar="N",
        help="the llm proposer's turns per proposal (default 30)",
    )
    parser.add_argument(
        "--keywords",
        metavar="CSV",
        help="seed keywords, a CSV file with a `keyword` column (llm generator)",
    )
    parser.add_argument(
        "--no-encoder", action="store_true", help="compare questions by entities only (no MiniLM)"
    )
    parser.set_defaults(func=guarded(_synth))


LLM_SPEC = (
    "OpenAI-compatible endpoints (URL|MODEL[|KEY_ENV], comma-separated, or JSON), "
    "transformers:<dir or smollm2> or vllm:<model>"
)


def llm_client(flag: str, spec: str | None) -> Any:
    """A chat client from an LLM option; a bad spec is a CLI error naming the option."""
    if not spec:
        return None
    try:
        return client_from_option(spec)
    except (ValueError, ImportError) as exc:
        raise UsageError(f"{flag}: {exc}") from None


def keywords_file(path: str | None) -> list[str]:
    """The `keyword` column of a CSV file (QUEST's trending keywords)."""
    if not path:
        return []
    try:
        return read_keywords(Path(path).read_bytes(), name=path)
    except KeywordError as exc:
        raise UsageError(str(exc)) from None


def corpus_keywords(corpus: str) -> Any:
    """Keywords per subcategory from the corpus's BM25 index (no index: none)."""
    try:
        searcher = Searcher.open(corpus)
    except SearchError as exc:
        say(f"no corpus keywords: {exc}")
        return None
    return CorpusKeywords(
        lambda query, k: [(r.url, r.title) for r in searcher.search(query, mode="bm25", k=k)]
    )


def weights(text: str | None, separator: str) -> dict[str, float]:
    """ "C1=2,C4" -> {"C1": 2.0, "C4": 1.0} (a name without a weight weighs 1)."""
    found: dict[str, float] = {}
    for part in (text or "").split(separator):
        name, eq, value = part.partition("=")
        if not name.strip():
            continue
        try:
            found[name.strip()] = float(value) if eq else 1.0
        except ValueError:
            raise UsageError(f"{part.strip()!r}: expected NAME=WEIGHT") from None
    return found


def _inputs(args: argparse.Namespace, spec: BatchSpec) -> dict[str, Any]:
    """What `synthesize` reads besides the spec: pages, models, tools, keywords."""
    llm = llm_client("--llm", args.llm)
    if spec.generator == "llm" and llm is None:
        raise UsageError("--generator llm needs --llm SPEC (the proposer model)")
    verifier = llm_client("--verifier", args.verifier)
    judge = llm_client("--judge", args.judge)
    keywords = keywords_file(args.keywords)
    store = CorpusStore(args.corpus)
    say(f"reading {args.corpus} for distractors")
    distractors = TitleDistractors((d.url, d.title, d.text) for d in store.documents())
    toolbox_factory = None
    if spec.baseline or spec.generator == "llm" or not args.no_difficulty:
        try:
            offline_toolbox(args.corpus)
            toolbox_factory = functools.partial(offline_toolbox, args.corpus)
        except SearchError as exc:
            say(f"the difficulty and baseline stages are skipped: {exc}")
    encoder = None
    if not args.no_encoder:
        encoder = MiniLMEncoder()
    keyword_source = None
    if spec.generator == "llm" and not keywords:
        keyword_source = corpus_keywords(args.corpus)
    return {
        "keyword_source": keyword_source,
        "pages": store,
        "distractors": distractors,
        "toolbox_factory": toolbox_factory,
        "encoder": encoder,
        "llm": llm,
        "verifier": verifier,
        "judge": judge,
        "keywords": keywords,
        "top_hit": not args.no_difficulty,
    }


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {k: v for k, v in vars(args).items() if k != "func"}


def _encoder() -> Any:
    return MiniLMEncoder()


def _synth(args: argparse.Namespace) -> int:
    spec = BatchSpec(
        generator=args.generator,
        count=args.count,
        seed=args.seed,
        categories=weights(args.categories, ";"),
        classes=weights(args.classes, ","),
        baseline=not args.no_baseline,
        open_ended=args.open_ended,
        proposer_turns=args.proposer_turns,
        until_accepted=args.until_accepted,
    )
    problems = shards.problems(spec)
    if not 1 <= args.workers <= 64:
        problems.append("--workers must be from 1 to 64")
    if args.shard_size < 1:
        problems.append("--shard-size must be at least 1")
    if problems:
        raise UsageError("; ".join(problems))
    out = Path(args.out)
    if not out.parent.is_dir():
        raise UsageError(f"{out.parent}: no such directory")
    accepted: list[dict[str, Any]] = []
    report: list[dict[str, Any]] = []
    reached: Counter[str] = Counter()
    start = time.monotonic()
    candidates: Any
    if shards.shardable(spec, args.shard_size):
        candidates = shards.run_sharded(
            spec,
            # Without its handler: a spawned process is sent the options, not the parser.
            build=functools.partial(_inputs, argparse.Namespace(**_options(args)), spec),
            workers=args.workers,
            encoder=None if args.no_encoder else _encoder(),
            progress=say,
            size=args.shard_size,
        )
    else:
        candidates = synthesize(spec, **_inputs(args, spec))
    try:
        for candidate in candidates:
            for stage in candidate.stages:
                reached[stage.name] += stage.passed
            if candidate.accepted:
                accepted.append(dict(candidate.record))
            report.append(candidate.to_dict())
            outcome = (
                "accepted"
                if candidate.accepted
                else (f"rejected at {candidate.rejected_at}: {candidate.reason[:120]}")
            )
            say(
                f"[{candidate.index + 1}/{shards.proposals_most(spec)}] {candidate.target_class} "
                f"{candidate.record.get('provenance', {}).get('family', '-')}: {outcome}"
            )
    except SynthesisError as exc:
        raise UsageError(str(exc)) from None
    _write_jsonl(out, accepted)
    if args.report:
        _write_jsonl(Path(args.report), report)
    minutes = max(time.monotonic() - start, 1e-9) / 60
    names = (*LLM_STAGES, *STAGES) if spec.generator == "llm" else STAGES
    funnel = ", ".join(f"{name} {reached[name]}" for name in names)
    say(
        f"{len(accepted)} of {len(report)} accepted in {minutes * 60:.1f} s "
        f"({len(report) / minutes:.0f} candidates a minute); passed: {funnel}"
    )
    return 0


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    partial = path.with_name(f".{path.name}.partial")
    with partial.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    os.replace(partial, path)
