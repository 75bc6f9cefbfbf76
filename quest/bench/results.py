"""A benchmark run's results: one row per question (kept as JSONL while the run goes, so a
re-run resumes), the metrics with their intervals, the setup, and the published numbers beside
them.

The headline metric is judged accuracy when a judge graded the run; without one it is exact
match, labelled as such, because exact match is not comparable to judged accuracy.

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
from quest.bench.published import side_by_side

EXACT_MATCH_LABEL = "exact match, not comparable to judged accuracy"
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

    @property
    def correct(self) -> bool:
        return self.verdict == "correct"

    def recall(self, reading: str) -> float | None:
        if not self.evidence_docs:
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


def metrics(rows: Sequence[BenchRow], *, beta: int = stats.DEFAULT_BETA) -> dict[str, Any]:
    judged = bool(rows) and all(row.judged for row in rows)
    headline = stats.rate([row.correct for row in rows]) if judged else None
    recalls = {
        reading: stats.mean([r for row in rows if (r := row.recall(reading)) is not None])
        for reading in ("retrieved", "cited")
    }
    return {
        "n": len(rows),
        "accuracy": {**headline, "label": "judged accuracy"} if headline else None,
        "exact_match": {
            **stats.rate([row.exact_match == 1 for row in rows]),
            "label": ("exact match" if judged else EXACT_MATCH_LABEL),
        },
        "f1": stats.mean([row.f1 for row in rows]),
        "evidence_recall": recalls,
        "search_calls": stats.mean([float(row.search_calls) for row in rows]),
        "calibration_error": stats.calibration(
            [row.confidence / 100 for row in rows], [row.correct for row in rows], beta=beta
        ),
        "confidence_stated": sum(row.confidence_stated for row in rows),
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
        return metrics(self.rows, beta=self.beta)

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


def paired_difference(a: Iterable[BenchRow], b: Iterable[BenchRow]) -> dict[str, Any]:
    """a - b on the questions both runs answered: judged correctness when both were judged,
    else exact match; the mean difference with its paired bootstrap interval."""
    theirs = {row.id: row for row in b}
    pairs = [(row, theirs[row.id]) for row in a if row.id in theirs]
    judged = bool(pairs) and all(x.judged and y.judged for x, y in pairs)

    def score(row: BenchRow) -> float:
        return float(row.correct) if judged else row.exact_match

    result = stats.paired([score(x) - score(y) for x, y in pairs])
    return {**result, "metric": "judged accuracy" if judged else EXACT_MATCH_LABEL}
