"""Accuracy of the scripted researcher on natural questions, against the top search hit.

    .venv/bin/python benchmarks/natural_questions_bench.py [--corpus DIR | --dense]
                                                           [--split dev|test] [--kind KIND]
                                                           [--verbose]

The questions (benchmarks/data/natural_questions.jsonl) were written from general knowledge
without reading the corpus's article texts (only its titles were listed, to check that each
subject has a page): who/what/where questions, paraphrases that share few words with the page,
comparisons of two options, two-hop questions (resolve a bridge entity, then ask about it) and
numeric ones (a value with a tolerance). Each has a fixed split: dev (used to tune the policy)
and test (only measured).

Without --corpus it builds the offline corpus from the packages into a temporary directory
with its BM25 index (3 s), so the run searches with BM25 alone. The live page's scripted
sessions search hybrid once the dense index is built (minutes after the first `make run`), and
hybrid is what the researcher is tuned for: --dense measures that, on var/bench-corpus, built
with both indexes on first use (embedding about 16,800 passages took 595 s on 2 shared cores);
later runs write its documents again from the packages and embed only the passages whose text
changed. A corpus directory with its dense index (var/corpus after `make run`) is used as it is.
The first lines of the output say which corpus and which search mode the run used.

Scoring (benchmarks/natural_scoring.py) reads only the report's direct-answer line, and of it
only the first sentence, the answer itself: the gold must be mentioned there, not negated; a
comparison must name the right option first and pick it (no hedging, no listing of the
options); a number must be within the tolerance. The baseline, measured in the same run with
the same search, answers with the title of the top search result for the question.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.agent_accuracy_bench import DENSE_HELP, build_corpus, dense_corpus, research_runs
from benchmarks.natural_scoring import Gold, answer_line, is_correct

DATA = Path(__file__).resolve().parent / "data" / "natural_questions.jsonl"
KINDS = ("wh", "paraphrase", "comparison", "two-hop", "numeric")
SPLITS = ("dev", "test")


@dataclass(frozen=True)
class Item:
    id: str
    kind: str
    split: str
    question: str
    gold: Gold


@dataclass(frozen=True)
class Outcome:
    item: Item
    right: bool
    baseline_right: bool
    turns: int
    seconds: float
    line: str
    top: str


def load_items(path: Path = DATA) -> list[Item]:
    items = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(raw)
        gold = Gold(
            kind=row["kind"],
            names=tuple(row.get("gold", ())),
            options=tuple(tuple(option) for option in row.get("options", ())),
            values=tuple(float(v) for v in row.get("values", ())),
            tolerance=float(row.get("tolerance", 0.0)),
        )
        items.append(Item(row["id"], row["kind"], row["split"], row["question"], gold))
    return items


def evaluate(corpus: Path, items: list[Item], max_turns: int) -> list[Outcome]:
    outcomes = []
    runs = research_runs(corpus, [i.question for i in items], max_turns)
    for item, run in zip(items, runs, strict=True):
        line = answer_line(run.report)
        outcomes.append(
            Outcome(
                item,
                is_correct(item.gold, line, item.question),
                is_correct(item.gold, run.top_title, item.question),
                run.turns,
                run.seconds,
                line,
                run.top_title,
            )
        )
    return outcomes


def _share(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0


def report(outcomes: list[Outcome], verbose: bool) -> None:
    print(f"{'split':<5} {'kind':<11} {'n':>3} {'policy':>7} {'top-hit':>8} {'ratio':>6}")
    for split in SPLITS:
        for kind in (*KINDS, "overall"):
            chosen = [
                o for o in outcomes if o.item.split == split and kind in (o.item.kind, "overall")
            ]
            if not chosen:
                continue
            policy = _share([o.right for o in chosen])
            baseline = _share([o.baseline_right for o in chosen])
            ratio = f"{policy / baseline:.2f}x" if baseline else "  n/a"
            print(
                f"{split:<5} {kind:<11} {len(chosen):>3} {policy:>7.1%} {baseline:>8.1%} {ratio:>6}"
            )
    turns = statistics.median(o.turns for o in outcomes)
    seconds = statistics.median(o.seconds for o in outcomes)
    print(f"median per question: {turns:g} turns, {seconds:.2f} s")
    if verbose:
        for o in outcomes:
            mark = "ok " if o.right else "NO "
            print(f"{mark}{o.item.id} {o.item.question} | {o.line[:200]} | top: {o.top}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", type=Path, help="corpus directory (default: build one)")
    parser.add_argument("--split", choices=SPLITS, help="only this split (default: both)")
    parser.add_argument("--kind", choices=KINDS, help="only this kind of question")
    parser.add_argument("--max-turns", type=int, default=20, help="turn budget per question")
    parser.add_argument("--verbose", action="store_true", help="print every question")
    parser.add_argument("--dense", action="store_true", help=DENSE_HELP)
    args = parser.parse_args()
    items = [
        item
        for item in load_items()
        if args.split in (None, item.split) and args.kind in (None, item.kind)
    ]
    with tempfile.TemporaryDirectory(prefix="natural-questions-") as scratch:
        corpus = args.corpus or (dense_corpus() if args.dense else build_corpus(Path(scratch)))
        outcomes = evaluate(corpus, items, args.max_turns)
    report(outcomes, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
