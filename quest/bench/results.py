"""A benchmark run's results: one row per question (kept as JSONL while the run goes, so a
re-run resumes), the metrics with their intervals, the setup, and the published numbers beside
them.

The headline metric is judged accuracy when a judge graded the run; without one it is exact
match, labelled by the benchmark's published metric (quest.bench.published.PROTOCOLS): for
BrowseComp-Plus and FRAMES "not comparable to judged accuracy", for the Search-R1 / FlashRAG
sets the metric Search-R1 reports. Each of the two says which metric was published and whether
it is that one (`published_metric`, `comparable_to_published`).

A metric without data is None, never 0: search calls and evidence recall of the retrieved
documents count only the rows that know them (saved responses may not say; `n` is how many
did). `missing_responses`: the questions a responses file had no response for (scored wrong).

Evidence recall is per question, against the benchmark's evidence documents (its gold
documents when it lists no evidence), averaged over the questions that list any, in two
readings: `retrieved` (the documents the agent's searches returned) and `cited` (the documents
its answer cites).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from quest.bench import stats
from quest.bench.published import (
    JUDGED_ACCURACY,
    NOT_COMPARABLE,
    protocol_for,
    side_by_side,
    unjudged_label,
)

EXACT_MATCH_LABEL = NOT_COMPARABLE
MISSING = "missing"  # a row's status when the responses file had no response for it
ROWS = "rows.jsonl"
RESULTS = "results.json"


@dataclass(frozen=True)
class BenchRow:
    id: str
    question: str
    gold: tuple[str, ...]  # the accepted answers
    response: str  # the agent's final output
    answer: str  # its exact answer, as read from the response
    confidence: float  # 0-100; 100 when none was stated
    confidence_stated: bool
    exact_match: float
    f1: float
    verdict: str  # correct | incorrect (the judge's, else exact match's)
    judged: bool
    search_calls: int
    cited_docs: tuple[str, ...]
    retrieved_docs: tuple[str, ...]
    evidence_docs: tuple[str, ...]
    status: str  # the agent run's status, or "scored" for responses scored as given
    judge: dict[str, Any] | None = None
    elapsed_s: float = 0.0
    # False when saved responses did not say (their search calls then read 0, their
    # retrieved documents none, and neither counts in the metrics).
    search_calls_known: bool = True
    retrieved_known: bool = True

    @property
    def correct(self) -> bool:
        return self.verdict == "correct"

    def recall(self, reading: str) -> float | None:
        if not self.evidence_docs or (reading != "cited" and not self.retrieved_known):
            return None
        found = self.cited_docs if reading == "cited" else self.retrieved_docs
        return len(set(found) & set(self.evidence_docs)) / len(set(self.evidence_docs))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BenchRow:
        lists = ("gold", "cited_docs", "retrieved_docs", "evidence_docs")
        return cls(**{**data, **{name: tuple(data[name]) for name in lists}})


def read_rows(path: str | Path) -> list[BenchRow]:
    """The rows of a rows file; a last line cut short by a crash is left out (re-run it)."""
    file = Path(path)
    if not file.is_file():
        return []
    rows = []
    with file.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                rows.append(BenchRow.from_dict(json.loads(line)))
            except (ValueError, TypeError, KeyError):
                continue
    return rows


def metrics(
    rows: Sequence[BenchRow], *, beta: int = stats.DEFAULT_BETA, benchmark: str | None = None
) -> dict[str, Any]:
    """`benchmark` labels exact match by what the benchmark publishes (without it, as not
    comparable to judged accuracy)."""
    judged = bool(rows) and all(row.judged for row in rows)
    headline = stats.rate([row.correct for row in rows]) if judged else None
    recalls = {
        reading: stats.mean([r for row in rows if (r := row.recall(reading)) is not None])
        for reading in ("retrieved", "cited")
    }
    protocol = protocol_for(benchmark)
    published = protocol.metric if protocol else None
    counted = [float(row.search_calls) for row in rows if row.search_calls_known]
    return {
        "n": len(rows),
        "accuracy": {
            **headline,
            "label": "judged accuracy",
            "published_metric": published,
            "comparable_to_published": published == JUDGED_ACCURACY if published else None,
        }
        if headline
        else None,
        "exact_match": {
            **stats.rate([row.exact_match == 1 for row in rows]),
            "label": ("exact match" if judged else unjudged_label(benchmark)),
            "published_metric": published,
            "comparable_to_published": protocol.exact_match_is_published if protocol else None,
        },
        "f1": stats.mean([row.f1 for row in rows]),
        "evidence_recall": recalls,
        "search_calls": stats.mean(counted),
        "calibration_error": stats.calibration(
            [row.confidence / 100 for row in rows], [row.correct for row in rows], beta=beta
        ),
        "confidence_stated": sum(row.confidence_stated for row in rows),
        "missing_responses": sum(row.status == MISSING for row in rows),
    }


@dataclass
class BenchResults:
    """`setup`: benchmark, dataset, data file, model, corpus, retriever, judge, prompt hash,
    beta. `rows`: in the order they were run."""

    setup: dict[str, Any]
    rows: list[BenchRow] = field(default_factory=list)

    @property
    def beta(self) -> int:
        return int(self.setup.get("beta", stats.DEFAULT_BETA))

    def metrics(self) -> dict[str, Any]:
        return metrics(self.rows, beta=self.beta, benchmark=self.setup.get("benchmark"))

    def headline(self) -> dict[str, Any]:
        computed = self.metrics()
        chosen: dict[str, Any] = computed["accuracy"] or computed["exact_match"]
        return chosen

    def to_dict(self, *, with_rows: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "setup": self.setup,
            "metrics": self.metrics(),
            "published": side_by_side(str(self.setup.get("benchmark")), self.setup),
        }
        if with_rows:
            data["rows"] = [row.to_dict() for row in self.rows]
        return data

    def write(self, directory: str | Path) -> Path:
        """results.json (metrics, setup, published numbers; the rows stay in rows.jsonl)."""
        path = Path(directory) / RESULTS
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_dict(with_rows=False), indent=2, default=_finite) + "\n")
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, directory: str | Path) -> BenchResults:
        """A run's results from its --out directory (results.json's setup and rows.jsonl)."""
        folder = Path(directory)
        setup = json.loads((folder / RESULTS).read_text())["setup"]
        return cls(setup, read_rows(folder / ROWS))

    @classmethod
    def from_jsonl(cls, path: str | Path, setup: dict[str, Any]) -> BenchResults:
        return cls(setup, read_rows(path))


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    raise TypeError(f"{type(value).__name__} is not JSON")


def paired_difference(
    a: Iterable[BenchRow], b: Iterable[BenchRow], *, benchmark: str | None = None
) -> dict[str, Any]:
    """a - b on the questions both runs answered: judged correctness when both were judged,
    else exact match (labelled by what `benchmark` publishes); the mean difference with its
    paired bootstrap interval."""
    theirs = {row.id: row for row in b}
    pairs = [(row, theirs[row.id]) for row in a if row.id in theirs]
    judged = bool(pairs) and all(x.judged and y.judged for x, y in pairs)

    def score(row: BenchRow) -> float:
        return float(row.correct) if judged else row.exact_match

    result = stats.paired([score(x) - score(y) for x, y in pairs])
    return {**result, "metric": "judged accuracy" if judged else unjudged_label(benchmark)}
