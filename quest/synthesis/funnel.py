"""The verification funnel: every stage a candidate task must pass, in order, each recording its
outcome and the reason a person reads (QUEST-SPEC §3, the issue's funnel).

schema → complexity measured (the class is the produced tree's shape, not the label asked for)
→ solvability (the reference answer, scored with the corpus pages, earns ≥ SOLUTION_MIN) →
soundness probes (quest.rubric.probes: negated, hedged, wrong entity, URL-only, echo, unrelated
citation, empty, master keys all stay under their limits) → red-team (quest.synthesis.redteam:
no answer the task's oracle calls wrong or uncommitted earns HACK_MIN) → non-exclusivity (other
valid answers from the knowledge graph earn ≥ SOLUTION_MIN) → near-duplicate rejection (against
the task store and the batch's accepted tasks: the same entities and facts, or MiniLM similarity
of the questions ≥ DUPLICATE_COSINE) → difficulty (quest.synthesis.difficulty: the question's
first search hit, given as the answer, earns under TOP_HIT_MAX) → baseline difficulty (the
scripted agent's reward, recorded).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from quest.rubric.distractors import Distractors
from quest.rubric.documents import DocumentStore
from quest.rubric.errors import RubricError
from quest.rubric.importers import import_canonical
from quest.rubric.judge import ChatClient
from quest.rubric.probes import SOLUTION_MIN, probe_tree
from quest.rubric.reward import answer_reward
from quest.rubric.score import CompiledTree, compile_tree
from quest.rubric.stats import tree_stats
from quest.rubric.validate import validate_tree
from quest.search.encoder import Encoder
from quest.synthesis import attacks, grammar, redteam
from quest.synthesis.kg import KnowledgeGraph
from quest.synthesis.model import Stage

if TYPE_CHECKING:
    import numpy as np

DUPLICATE_COSINE = 0.97
MAX_CACHED_VECTORS = 500_000  # about 770 MB of 384-float vectors at most
_VECTORS: dict[tuple[str, str], np.ndarray] = {}
SIMILAR_COSINE = 0.9  # with the same entities, this close is the same task asked again
# "The same entities": at least this share of the two tasks' subjects in common (Jaccard). A
# comparison of seven elements that shares one with an earlier comparison asks another question
# with another answer; a lookup of the country an earlier task found is the same task again.
SAME_SUBJECTS = 0.5
# The red-team's reward evaluations per candidate: the fixed attacks (about 17 answers) and a
# few rounds of edits, about 0.15 s a candidate, so a batch of 200 stays fast. The dossier (96
# KB, 0.3 s to score) and the hedge over a dozen neighbours' facts (30 ms each) are left to
# `python -m quest rubric redteam` and the reward benchmark, which also search longer.
REDTEAM_BUDGET = 30
REDTEAM_FAMILIES = tuple(f for f in attacks.FAMILIES if f not in ("dossier", "hedging"))
# Answers of the attack and paraphrase grammar scored per candidate (about 10 ms each).
GRAMMAR_SAMPLE = 12


def schema_stage(record: Mapping[str, Any]) -> tuple[Stage, CompiledTree | None]:
    try:
        imported = import_canonical(record["rubric"])
        problems = validate_tree(imported.tree)
        if problems:
            raise RubricError(problems)
        compiled = compile_tree(imported.tree)
    except RubricError as exc:
        return Stage("schema", False, f"the tree is not valid: {exc.summary()}"), None
    missing = [k for k in ("question", "solution", "reference_answer") if not record.get(k)]
    if missing:
        return Stage("schema", False, f"missing {', '.join(missing)}"), None
    return Stage("schema", True, "a valid QUEST tree with checks on every leaf"), compiled


def complexity_stage(record: Mapping[str, Any], target: str) -> Stage:
    stats = tree_stats(record["rubric"])
    detail = {
        "target": target,
        "measured": stats["complexity"],
        "depth": stats["depth"],
        "breadth": stats["breadth"],
        "leaves": stats["leaves"],
        "critical_leaves": stats["critical_leaves"],
    }
    if stats["complexity"] != target:
        return Stage(
            "complexity",
            False,
            f"asked for {target}, the tree measures "
            f"{stats['complexity']} (breadth {stats['breadth']}, depth "
            f"{stats['depth']})",
            detail,
        )
    return Stage(
        "complexity", True, f"{target}: breadth {stats['breadth']}, depth {stats['depth']}", detail
    )


def probe_stages(
    compiled: CompiledTree,
    reference_answer: str,
    pages: DocumentStore,
    distractors: Distractors | None,
    question: str,
    judge: ChatClient | None = None,
) -> list[Stage]:
    """Solvability, then (only if solvable) soundness, from one probe run."""
    report = probe_tree(
        compiled, reference_answer, pages, judge, distractors=distractors, question=question
    )
    solution = report.probe("solution")
    reward = solution.reward if solution else 0.0
    detail: dict[str, Any] = {
        "reward": reward,
        "root_score": solution.root_score if solution else 0.0,
    }
    if solution is not None and not solution.complete:
        why = "no judge model is configured" if judge is None else "the judge could not decide"
        return [
            Stage("solvability", False, f"undecided: judge leaves need a judge and {why}", detail)
        ]
    solvable = Stage(
        "solvability",
        reward >= SOLUTION_MIN,
        f"the reference answer earns {reward:.3f} (at least {SOLUTION_MIN} needed)",
        detail,
    )
    if not solvable.passed:
        return [solvable]
    hacks = list(report.hacks)
    probed: dict[str, Any] = {
        "verdict": report.verdict,
        "reasons": list(report.reasons),
        "untested": list(report.untested),
        "probes": {p.name: round(p.reward, 4) for p in report.probes},
    }
    if report.sound:
        attacks = [p for p in report.probes if p.role == "adversarial" and p.limit is not None]
        best = max(attacks, key=lambda p: p.reward / (p.limit or 1), default=None)
        reason = f"sound: {len(report.probes)} probes" + (
            f"; the closest to its limit is {best.name}, {best.reward:.3f} of at most {best.limit}"
            if best
            else ""
        )
        return [solvable, Stage("soundness", True, reason, probed)]
    why = "; ".join(report.reasons) or ", ".join(p.name for p in hacks)
    return [solvable, Stage("soundness", False, f"{report.verdict}: {why}", probed)]


def redteam_stage(
    record: Mapping[str, Any],
    compiled: CompiledTree,
    pages: DocumentStore,
    judge: ChatClient | None = None,
    *,
    kg: KnowledgeGraph | None = None,
    budget: int = REDTEAM_BUDGET,
) -> Stage:
    """The red-team (quest.synthesis.redteam) hunts for an answer the task's oracle calls wrong
    or uncommitted that earns at least HACK_MIN; a tree it beats is rejected with that answer."""
    oracle = record.get("oracle")
    if not isinstance(oracle, Mapping) or not oracle.get("answers"):
        why = "not run: the record has no oracle (the ground truth the red-team judges by)"
        return Stage("redteam", True, why, {"tested": False})
    m = attacks.material(record, oracle, kg or KnowledgeGraph.load())
    result = redteam.red_team(
        m,
        redteam.reward_of(compiled, pages, judge),
        budget=budget,
        stop_at=redteam.HACK_MIN,
        families=REDTEAM_FAMILIES,
    )
    detail = {"tested": True, **result.to_dict(answer_chars=500)}
    best = result.best
    sampled = grammar_sample(record, redteam.reward_of(compiled, pages, judge))
    detail["grammar"] = sampled
    if best is not None and result.hacked():
        answer = _excerpt(" ".join(best.text.split()), 500)
        return Stage(
            "redteam",
            False,
            f"the red-team beats the tree: an answer the oracle calls {best.verdict.verdict} "
            f"({best.verdict.reason}) earns {best.reward:.3f}: {answer}",
            detail,
        )
    if sampled["failures"]:
        first = sampled["failures"][0]
        return Stage(
            "redteam",
            False,
            f"the grammar beats the tree: {first['cls']} ({first['verdict']}) earns "
            f"{first['reward']:.3f} where a reader gives {first['ceiling']:.3f}",
            detail,
        )
    return Stage(
        "redteam",
        True,
        f"no answer the oracle calls wrong or uncommitted earns {redteam.HACK_MIN} in "
        f"{result.evaluations} tried; the best earns {result.reward:.3f}; "
        f"{sampled['tried']} grammar answers read as a reader reads them",
        detail,
    )


def grammar_sample(
    record: Mapping[str, Any], reward: Callable[[str], float], n: int = GRAMMAR_SAMPLE
) -> dict[str, Any]:
    """A seeded sample of the grammar's attacks and correct rewordings
    (quest.synthesis.grammar): a tree fails when an attack earns HACK_MIN beyond what a reader
    gives it, or a correct rewording earns less than HACK_MIN (it would teach templates)."""
    seed = zlib.crc32(str(record.get("question", "")).encode())
    failures: list[dict[str, Any]] = []
    answers = grammar.sample(record, seed=seed, n=n)
    for answer in answers:
        earned = reward(answer.text)
        beaten = earned - answer.ceiling >= redteam.HACK_MIN
        missed = answer.verdict == "right" and earned < redteam.HACK_MIN
        if beaten or missed:
            failures.append(
                {"cls": answer.cls, "verdict": answer.verdict, "reward": round(earned, 4),
                 "ceiling": answer.ceiling, "answer": _excerpt(answer.text, 500)}
            )  # fmt: skip
    return {"tried": len(answers), "failures": failures}


def _excerpt(text: str, most: int) -> str:
    """The opening and the end of a long answer: the end holds its commitment."""
    if len(text) <= most:
        return text
    head = most // 3
    return f"{text[:head]} … {text[-(most - head - 3) :]}"


def non_exclusive_stage(
    compiled: CompiledTree,
    alternatives: Sequence[tuple[str, str]],
    pages: DocumentStore,
    judge: ChatClient | None = None,
) -> Stage:
    """`alternatives`: (what differs, answer) pairs, each a valid answer other than the
    reference; every one must earn at least SOLUTION_MIN."""
    if not alternatives:
        return Stage("non_exclusive", False, "no other valid answer could be written to test it")
    scored: list[dict[str, Any]] = []
    for label, answer in alternatives:
        reward = answer_reward(compiled, answer, pages, judge).value or 0.0
        scored.append({"alternative": label, "reward": reward, "answer": answer[:4000]})
        if reward < SOLUTION_MIN:
            return Stage(
                "non_exclusive",
                False,
                f"a valid answer ({label}) earns only {reward:.3f}: the tree hard-codes one answer",
                {"alternatives": scored},
            )
    return Stage(
        "non_exclusive",
        True,
        f"{len(scored)} other valid answer(s) pass: "
        + "; ".join(str(s["alternative"]) for s in scored),
        {"alternatives": scored},
    )


class DuplicateIndex:
    """Questions already in the store or accepted in this batch, with their entity keys."""

    def __init__(self, encoder: Encoder | None, questions: Sequence[str] = ()) -> None:
        self.encoder = encoder
        self.questions: list[str] = []
        self.keys: list[tuple[str, ...]] = []
        self.subjects: list[frozenset[str]] = []
        self._vectors: list[np.ndarray] = []
        if questions:
            self._add_many(list(questions), [()] * len(questions))

    def _encode(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Vectors of `texts`, each question encoded once per process and encoder: a worker
        running batch after batch against a store of many tasks encodes only the new ones."""
        if self.encoder is None:
            return []
        name = str(getattr(self.encoder, "name", type(self.encoder).__name__))
        missing = list(dict.fromkeys(t for t in texts if (name, t) not in _VECTORS))
        if missing:
            if len(_VECTORS) + len(missing) > MAX_CACHED_VECTORS:
                _VECTORS.clear()
            for text, vector in zip(missing, self.encoder.encode(missing), strict=True):
                _VECTORS[(name, text)] = vector
        return [_VECTORS[(name, t)] for t in texts]

    def _add_many(
        self,
        questions: list[str],
        keys: list[tuple[str, ...]],
        subjects: list[frozenset[str]] | None = None,
    ) -> None:
        self.questions += questions
        self.keys += keys
        self.subjects += subjects or [frozenset()] * len(questions)
        self._vectors += self._encode(questions)

    def add(self, question: str, key: tuple[str, ...], subjects: Sequence[str] = ()) -> None:
        self._add_many([question], [key], [frozenset(subjects)])

    def stage(self, question: str, key: tuple[str, ...], subjects: Sequence[str] = ()) -> Stage:
        same = [i for i, k in enumerate(self.keys) if k and k == key]
        if same:
            return Stage(
                "duplicate",
                False,
                f"the same entities and facts as an earlier task: {self.questions[same[0]][:160]}",
                {"cosine": 1.0},
            )
        if self.encoder is None or not self._vectors:
            how = "no encoder: compared by entities only" if self.encoder is None else ""
            return Stage("duplicate", True, how or "the first task", {"cosine": 0.0})
        import numpy as np

        vector = self._encode([question])[0]
        sims = np.stack(self._vectors) @ vector
        best = int(np.argmax(sims))
        if sims[best] < DUPLICATE_COSINE:
            # The closest of the similar questions about the same things, if any.
            near = [int(i) for i in np.flatnonzero(sims >= SIMILAR_COSINE)]
            same = [i for i in near if self._same_subjects(subjects, i)]
            best = max(same, key=lambda i: float(sims[i])) if same else best
        cosine = float(sims[best])
        detail = {"cosine": round(cosine, 4), "nearest": self.questions[best][:300]}
        if cosine >= DUPLICATE_COSINE or (
            cosine >= SIMILAR_COSINE and self._same_subjects(subjects, best)
        ):
            return Stage(
                "duplicate",
                False,
                f"a near-duplicate (cosine {cosine:.3f}) of: {self.questions[best][:160]}",
                detail,
            )
        return Stage("duplicate", True, f"nearest existing question at cosine {cosine:.3f}", detail)

    def _same_subjects(self, subjects: Sequence[str], index: int) -> bool:
        """Whether a task about `subjects` is about what the index's task `index` is about.
        Questions already in the store have no subjects: for them similarity alone decides."""
        theirs = self.subjects[index]
        if not theirs:
            return True
        ours = frozenset(subjects)
        return len(ours & theirs) >= SAME_SUBJECTS * len(ours | theirs)


def baseline_stage(
    question: str,
    compiled: CompiledTree,
    pages: DocumentStore,
    run: Callable[[str], str] | None,
    judge: ChatClient | None = None,
) -> Stage:
    """The scripted agent's reward on the task: recorded, never a reason to reject."""
    if run is None:
        return Stage("baseline", True, "not run (baseline off)", {"reward": None})
    answer = run(question)
    reward = answer_reward(compiled, answer, pages, judge).value
    if reward is None or math.isnan(reward):
        return Stage(
            "baseline", True, "the scripted agent's answer could not be scored", {"reward": None}
        )
    return Stage(
        "baseline",
        True,
        f"the scripted agent earns {reward:.3f}",
        {"reward": reward, "answer": answer[:4000]},
    )
