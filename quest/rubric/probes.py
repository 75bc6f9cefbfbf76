"""Probes: does a tree rank counterfactual answers the way a sound reward must?

From the reference solution we build: an empty answer, the solution without citations, the
solution with its citations, cited gibberish (every word scrambled, every citation kept), and
the solution with one checked value changed. A sound tree gives
    with_citations >= without_citations > violated,   empty = 0,   cited_gibberish ~ 0.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from datetime import date

from quest.rubric.checks import checked_values, date_bounds
from quest.rubric.citations import parse_citations, strip_citations
from quest.rubric.dates import find_dates
from quest.rubric.documents import DocumentStore
from quest.rubric.evaluate import evaluate
from quest.rubric.judge import ChatClient
from quest.rubric.model import Check, JSONValue, RubricTree
from quest.rubric.numbers import find_numbers, number_from_param, numbers_match
from quest.rubric.reward import combine, label_citations, valid_rate
from quest.rubric.score import CompiledTree, compile_tree

GIBBERISH_MAX = 0.05
_PROTECTED = re.compile(r"https?://\S+|\[\^?\d[^\]\n]*\]")
_WORD = re.compile(r"[^\W_]+")
_SYLLABLES = ("zor", "qua", "blix", "vem", "tru", "pash", "gol", "nix", "frem", "dov")
REPLACEMENT_NAME = "Zorblax Quintavelle"


@dataclass(frozen=True)
class Probe:
    name: str
    answer: str
    root_score: float
    reward: float
    complete: bool
    note: str = ""

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "name": self.name,
            "root_score": self.root_score,
            "reward": self.reward,
            "complete": self.complete,
            "note": self.note,
        }


@dataclass(frozen=True)
class ProbeReport:
    probes: tuple[Probe, ...]
    sound: bool
    reasons: tuple[str, ...]

    def probe(self, name: str) -> Probe | None:
        return next((p for p in self.probes if p.name == name), None)

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "sound": self.sound,
            "reasons": list(self.reasons),
            "probes": [probe.to_dict() for probe in self.probes],
        }


def probe_tree(
    tree: RubricTree | CompiledTree,
    solution: str,
    store: DocumentStore | None = None,
    judge: ChatClient | None = None,
) -> ProbeReport:
    compiled = tree if isinstance(tree, CompiledTree) else compile_tree(tree)
    answers: list[tuple[str, str, str]] = [
        ("empty", "", ""),
        ("without_citations", strip_citations(solution), ""),
        (
            "with_citations",
            solution,
            "" if parse_citations(solution).citations else "solution has no citations",
        ),
        ("cited_gibberish", gibberish(solution), ""),
    ]
    violated = violate(compiled, solution)
    if violated is not None:
        answers.append(("violated", violated[0], violated[1]))
    probes = tuple(
        _run(compiled, name, answer, note, store, judge) for name, answer, note in answers
    )
    reasons = _judge_ranking({p.name: p for p in probes})
    if violated is None:
        reasons.append("untested: no deterministic leaf value occurs in the solution to violate")
    return ProbeReport(
        probes, not [r for r in reasons if not r.startswith("untested")], tuple(reasons)
    )


def _run(
    compiled: CompiledTree,
    name: str,
    answer: str,
    note: str,
    store: DocumentStore | None,
    judge: ChatClient | None,
) -> Probe:
    report = evaluate(compiled, answer, store, judge)
    if not answer.strip():
        return Probe(name, answer, report.root_score, 0.0, report.complete, note)
    labels = label_citations(
        parse_citations(answer), store, judge, task=compiled.tree.task_description
    )
    reward = combine(report.root_score, valid_rate(labels))
    return Probe(name, answer, report.root_score, reward, report.complete, note)


def _judge_ranking(probes: dict[str, Probe]) -> list[str]:
    reasons: list[str] = []
    empty, plain, cited = probes["empty"], probes["without_citations"], probes["with_citations"]
    gib, violated = probes["cited_gibberish"], probes.get("violated")
    undecided = [p.name for p in probes.values() if not p.complete]
    if undecided:
        reasons.append(f"undecided leaves in {', '.join(undecided)} (errored checks score 0 here)")
    if empty.root_score > 0:
        reasons.append(f"the empty answer scores {empty.root_score:.3f}")
    if gib.root_score > GIBBERISH_MAX or gib.reward > GIBBERISH_MAX:
        reasons.append(f"cited gibberish earns {gib.reward:.3f} (root {gib.root_score:.3f})")
    if cited.reward < plain.reward:
        reasons.append(f"citations lower the reward ({cited.reward:.3f} < {plain.reward:.3f})")
    if plain.root_score <= 0:
        reasons.append("the solution without citations scores 0")
    if violated is not None and not plain.reward > violated.reward:
        reasons.append(
            f"violating {violated.note} does not lower the reward ({violated.reward:.3f})"
        )
    return reasons


def gibberish(solution: str) -> str:
    """Every word scrambled (deterministically), every URL and citation marker kept."""
    seed = zlib.crc32(solution.encode("utf-8"))
    pieces: list[str] = []
    last = 0
    for match in _PROTECTED.finditer(solution):
        pieces.append(_scramble(solution[last : match.start()], seed))
        pieces.append(match[0])
        last = match.end()
    pieces.append(_scramble(solution[last:], seed))
    return "".join(pieces)


def _scramble(text: str, seed: int) -> str:
    def word(match: re.Match[str]) -> str:
        n = (seed + match.start() * 7919) % 1_000_003
        out = ""
        while len(out) < len(match[0]):
            out += _SYLLABLES[n % len(_SYLLABLES)]
            n //= len(_SYLLABLES) or 1
            n += 3
        return out[: max(len(match[0]), 3)]

    return _WORD.sub(word, text)


def violate(compiled: CompiledTree, solution: str) -> tuple[str, str] | None:
    """The solution with the first checked value that it states changed, and what changed."""
    for leaf in compiled.nodes[: compiled.leaf_count]:
        check = leaf.check
        if check is None:
            continue
        mutated = _mutate(check, solution)
        if mutated is not None and mutated != solution:
            return mutated, f"{leaf.id} ({check.kind})"
    return None


def _mutate(check: Check, solution: str) -> str | None:
    if check.kind == "number" or (
        check.kind == "source_supports" and not isinstance(check.params.get("value"), str)
    ):
        return _mutate_number(check, solution)
    if check.kind == "date":
        return _mutate_dates(check, solution)
    values = [v for v in checked_values(check) if v.strip()]
    if not values:
        return None
    pattern = re.compile(
        "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)), re.IGNORECASE
    )
    return pattern.sub(REPLACEMENT_NAME, solution) if pattern.search(solution) else None


def _mutate_number(check: Check, solution: str) -> str | None:
    expected = number_from_param(check.params.get("value"))
    if expected is None:
        return None
    hits = [n for n in find_numbers(solution) if numbers_match(n, expected, 0.0, 0.0)]
    for hit in reversed(hits):
        changed = expected.value * 3 + 7
        solution = (
            solution[: hit.start] + f"{changed:f}".rstrip("0").rstrip(".") + solution[hit.end :]
        )
    return solution if hits else None


def _mutate_dates(check: Check, solution: str) -> str | None:
    """Move every date the check accepts out of its range: seven years past its end, or before
    its start when it has no end."""
    first, last = date_bounds(check)
    outside = last.year + 7 if last.year < date.max.year - 7 else first.year - 7
    hits = [span for span in find_dates(solution) if span.within(first, last)]
    for span in reversed(hits):
        text = solution[span.start : span.end].replace(str(span.first.year), str(outside))
        solution = solution[: span.start] + text + solution[span.end :]
    return solution if hits else None
