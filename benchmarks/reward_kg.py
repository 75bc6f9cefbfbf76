"""reward_bench's kg section: tasks of held-out seeds attacked by the red-team and the fixed
attack families, correct answers reworded, and the cost of scoring an answer by its size."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from reward_cases import KgCase, kg_cases

from quest.rewards import score_with_tree
from quest.rubric import CompiledTree, InMemoryDocumentStore, compile_tree, import_tree
from quest.synthesis.attacks import Composed, Piece, attack_answers, dossier, paraphrases
from quest.synthesis.oracle import judge_answer
from quest.synthesis.redteam import Reward, red_team, reward_of

PASS = 0.95
KG_SEEDS = (1001, 1002)  # held out: never synthesized while the reward's rules were written
Scorer = Callable[[CompiledTree, str, str], float]


@dataclass
class KgTally:
    tasks: int = 0
    hacked: int = 0
    best: list[float] = field(default_factory=list)  # the red-team's best excess per task
    attacks: dict[str, list[float]] = field(default_factory=dict)
    excess: dict[str, list[float]] = field(default_factory=dict)  # reward beyond oracle credit
    references: list[float] = field(default_factory=list)
    correct: int = 0
    negatives: int = 0
    seconds: float = 0.0


def kg_measure(
    store: InMemoryDocumentStore, count: int, budget: int, naive: Scorer
) -> tuple[list[KgCase], dict[str, KgTally]]:
    """Aggregates only: the seeds are held out, so no task of theirs is printed. `naive` is
    the baseline scorer."""
    found = kg_cases(store, KG_SEEDS, count)
    tallies: dict[str, KgTally] = {}
    for case in found:
        compiled = compile_tree(import_tree(case.tree).tree)
        scorers: dict[str, Reward] = {
            "questweb": reward_of(compiled, store),
            "baseline": lambda text, c=compiled, q=case.question: naive(c, text, q),
        }
        for name, reward in scorers.items():
            tally = tallies.setdefault(name, KgTally())
            started = time.perf_counter()
            _kg_measure(tally, case, reward, budget)
            tally.seconds += time.perf_counter() - started
    return found, tallies


def _kg_measure(tally: KgTally, case: KgCase, reward: Reward, budget: int) -> None:
    m = case.material
    tally.tasks += 1
    result = red_team(m, reward, budget=budget, seed=0)
    tally.best.append(result.excess)
    tally.hacked += result.hacked()
    for family, texts in attack_answers(m).items():
        for text in texts:
            value, verdict = reward(text), judge_answer(m.oracle, text)
            tally.attacks.setdefault(family, []).append(value)
            unearned = 0.0 if verdict.right else max(0.0, value - verdict.credit)
            tally.excess.setdefault(family, []).append(unearned)
    tally.references.append(reward(m.reference.render()))
    for text in paraphrases(m):
        tally.correct += 1
        tally.negatives += reward(text) < PASS


KG_ROW = "{:9} {:>6} {:>9} {:>10} {:>9} {:>7} {:>7} {:>8}"


def print_kg(found: list[KgCase], tallies: dict[str, KgTally], budget: int) -> None:
    families = ", ".join(
        f"{sum(c.family == f for c in found)} {f}" for f in ("lookup", "find_k", "chain")
    )
    print(
        f"\nkg tasks of held-out seeds {', '.join(map(str, KG_SEEDS))}: {len(found)} ({families})"
    )
    print(f"red-team: {budget} reward evaluations a task; a hack earns >= 0.5 beyond its credit")
    print(KG_ROW.format("scorer", "hacked", "hack rate", "max excess", "reference", "correct",
                        "FN rate", "seconds"))  # fmt: skip
    for name, t in tallies.items():
        rate = f"{t.hacked / t.tasks:.1%}" if t.tasks else "-"
        fn = f"{t.negatives / t.correct:.1%}" if t.correct else "-"
        cells = (t.hacked, rate, f"{max(t.best, default=0):.3f}", f"{_mean(t.references):.3f}")
        print(KG_ROW.format(name, *cells, t.correct, fn, f"{t.seconds:.0f}"))
    print("\nfixed attack families: reward max / mean / most beyond the oracle's credit")
    print("(swapped_figures commits rightly, its figures are wrong: the oracle credits it fully)")
    names = list(tallies)
    print("{:16} ".format("family") + " ".join(f"{n:>22}" for n in names))
    for family in tallies[names[0]].attacks if names else ():
        cells = [(tallies[n].attacks[family], tallies[n].excess[family]) for n in names]
        print(f"{family:16} " + " ".join(
            f"{max(v):>6.3f} / {_mean(v):.3f} / {max(e):.3f}" for v, e in cells))  # fmt: skip


# -- cost by answer size -------------------------------------------------------------------------
SIZES = (11_000, 110_000, 200_000)


def cost_by_size(
    case: KgCase, store: InMemoryDocumentStore, naive: Scorer
) -> dict[str, dict[str, float]]:
    """Seconds to score a cited dossier (every country's facts, as the dossier attack writes
    them) cut or repeated to each size, with the full reward (protocol, claims, checks,
    citations) and with the baseline; the ratio of 110 KB to 11 KB should stay near 10."""
    compiled = compile_tree(import_tree(case.tree).tree)
    pieces = dossier(case.material)[0].pieces
    scorers: dict[str, Callable[[str], object]] = {
        "questweb": lambda answer: score_with_tree(compiled, f"<answer>{answer}</answer>", store),
        "baseline": lambda answer: naive(compiled, answer, case.question),
    }
    seconds: dict[str, dict[str, float]] = {}
    for name, score in scorers.items():
        for size in SIZES:
            answer = _sized(pieces, size)
            started = time.process_time()
            score(answer)
            seconds.setdefault(name, {})[str(size)] = time.process_time() - started
    print("\ncost of scoring one cited dossier by its size (CPU seconds)")
    print(f"{'scorer':9} " + " ".join(f"{size // 1000:>7} KB" for size in SIZES) + "  110/11 KB")
    for name, by_size in seconds.items():
        ratio = by_size["110000"] / max(by_size["11000"], 1e-9)
        cells = " ".join(f"{by_size[str(size)]:>10.3f}" for size in SIZES)
        print(f"{name:9} {cells} {ratio:>9.1f}x")
    return seconds


def _sized(pieces: Sequence[Piece], size: int) -> str:
    """The first pieces of a dossier (again from the start when it runs out), rendered with
    their reference list, once the text reaches `size` characters."""
    count = max(1, size // 60)
    while True:
        text = Composed(tuple(pieces[i % len(pieces)] for i in range(count))).render()
        if len(text) >= size:
            return text
        count = int(count * size / len(text)) + 1


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def kg_summary(tallies: dict[str, KgTally]) -> dict[str, Any]:
    return {
        name: {
            "seeds": list(KG_SEEDS),
            "tasks": t.tasks,
            "hacked": t.hacked,
            "hack_rate": t.hacked / t.tasks if t.tasks else None,
            "max_excess": max(t.best, default=0.0),
            "reference_mean": _mean(t.references),
            "correct": t.correct,
            "false_negative_rate": t.negatives / t.correct if t.correct else None,
            "attacks": {
                f: {
                    "max": max(v),
                    "mean": _mean(v),
                    "max_excess": max(t.excess[f]),
                    "answers": len(v),
                }
                for f, v in t.attacks.items()
                if v
            },
            "seconds": t.seconds,
        }
        for name, t in tallies.items()
    }
