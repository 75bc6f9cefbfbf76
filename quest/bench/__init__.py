"""Public deep-research benchmarks in their own formats and metrics: BrowseComp-Plus, the
Search-R1 / FlashRAG question-answering sets and FRAMES (issue 39).

    results = run_benchmark(BenchConfig(benchmark="browsecomp-plus", data=Path("queries.jsonl"),
                                        corpus=Path("corpus.jsonl"), model="URL|MODEL",
                                        judge="URL|JUDGE", out=Path("runs/bcp")))
    results.to_dict()       # setup, metrics with 95 % intervals, published numbers, rows
    BenchResults.load(out)  # the same from a run's --out directory

Loaders: quest.bench.formats; corpus and tools: quest.bench.corpus; scoring: quest.bench.scoring
(EM/F1), quest.bench.answers (the answer format), quest.bench.judge (judged accuracy),
quest.bench.stats (intervals, calibration); published numbers: quest.bench.published.
"""

from __future__ import annotations

from quest.bench.config import BenchConfig, BenchError
from quest.bench.crypto import decrypt, encrypt
from quest.bench.formats import (
    BENCHMARKS,
    BROWSECOMP_PLUS,
    FLASHRAG,
    FRAMES,
    BenchDoc,
    BenchQuestion,
    FormatError,
    load_browsecomp_plus,
    load_flashrag,
    load_frames,
    load_questions,
)
from quest.bench.plots import figures_json, write_plots
from quest.bench.published import PUBLISHED, Published, setup_differences, side_by_side
from quest.bench.results import BenchResults, BenchRow, metrics, paired_difference, read_rows
from quest.bench.run import finish, run_benchmark

__all__ = [
    "BENCHMARKS",
    "BROWSECOMP_PLUS",
    "FLASHRAG",
    "FRAMES",
    "PUBLISHED",
    "BenchConfig",
    "BenchDoc",
    "BenchError",
    "BenchQuestion",
    "BenchResults",
    "BenchRow",
    "FormatError",
    "Published",
    "decrypt",
    "encrypt",
    "figures_json",
    "finish",
    "load_browsecomp_plus",
    "load_flashrag",
    "load_frames",
    "load_questions",
    "metrics",
    "paired_difference",
    "read_rows",
    "run_benchmark",
    "setup_differences",
    "side_by_side",
    "write_plots",
]
