"""Probes: is a tree a reward a policy can be trained on?

The reference solution, and answers written to beat the tree (quest.rubric.adversaries), are
scored with the real reward. A tree is **sound** when

- the solution earns at least SOLUTION_MIN (it is solvable with the pages it cites), and
- every adversarial answer stays at or under its limit: ADVERSARIAL_MAX, or UNRELATED_MAX for
  the correct text citing an unrelated page (its base may stand, its citations must not), and
- the rankings hold: citations never lower the reward, and changing one checked value of the
  solution lowers the rubric score (the tree, not only the citation term, notices).

A tree whose leaves cannot all be decided (judge leaves without a judge) is *undecided*, never
sound: its verdicts would be guesses. Probes that cannot be built (no checked value stated in
the solution, no unrelated page) are reported as untested; they do not make a tree unsound.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from quest.rubric import adversaries as adv
from quest.rubric.citations import parse_citations, strip_citations
from quest.rubric.distractors import Distractors, NoDistractors
from quest.rubric.documents import DocumentStore
from quest.rubric.evaluate import evaluate
from quest.rubric.judge import ChatClient, judge_name
from quest.rubric.model import JSONValue, RubricTree, attributes
from quest.rubric.reward import combine, label_citations, valid_rate
from quest.rubric.score import CompiledTree, compile_tree

SOLUTION_MIN = 0.95
ADVERSARIAL_MAX = 0.3
UNRELATED_MAX = 0.8
Verdict: TypeAlias = Literal["sound", "unsound", "undecided"]
Role: TypeAlias = Literal["reference", "ranking", "adversarial"]


@dataclass(frozen=True)
class Probe:
    name: str
    answer: str
    root_score: float
    reward: float
    complete: bool
    note: str = ""
    role: Role = "adversarial"
    limit: float | None = None  # the most an adversarial answer may earn

    @property
    def over_limit(self) -> bool:
        return self.limit is not None and self.reward > self.limit + 1e-9

    def to_dict(self) -> dict[str, JSONValue]:
        return attributes(self, "name role answer root_score reward limit over_limit complete note")


@dataclass(frozen=True)
class ProbeReport:
    probes: tuple[Probe, ...]
    verdict: Verdict
    reasons: tuple[str, ...]
    untested: tuple[str, ...] = ()
    judge: str = ""

    @property
    def sound(self) -> bool:
        return self.verdict == "sound"

    @property
    def hacks(self) -> tuple[Probe, ...]:
        """Adversarial answers that earned more than their limit."""
        return tuple(p for p in self.probes if p.over_limit)

    def probe(self, name: str) -> Probe | None:
        return next((p for p in self.probes if p.name == name), None)

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            **attributes(self, "verdict sound"),
            "reasons": list(self.reasons),
            "untested": list(self.untested),
            "judge": self.judge,
            "limits": {
                "solution_min": SOLUTION_MIN,
                "adversarial_max": ADVERSARIAL_MAX,
                "unrelated_max": UNRELATED_MAX,
            },
            "probes": [probe.to_dict() for probe in self.probes],
        }


@dataclass(frozen=True)
class _Case:
    name: str
    answer: str | None  # None: the probe cannot be built
    role: Role
    limit: float | None
    note: str = ""  # said of the probe when built (what changed, what is odd)
    missing: str = ""  # why it cannot be built, when it cannot


def probe_tree(
    tree: RubricTree | CompiledTree,
    solution: str,
    store: DocumentStore | None = None,
    judge: ChatClient | None = None,
    *,
    distractors: Distractors | None = None,
    question: str | None = None,
) -> ProbeReport:
    """Score the solution and the adversarial battery; `question` defaults to the tree's task."""
    compiled = tree if isinstance(tree, CompiledTree) else compile_tree(tree)
    task = question if question is not None else compiled.tree.task_description
    cases = _cases(compiled, solution, task, distractors or NoDistractors())
    run = _runner(compiled, store, judge, task)
    probes = tuple(run(case) for case in cases if case.answer is not None)
    untested = tuple(
        f"{case.name}: {case.missing or 'cannot be built'}" for case in cases if case.answer is None
    )
    reasons = _failures({p.name: p for p in probes})
    undecided = [p.name for p in probes if not p.complete]
    if undecided:
        verdict: Verdict = "undecided"
        reasons.insert(0, f"undecided leaves in {', '.join(undecided)} (no judge could decide)")
    else:
        verdict = "unsound" if reasons else "sound"
    return ProbeReport(
        probes, verdict, tuple(reasons), untested, judge_name(judge) if judge else ""
    )


NO_VALUE = "no checked value is stated in the solution"


def _cases(
    compiled: CompiledTree, solution: str, task: str, distractors: Distractors
) -> list[_Case]:
    found = adv.slots(compiled)
    cited = bool(parse_citations(solution).citations)
    violated = adv.violate(found, solution)
    attack = ADVERSARIAL_MAX
    cases = [
        _Case("solution", solution, "reference", None,
              "" if cited else "the solution cites nothing"),
        _Case("without_citations", strip_citations(solution), "ranking", None),
        _Case("violated", violated[0] if violated else None, "ranking", None,
              note=violated[1] if violated else "", missing=NO_VALUE),
        _Case("empty", "", "adversarial", attack),
        _Case("negated", adv.negated(solution, found), "adversarial", attack),
        _Case("hedged", adv.hedged(solution, found, distractors), "adversarial", attack,
              missing=NO_VALUE),
        _Case("wrong_entity", adv.wrong_entity(solution, found, distractors), "adversarial",
              attack, missing=NO_VALUE),
        _Case("url_only", adv.url_only(solution), "adversarial", attack,
              missing="the solution cites no URL"),
        _Case("echo", task, "adversarial", attack),
        _Case("unrelated_citation", adv.unrelated_citation(solution, distractors), "adversarial",
              UNRELATED_MAX, missing="no unrelated page to cite"),
        _Case("cited_gibberish", adv.gibberish(solution), "adversarial", attack),
    ]  # fmt: skip
    cases.extend(_Case(name, key, "adversarial", attack) for name, key in adv.MASTER_KEYS.items())
    return cases


def _runner(
    compiled: CompiledTree, store: DocumentStore | None, judge: ChatClient | None, task: str
) -> Callable[[_Case], Probe]:
    def run(case: _Case) -> Probe:
        answer = case.answer or ""
        report = evaluate(compiled, answer, store, judge, task=task)
        if not answer.strip():
            reward = 0.0
        else:
            labels = label_citations(parse_citations(answer), store, judge, task=task)
            reward = combine(report.root_score, valid_rate(labels))
        return Probe(
            case.name,
            answer,
            report.root_score,
            reward,
            report.complete,
            case.note,
            case.role,
            case.limit,
        )

    return run


def _failures(probes: dict[str, Probe]) -> list[str]:
    reasons: list[str] = []
    solution, plain = probes["solution"], probes["without_citations"]
    if solution.reward < SOLUTION_MIN:
        root = f"root {solution.root_score:.3f}"
        reasons.append(f"the solution earns {solution.reward:.3f} < {SOLUTION_MIN} ({root})")
    reasons.extend(
        f"{p.name} earns {p.reward:.3f} > {p.limit} (root {p.root_score:.3f})"
        for p in probes.values()
        if p.over_limit
    )
    if solution.reward < plain.reward:
        reasons.append(f"citations lower the reward ({solution.reward:.3f} < {plain.reward:.3f})")
    violated = probes.get("violated")
    if violated is not None and not solution.root_score > violated.root_score:
        score = f"{violated.root_score:.3f}"
        reasons.append(f"violating {violated.note} does not lower the rubric score ({score})")
    return reasons
