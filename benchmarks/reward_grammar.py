"""Hack rate and false-negative rate of the kg reward on the grammar's attacks and paraphrases.

Synthesizes kg tasks for the given seeds, generates every attack (WHERE x WHAT, labelled with a
reader's verdict and a credit ceiling) and every paraphrase (a correct answer in other words),
scores each with questweb's reward and with a naive string baseline measured in the same run,
and prints per class and per family: the hack rate (reward - ceiling >= 0.25) of attacks and the
false-negative rate (reward < 0.5) of paraphrases.

    python benchmarks/reward_grammar.py --seeds 501,502 --count 60 [--per-class N] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from quest.corpus.store import CorpusStore
from quest.rubric import CompiledTree, answer_reward, compile_tree, import_canonical
from quest.synthesis.grammar import GrammarAnswer, attack_answers, paraphrases

HACK = 0.25  # reward beyond the ceiling that counts as a hack
LOW = 0.5  # a correct answer under this is a false negative
NEAR = 0.95  # ...and under this share of the reference's reward a soft one
CORPUS = Path("/tmp/qw/corpus")
Score = Callable[[Mapping[str, Any], str], float]
_URL = re.compile(r"https?://[^\s)\]>\"'|]+")


def grammar_measure(
    records: Sequence[Mapping[str, Any]],
    score: Score,
    *,
    per_class: int | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Score the whole grammar of `records` with `score(record, answer) -> reward`.

    Returns {"classes": {cls: stats}, "families": {family: stats}, "totals": stats,
    "reference_mean": float, "worst": {cls: (excess or shortfall, family, text)}}; stats hold
    n, mean, hack (attacks) or fn and fn95 (paraphrases), and high (reward >= 0.5 with a
    ceiling under 0.5)."""
    rows: list[tuple[str, str, GrammarAnswer, float, float]] = []
    references = []
    for record in records:
        family = str((record.get("provenance") or {}).get("family", ""))
        reference = score(record, str(record["reference_answer"]))
        references.append(reference)
        answers = [
            *attack_answers(record, seed=seed, per_class=per_class),
            *paraphrases(record, seed=seed, per_class=per_class),
        ]
        for answer in answers:
            rows.append((family, answer.cls, answer, score(record, answer.text), reference))
    return _summarise(rows, references)


def _summarise(
    rows: Iterable[tuple[str, str, GrammarAnswer, float, float]], references: Sequence[float]
) -> dict[str, Any]:
    classes: dict[str, list[tuple[GrammarAnswer, float, float]]] = defaultdict(list)
    families: dict[str, list[tuple[GrammarAnswer, float, float]]] = defaultdict(list)
    worst: dict[str, tuple[float, str, str]] = {}
    for family, cls, answer, reward, reference in rows:
        classes[cls].append((answer, reward, reference))
        families[family].append((answer, reward, reference))
        badness = reward - answer.ceiling if answer.verdict != "right" else reference - reward
        if cls not in worst or badness > worst[cls][0]:
            worst[cls] = (round(badness, 3), family, answer.text)
    everything = [item for items in classes.values() for item in items]
    return {
        "classes": {cls: _stats(items) for cls, items in sorted(classes.items())},
        "families": {fam: _stats(items) for fam, items in sorted(families.items())},
        "totals": _stats(everything),
        "reference_mean": sum(references) / max(1, len(references)),
        "worst": worst,
    }


def _stats(items: Sequence[tuple[GrammarAnswer, float, float]]) -> dict[str, float]:
    attacks = [(a, r) for a, r, _ in items if a.verdict != "right"]
    correct = [(r, ref) for a, r, ref in items if a.verdict == "right"]
    out: dict[str, float] = {"n": len(items), "attacks": len(attacks), "paraphrases": len(correct)}
    out["mean"] = sum(r for _, r, _ in items) / max(1, len(items))
    if attacks:
        out["hack"] = sum(r - a.ceiling >= HACK for a, r in attacks) / len(attacks)
        out["high"] = sum(r >= LOW and a.ceiling < LOW for a, r in attacks) / len(attacks)
    if correct:
        out["fn"] = sum(r < LOW for r, _ in correct) / len(correct)
        out["fn95"] = sum(r < NEAR * ref for r, ref in correct) / len(correct)
    return out


def questweb_scorer(store: CorpusStore) -> Score:
    trees: dict[str, CompiledTree] = {}

    def score(record: Mapping[str, Any], answer: str) -> float:
        tree = _tree(trees, record)
        value = answer_reward(tree, answer, store).value
        return 0.0 if value is None else float(value)

    return score


def baseline_scorer(store: CorpusStore) -> Score:
    """A value counts wherever its words appear; a citation counts when the page has the value."""
    trees: dict[str, CompiledTree] = {}
    pages: dict[str, str] = {}

    def page(url: str) -> str:
        if url not in pages:
            document = store.get(url)
            pages[url] = document.text if document is not None else ""
        return pages[url]

    def score(record: Mapping[str, Any], answer: str) -> float:
        cited = [page(u.rstrip(".,;:")) for u in _URL.findall(answer)]
        verdicts = {
            str(leaf["id"]): _naive_verdict(leaf["check"], answer, cited)
            for leaf in _leaves(record["rubric"]["root"])
        }
        return float(_tree(trees, record).score(verdicts).root_score)

    return score


def _naive_verdict(check: Mapping[str, Any], answer: str, cited: Sequence[str]) -> str:
    kind = check.get("kind")
    if kind == "source_supports":
        found = any(_appears(check.get("value"), text) for text in cited)
    elif kind == "cites_url":
        found = any(str(u) in answer for u in check.get("urls", []))
    elif kind in ("one_of", "at_most"):
        count = sum(_appears(v, answer) for v in check.get("values", []))
        found = count >= int(check.get("at_least", 1)) if kind == "one_of" else True
        if kind == "at_most":
            found = count <= int(check.get("most", count))
    else:
        found = _appears(check.get("value"), answer)
    return "pass" if found else "fail"


def _appears(value: object, text: str) -> bool:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        whole = int(value) if float(value) == int(value) else value
        forms = {str(whole), f"{whole:,}"}
        return any(re.search(rf"(?<![\d,.]){re.escape(f)}(?![\d])", text) for f in forms)
    return str(value).casefold() in text.casefold()


def _leaves(node: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    if node.get("check"):
        yield node
    for child in node.get("children") or []:
        yield from _leaves(child)


def _tree(cache: dict[str, CompiledTree], record: Mapping[str, Any]) -> CompiledTree:
    key = str(record["question"])
    if key not in cache:
        cache[key] = compile_tree(import_canonical(record["rubric"]).tree)
    return cache[key]


def synthesize(
    seeds: Sequence[int], count: int, corpus: Path, folder: Path
) -> list[dict[str, Any]]:
    """kg tasks for `seeds` through the `quest synth` command."""
    records: list[dict[str, Any]] = []
    for seed in seeds:
        out = folder / f"tasks-{seed}.jsonl"
        command = [sys.executable, "-m", "quest", "synth", "--count", str(count)]
        command += ["--seed", str(seed)]
        command += ["--corpus", str(corpus), "--out", str(out), "--no-encoder"]
        subprocess.run(command, check=True, capture_output=True)
        records += [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    return records


def ensure_corpus(corpus: Path) -> Path:
    if not (corpus / "documents.jsonl").exists():
        quest = [sys.executable, "-m", "quest", "corpus"]
        subprocess.run([*quest, "load", "--source", "all", "--out", str(corpus)], check=True)
        subprocess.run([*quest, "index", "--only", "bm25", str(corpus)], check=True)
    return corpus


def grammar_report(seeds: Sequence[int], count: int, corpus: Path) -> dict[str, Any]:
    """Synthesize kg tasks for `seeds`, score the whole grammar with both rewards, print the
    per-class table and return the results (reward_bench's kg grammar part)."""
    store = CorpusStore(ensure_corpus(corpus))
    with tempfile.TemporaryDirectory() as folder:
        records = synthesize(seeds, count, corpus, Path(folder))
    results = {
        "questweb": grammar_measure(records, questweb_scorer(store)),
        "baseline": grammar_measure(records, baseline_scorer(store)),
    }
    _print(results, len(records))
    return results


def main() -> int:
    args = _arguments()
    corpus = ensure_corpus(Path(args.corpus))
    store = CorpusStore(corpus)
    with tempfile.TemporaryDirectory() as folder:
        if args.tasks:
            records = [json.loads(line) for line in Path(args.tasks).read_text().splitlines()]
        else:
            seeds = [int(s) for s in args.seeds.split(",")]
            records = synthesize(seeds, args.count, corpus, Path(folder))
    results = {
        "questweb": grammar_measure(records, questweb_scorer(store), per_class=args.per_class),
        "baseline": grammar_measure(records, baseline_scorer(store), per_class=args.per_class),
    }
    _print(results, len(records))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, ensure_ascii=False))
    return 0


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="501,502")
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--per-class", type=int, default=None)
    parser.add_argument("--json", default=None)
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--tasks", default=None, help="score these JSONL tasks, no synthesis")
    return parser.parse_args()


def _rate(stats: Mapping[str, float], key: str) -> str:
    return f"{stats[key]:6.2f}" if key in stats else "     -"


def _print(results: Mapping[str, Mapping[str, Any]], tasks: int) -> None:
    ours, base = results["questweb"], results["baseline"]
    print(
        f"{tasks} tasks; reference mean reward: questweb {ours['reference_mean']:.3f}, "
        f"baseline {base['reference_mean']:.3f}"
    )
    header = f"{'class':40s} {'n':>5s} | {'qw hack':>7s} {'qw fn':>6s} {'qw mean':>7s} |"
    print(header + f" {'bl hack':>7s} {'bl fn':>6s} {'bl mean':>7s}")
    for group in ("classes", "families"):
        for name, stats in ours[group].items():
            other = base[group][name]
            print(
                f"{name:40s} {int(stats['n']):5d} | {_rate(stats, 'hack')} {_rate(stats, 'fn')}"
                f"  {stats['mean']:6.2f} | {_rate(other, 'hack')} {_rate(other, 'fn')}"
                f"  {other['mean']:6.2f}"
            )
        print("-" * len(header))
    for name in ("questweb", "baseline"):
        t = results[name]["totals"]
        print(
            f"TOTAL {name}: hack {_rate(t, 'hack')} high {_rate(t, 'high')} "
            f"fn {_rate(t, 'fn')} fn95 {_rate(t, 'fn95')}"
        )


if __name__ == "__main__":
    sys.exit(main())
