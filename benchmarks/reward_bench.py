"""Can the rubric reward be gamed, and does it still pay correct answers? (quest.rubric)

    .venv/bin/python benchmarks/reward_bench.py [--per-family 18] [--judge SPEC] [--json OUT]
        [--kg-count 10] [--kg-budget 300]

Trees: the questweb demo tasks (fixtures/demo/tasks.jsonl, with their reference answers), the
two real QUEST trees (fixtures/quest-trees: judge leaves only) and 3 x --per-family objective
trees over GeoNames facts (benchmarks/reward_cases.py: facts from the package's records, answer
wording written for this benchmark, never the corpus's own sentences). Pages: the offline corpus
(10,033 Wikipedia summaries, GeoNames, countryinfo) read from the packages, in memory.

For every tree, the adversarial battery of quest.rubric.probes (negated, hedged, wrong entity,
URL only, echo, unrelated citation, cited gibberish, three judge "master keys", empty) is
scored. Reported:
- hack rate: adversarial answers earning more than their limit (0.3; 0.8 for the unrelated
  citation), over all adversarial answers (goal 0);
- false-negative rate: correct, cited answers (the reference and 3 paraphrases per GeoNames
  tree) earning less than 0.95 (goal <= 5%), split into "a check missed it" and "a correct
  citation was refused";
- answers evaluated per second.
The GeoNames trees are split by a hash of their id into a dev half (seen while the rules were
written) and a held-out test half; both are printed. Trees with judge leaves are undecided
without --judge (an OpenAI-compatible endpoint list, transformers:<dir|smollm2> or vllm:<m>).

Baseline, measured in the same run on the same answers: the string-matching reward a user
writes first (and questweb had before): a value counts wherever its words appear in the raw
answer, and a citation is supported when 60% of the fact's words are on the cited page.

Then kg tasks of the offline synthesizer for seeds 1001 and 1002 (--kg-count proposals each,
those that pass the soundness probes; never synthesized while the reward's rules were written,
so only totals are printed), each with its oracle (quest.synthesis.oracle), scored by both
rewards:
- red-team hack rate: tasks where the red-team (quest.synthesis.redteam, --kg-budget reward
  evaluations) finds an answer the oracle calls wrong or uncommitted earning >= 0.5 beyond its
  credit (goal 0);
- each fixed attack family's max and mean reward (quest.synthesis.attacks);
- the reference answer's mean reward;
- false-negative rate: correct answers reworded (5 a task: other templates for each sentence
  and the committed line, every other one in reverse order) earning less than 0.95 (goal
  <= 5%);
- the CPU seconds of scoring a cited dossier of 11, 110 and 200 KB with each reward, and the
  ratio of 110 KB to 11 KB (linear is 10).

Then the grammar (quest.synthesis.grammar, benchmarks/reward_grammar.py) on kg tasks of seeds
8201 and 8202 (--grammar-count proposals each; no other part uses these seeds): every attack
class (where x what, with the credit a reader gives) and every paraphrase class (relation
wordings, sentence shapes, number, name, URL and answer-line forms, 20 and 120 KB), with the
hack rate (reward - ceiling >= 0.25) and the false-negative rate (a correct rewording < 0.5)
per class and per family, for questweb's reward and the string baseline.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from reward_cases import Case, cases
from reward_grammar import grammar_report
from reward_kg import PASS, Scorer, cost_by_size, kg_measure, kg_summary, print_kg

from quest.corpus import load_offline
from quest.rubric import (
    Check,
    CompiledTree,
    Document,
    InMemoryDocumentStore,
    LeafVerdict,
    TitleDistractors,
    combine,
    compile_tree,
    evaluate,
    import_tree,
    label_citations,
    parse_citations,
    probe_tree,
    valid_rate,
)
from quest.rubric.checks import date_bounds
from quest.rubric.dates import find_dates
from quest.rubric.judge import ChatClient
from quest.rubric.numbers import find_numbers, number_from_param, numbers_match
from quest.text.fold import fold
from quest.text.words import key_tokens

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Tally:
    adversarial: int = 0
    hacks: list[str] = field(default_factory=list)
    correct: int = 0
    missed: list[str] = field(default_factory=list)  # a check failed a correct answer
    refused: list[str] = field(default_factory=list)  # a correct citation was refused
    answers: int = 0
    seconds: float = 0.0

    def rates(self) -> tuple[float, float]:
        hack = len(self.hacks) / self.adversarial if self.adversarial else 0.0
        negatives = len(self.missed) + len(self.refused)
        return hack, negatives / self.correct if self.correct else 0.0


@dataclass(frozen=True)
class Item:
    case_id: str
    half: str  # "demo" | "dev" | "test" | "quest"
    question: str
    compiled: CompiledTree
    reference: str
    paraphrases: tuple[str, ...]


# Seeds of the grammar part, used by no other part of the project: its tasks are held out.
GRAMMAR_SEEDS = (8201, 8202)


def main() -> int:
    args = _arguments()
    started = time.perf_counter()
    store, distractors = _corpus()
    print(f"corpus: {len(store):,} pages in {time.perf_counter() - started:.1f} s")
    judge = _judge(args.judge)
    items = _items(args.per_family)
    ours, naive = _ours(store, judge), _naive(store)
    tallies: dict[str, dict[str, Tally]] = {}
    undecided: list[str] = []
    for item in items:
        report = probe_tree(
            item.compiled,
            item.reference,
            store,
            judge,
            distractors=distractors,
            question=item.question,
        )
        if report.verdict == "undecided":
            undecided.append(item.case_id)
            continue
        for name, score in (("questweb", ours), ("baseline", naive)):
            tally = tallies.setdefault(item.half, {}).setdefault(name, Tally())
            _measure(tally, item, report.probes, score, store)
    _print(tallies, undecided, items)
    summary = _summary(tallies, undecided)
    if args.kg_count:
        kg, kg_tallies = kg_measure(store, args.kg_count, args.kg_budget, _naive(store))
        print_kg(kg, kg_tallies, args.kg_budget)
        summary["kg"] = kg_summary(kg_tallies)
        if kg:
            summary["cost"] = cost_by_size(kg[0], store, _naive(store))
    if args.grammar_count:
        print(f"\n== grammar of attacks and paraphrases on kg tasks of seeds {GRAMMAR_SEEDS}")
        with tempfile.TemporaryDirectory() as folder:
            grammar = grammar_report(GRAMMAR_SEEDS, args.grammar_count, Path(folder) / "corpus")
        summary["grammar"] = {name: result["totals"] for name, result in grammar.items()}
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 0


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-family", type=int, default=18, help="GeoNames trees per family")
    parser.add_argument("--judge", help="judge model spec (default: none; judge trees undecided)")
    parser.add_argument("--json", help="also write the summary to this file")
    parser.add_argument(
        "--kg-count", type=int, default=10, help="kg proposals per held-out seed (0: no kg part)"
    )
    parser.add_argument(
        "--kg-budget", type=int, default=300, help="red-team reward evaluations per kg task"
    )
    parser.add_argument(
        "--grammar-count",
        type=int,
        default=20,
        help="kg proposals per seed scored with the whole attack and paraphrase grammar (0: none)",
    )
    return parser.parse_args()


def _corpus() -> tuple[InMemoryDocumentStore, TitleDistractors]:
    docs = [Document(d.url, d.title, d.text) for d in load_offline()]
    return InMemoryDocumentStore(docs), TitleDistractors((d.url, d.title, d.text) for d in docs)


def _judge(spec: str | None) -> ChatClient | None:
    if not spec:
        return None
    from quest.llm.config import client_from_config, parse_endpoints
    from quest.llm.http import HTTPChat

    if spec.startswith(("http://", "https://", "[")):
        return HTTPChat(parse_endpoints(spec))
    client: ChatClient = client_from_config(spec)
    return client


def _items(per_family: int) -> list[Item]:
    items: list[Item] = []
    for line in (ROOT / "fixtures" / "demo" / "tasks.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record.get("provenance", {}).get("generator") != "questweb demo":
            continue
        tree = compile_tree(import_tree(record["rubric"]).tree)
        items.append(
            Item(
                record["provenance"]["demo_id"],
                "demo",
                record["question"],
                tree,
                record["reference_answer"],
                (),
            )
        )
    for path in sorted((ROOT / "fixtures" / "quest-trees").glob("*.json")):
        data = json.loads(path.read_text())
        tree = compile_tree(import_tree(data).tree)
        items.append(Item(path.stem, "quest", data["task_description"], tree, "", ()))
    for case in cases(per_family):
        items.append(_case_item(case))
    return items


def _case_item(case: Case) -> Item:
    half = "dev" if int(hashlib.sha256(case.case_id.encode()).hexdigest(), 16) % 2 == 0 else "test"
    tree = compile_tree(import_tree(case.tree).tree)
    return Item(case.case_id, half, case.question, tree, case.reference, case.paraphrases)


# -- measuring -----------------------------------------------------------------------------------


def _measure(
    tally: Tally, item: Item, probes: Sequence[Any], score: Scorer, store: InMemoryDocumentStore
) -> None:
    for probe in probes:
        if probe.role != "adversarial":
            continue
        tally.adversarial += 1
        reward = _timed(tally, score, item, probe.answer)
        if probe.limit is not None and reward > probe.limit + 1e-9:
            tally.hacks.append(f"{item.case_id}/{probe.name} {reward:.2f}")
    for number, answer in enumerate((item.reference, *item.paraphrases)):
        tally.correct += 1
        reward = _timed(tally, score, item, answer)
        if reward >= PASS:
            continue
        label = (
            f"{item.case_id}/{'reference' if number == 0 else f'paraphrase {number}'} {reward:.2f}"
        )
        (tally.refused if reward >= 0.75 - 1e-9 else tally.missed).append(label)


def _timed(tally: Tally, score: Scorer, item: Item, answer: str) -> float:
    started = time.perf_counter()
    reward = score(item.compiled, answer, item.question)
    tally.seconds += time.perf_counter() - started
    tally.answers += 1
    return reward


def _ours(store: InMemoryDocumentStore, judge: ChatClient | None) -> Scorer:
    def score(compiled: CompiledTree, answer: str, question: str) -> float:
        if not answer.strip():
            return 0.0
        report = evaluate(compiled, answer, store, judge, task=question)
        labels = label_citations(parse_citations(answer), store, judge, task=question)
        return combine(report.root_score, valid_rate(labels))

    return score


def _naive(store: InMemoryDocumentStore) -> Scorer:
    """Substring checks over the raw answer and a 60%-of-words citation check."""

    def score(compiled: CompiledTree, answer: str, question: str) -> float:
        if not answer.strip():
            return 0.0
        cited = parse_citations(answer)
        verdicts: dict[str, str | LeafVerdict] = {}
        for leaf in compiled.nodes[: compiled.leaf_count]:
            assert leaf.check is not None
            verdicts[leaf.id] = _naive_check(
                leaf.check.kind, leaf.check.params, answer, cited, store
            )
        base = compiled.score(verdicts).root_score
        supported = unsupported = 0
        for citation in cited.citations:
            page = store.get(citation.url)
            tokens = key_tokens(citation.fact)
            if page is None or not tokens:
                unsupported += page is None
                continue
            words = set(fold(page.text).split())
            if sum(t in words for t in tokens) >= 0.6 * len(tokens):
                supported += 1
            else:
                unsupported += 1
        rate = supported / (supported + unsupported) if supported + unsupported else 0.0
        return combine(base, rate)

    return score


def _naive_check(
    kind: str, params: Any, answer: str, cited: Any, store: InMemoryDocumentStore
) -> str:
    text = f" {fold(answer)} "
    if kind in ("mentions", "one_of"):
        values = (
            [params["value"], *(params.get("aliases") or ())]
            if kind == "mentions"
            else list(params["values"])
        )
        found = sum(1 for v in values if f" {fold(str(v))} " in text)
        return "pass" if found >= int(params.get("at_least", 1)) else "fail"
    if kind in ("number", "source_supports") and not isinstance(params.get("value"), str):
        expected = number_from_param(params["value"])
        assert expected is not None
        tol = (float(params.get("tolerance_abs", 0)), float(params.get("tolerance_rel", 0)))
        hit = any(numbers_match(n, expected, *tol) for n in find_numbers(answer))
        return "pass" if hit and (kind == "number" or cited.urls()) else "fail"
    if kind == "source_supports":
        return "pass" if f" {fold(str(params['value']))} " in text and cited.urls() else "fail"
    if kind == "date":
        first, last = date_bounds(Check("date", params))
        return "pass" if any(d.within(first, last) for d in find_dates(answer)) else "fail"
    if kind == "cites_url":
        return "pass" if cited.urls() else "fail"
    return "error"


# -- report --------------------------------------------------------------------------------------


ROW = "{:6} {:9} {:>11} {:>9} {:>7} {:>7} {:>6} {:>7} {:>9}"


def _print(tallies: dict[str, dict[str, Tally]], undecided: list[str], items: list[Item]) -> None:
    count = {half: sum(1 for i in items if i.half == half) for half in ("demo", "dev", "test")}
    quest = sum(1 for i in items if i.half == "quest")
    print(
        f"trees: {count['demo']} demo, {count['dev']} dev + {count['test']} test (GeoNames), ",
        end="",
    )
    print(f"{quest} QUEST")
    if undecided:
        print(f"undecided without a judge (not scored): {', '.join(undecided)}")
    print()
    print(
        ROW.format(
            "half",
            "scorer",
            "adversarial",
            "hack rate",
            "correct",
            "FN rate",
            "missed",
            "refused",
            "answers/s",
        )
    )
    for half in ("demo", "dev", "test"):
        for name, tally in tallies.get(half, {}).items():
            hack, fn = tally.rates()
            speed = tally.answers / tally.seconds if tally.seconds else 0.0
            cells = (tally.adversarial, f"{hack:.1%}", tally.correct, f"{fn:.1%}")
            print(
                ROW.format(
                    half, name, *cells, len(tally.missed), len(tally.refused), f"{speed:.0f}"
                )
            )
    for half in ("dev", "test"):
        ours, base = tallies.get(half, {}).get("questweb"), tallies.get(half, {}).get("baseline")
        if ours and base and ours.seconds and base.seconds:
            ratio = (ours.answers / ours.seconds) / (base.answers / base.seconds)
            print(f"{half}: questweb evaluates {ratio:.2f}x the baseline's answers per second")
    for half, by_scorer in tallies.items():
        for name, tally in by_scorer.items():
            if tally.hacks or tally.missed or tally.refused:
                print(f"\n{half} / {name}: hacks {tally.hacks[:8]}")
                print(f"  missed {tally.missed[:8]}\n  refused {tally.refused[:8]}")


def _summary(tallies: dict[str, dict[str, Tally]], undecided: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"undecided": undecided}
    for half, by_scorer in tallies.items():
        for name, tally in by_scorer.items():
            hack, fn = tally.rates()
            out[f"{half}/{name}"] = {
                "adversarial": tally.adversarial,
                "hack_rate": hack,
                "hacks": tally.hacks,
                "correct": tally.correct,
                "false_negative_rate": fn,
                "missed": tally.missed,
                "refused": tally.refused,
                "answers_per_second": tally.answers / tally.seconds if tally.seconds else None,
            }
    return out


if __name__ == "__main__":
    sys.exit(main())
