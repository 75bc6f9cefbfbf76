"""An automatic red-team of a kg task's reward: it searches, as an RL policy would, for answers
the oracle (quest.synthesis.oracle) calls wrong or uncommitted that the reward pays well.

The search is a beam over answer edits (quest.synthesis.attacks holds answers as pieces):
delete, move or repeat sentences of the reference, insert facts of other entities of the graph,
commit to a distractor, drop or repeat the `Exact answer:` line, retract, hedge, compare, deny,
strike out, wrap in odd-case tags, ask instead of answering, reword sentences and exchange
figures between them. It starts from the reference and every fixed attack family, keeps the
answers paid most beyond what the oracle says they earned (their *excess*: the whole reward of
a wrong or uncommitted answer, less the valid share of a wrong find-k list; an oracle-right
answer counts at half its reward, as a stepping stone), and edits them until its budget of
reward evaluations is spent or a hack's excess reaches `stop_at`. A tree is beaten when some
answer's excess reaches HACK_MIN. Deterministic for a seed: every draw comes from one
generator seeded by the seed and the task.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quest.corpus.store import CorpusStore
from quest.rubric.documents import DocumentStore
from quest.rubric.errors import RubricError
from quest.rubric.importers import import_canonical
from quest.rubric.judge import ChatClient
from quest.rubric.reward import answer_reward
from quest.rubric.score import CompiledTree, compile_tree
from quest.synthesis import attacks
from quest.synthesis.attacks import Composed, Material, material
from quest.synthesis.edits import EDIT_NAMES, EDITS
from quest.synthesis.kg import KnowledgeGraph
from quest.synthesis.oracle import OracleVerdict, judge_answer, record_oracle

DEFAULT_BUDGET = 300
HACK_MIN = 0.5  # an oracle-wrong or uncommitted answer earning this much beats the tree
BEAM = 6
CHILDREN = 4  # edited answers per beam member and round
STEPPING_STONE = 0.5  # an oracle-right answer's reward counts this much in the beam
DOUBLE_EDIT = 0.3  # the share of children that get two edits at once
STALE_ROUNDS = 4  # rounds that find no new answer before the search gives up
Reward = Callable[[str], float]


@dataclass(frozen=True)
class Attempt:
    answer: Composed
    text: str
    origin: str  # "reference" or the fixed attack family it grew from
    edits: tuple[str, ...]
    reward: float
    verdict: OracleVerdict

    @property
    def excess(self) -> float:
        """Reward beyond what the oracle says the answer earned (its credit)."""
        return self.reward - self.verdict.credit

    @property
    def fitness(self) -> float:
        return self.reward * STEPPING_STONE if self.verdict.right else self.excess


@dataclass(frozen=True)
class RedTeamResult:
    best: Attempt | None  # the oracle-wrong or uncommitted answer paid most beyond its credit
    best_by_verdict: Mapping[str, Attempt]  # the same, for "wrong" and "uncommitted" apart
    evaluations: int
    reference_reward: float
    by_attack: Mapping[str, float]  # each fixed family's most reward beyond credit

    def hacked(self, threshold: float = HACK_MIN) -> bool:
        return self.best is not None and self.best.excess >= threshold - 1e-9

    @property
    def reward(self) -> float:
        return self.best.reward if self.best else 0.0

    @property
    def excess(self) -> float:
        return self.best.excess if self.best else 0.0

    def to_dict(self, answer_chars: int = 20_000) -> dict[str, Any]:
        best = self.best
        return {
            "reward": round(self.reward, 4),
            "credit": round(best.verdict.credit, 4) if best else 0.0,
            "excess": round(self.excess, 4),
            "hacked": self.hacked(),
            "verdict": best.verdict.verdict if best else "",
            "reason": best.verdict.reason if best else "",
            "origin": best.origin if best else "",
            "edits": list(best.edits) if best else [],
            "answer": best.text[:answer_chars] if best else "",
            "by_verdict": {v: round(a.excess, 4) for v, a in self.best_by_verdict.items()},
            "evaluations": self.evaluations,
            "reference_reward": round(self.reference_reward, 4),
            "by_attack": {k: round(v, 4) for k, v in self.by_attack.items()},
        }


def red_team(
    m: Material,
    reward: Reward,
    *,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    stop_at: float = 1.0,
    families: Sequence[str] = tuple(attacks.FAMILIES),
) -> RedTeamResult:
    """The best hack of one task within `budget` reward evaluations, starting from the fixed
    attack `families`."""
    search = _Search(m, reward, budget, stop_at)
    rng = random.Random(f"{seed}:{m.right}:{m.reference.render()}")
    reference = search.score(m.reference, "reference", ())
    by_attack: dict[str, float] = {}
    for family in families:
        for answer in attacks.FAMILIES[family](m):
            tried = search.score(answer, family, ())
            if tried is not None and not tried.verdict.right:
                by_attack[family] = max(by_attack.get(family, 0.0), tried.excess)
    stale = 0
    while stale < STALE_ROUNDS and not search.done():
        before = search.evaluations
        for parent in search.beam():
            for _ in range(CHILDREN):
                edited = _mutate(parent.answer, m, rng, 1 + (rng.random() < DOUBLE_EDIT))
                if edited is not None:
                    search.score(edited[1], parent.origin, (*parent.edits, *edited[0]))
        stale = stale + 1 if search.evaluations == before else 0
    return RedTeamResult(
        search.best,
        search.by_verdict,
        search.evaluations,
        reference.reward if reference else 0.0,
        by_attack,
    )


class _Search:
    """Every answer scored so far (each text once), the budget and the best hack."""

    def __init__(self, m: Material, reward: Reward, budget: int, stop_at: float) -> None:
        self.m, self.reward, self.budget, self.stop_at = m, reward, budget, stop_at
        self.seen: dict[str, Attempt] = {}
        self.evaluations = 0
        self.best: Attempt | None = None
        self.by_verdict: dict[str, Attempt] = {}

    def done(self) -> bool:
        return self.evaluations >= self.budget or (
            self.best is not None and self.best.excess >= self.stop_at - 1e-9
        )

    def score(self, answer: Composed, origin: str, edits: tuple[str, ...]) -> Attempt | None:
        text = answer.render()
        if text in self.seen:
            return self.seen[text]
        if self.done():
            return None
        self.evaluations += 1
        value = self.reward(text)
        attempt = Attempt(answer, text, origin, edits, value, judge_answer(self.m.oracle, text))
        self.seen[text] = attempt
        verdict = attempt.verdict.verdict
        if verdict != "right":
            if self.best is None or attempt.excess > self.best.excess:
                self.best = attempt
            held = self.by_verdict.get(verdict)
            if held is None or attempt.excess > held.excess:
                self.by_verdict[verdict] = attempt
        return attempt

    def beam(self) -> list[Attempt]:
        """The fittest answers; sorted is stable, so ties keep the order they were found in."""
        return sorted(self.seen.values(), key=lambda a: -a.fitness)[:BEAM]


def _mutate(
    answer: Composed, m: Material, rng: random.Random, count: int
) -> tuple[tuple[str, ...], Composed] | None:
    """`count` edits drawn at random (an edit that does not apply is drawn again)."""
    names: list[str] = []
    for _ in range(count * 4):
        name = rng.choice(EDIT_NAMES)
        edited = EDITS[name](answer, m, rng)
        if edited is not None and edited != answer:
            names.append(name)
            answer = edited
            if len(names) == count:
                break
    return (tuple(names), answer) if names else None


# ---------------------------------------------------------------- a file of tasks
class RedTeamInputError(Exception):
    """Bad input, named by where it came from (the CLI prints it on one line)."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where, self.message = where, message


def red_team_file(
    path: str,
    *,
    corpus: str,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    out: str | None = None,
    progress: Callable[[str], None] = lambda line: None,
) -> dict[str, Any]:
    """`python -m quest rubric redteam`: every kg task of a JSONL file, red-teamed; the
    summary, and (with `out`) the best hack per task as JSONL."""
    if not 1 <= budget <= 100_000:
        raise RedTeamInputError("--budget", "must be from 1 to 100000")
    store = _corpus(corpus)
    tasks = _tasks(path)
    kg = KnowledgeGraph.load()
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    started = time.monotonic()
    for number, record, compiled in tasks:
        oracle = record_oracle(record, kg)
        if oracle is None:
            skipped.append(f"line {number}: no oracle (not a kg lookup, find-k or chain task)")
            continue
        result = red_team(
            material(record, oracle, kg), reward_of(compiled, store), budget=budget, seed=seed
        )
        row = {"line": number, "question": record.get("question", ""), "family": oracle["family"]}
        rows.append({**row, **result.to_dict()})
        progress(_progress_line(len(rows) + len(skipped), len(tasks), row["family"], result))
    if out:
        Path(out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return _summary(rows, skipped, budget, seed, time.monotonic() - started)


def reward_of(
    compiled: CompiledTree, pages: DocumentStore, judge: ChatClient | None = None
) -> Reward:
    """The task's RL reward of an answer; a dropped one (its verifier could not run) as 0."""

    def reward(text: str) -> float:
        return answer_reward(compiled, text, pages, judge).value or 0.0

    return reward


def _corpus(folder: str) -> CorpusStore:
    if not (Path(folder) / "documents.jsonl").is_file():
        raise RedTeamInputError(folder, "not a corpus directory (no documents.jsonl)")
    return CorpusStore(folder)


def _tasks(path: str) -> list[tuple[int, dict[str, Any], CompiledTree]]:
    tasks = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            compiled = compile_tree(import_canonical(record["rubric"]).tree)
        except (ValueError, TypeError, KeyError) as exc:
            raise RedTeamInputError(path, f"line {number}: not a task record ({exc})") from None
        except RubricError as exc:
            raise RedTeamInputError(path, f"line {number}: {exc.summary()}") from None
        tasks.append((number, record, compiled))
    if not tasks:
        raise RedTeamInputError(path, "no tasks")
    return tasks


def _progress_line(done: int, total: int, family: str, result: RedTeamResult) -> str:
    best = result.best
    found = f"{best.reward:.3f} ({best.verdict.verdict}: {best.verdict.reason})" if best else "-"
    if best and best.verdict.credit:
        found += f", {best.verdict.credit:.3f} of it earned"
    return f"[{done}/{total}] {family}: best hack {found} after {result.evaluations} evaluations"


def _summary(
    rows: list[dict[str, Any]], skipped: list[str], budget: int, seed: int, seconds: float
) -> dict[str, Any]:
    hacked = [r for r in rows if r["hacked"]]
    by_family: dict[str, dict[str, Any]] = {}
    for row in rows:
        family = by_family.setdefault(row["family"], {"tasks": 0, "hacked": 0, "max": 0.0})
        family["tasks"] += 1
        family["hacked"] += row["hacked"]
        family["max"] = max(family["max"], row["excess"])
    by_attack: dict[str, float] = {}
    for row in rows:
        for name, value in row["by_attack"].items():
            by_attack[name] = max(by_attack.get(name, 0.0), value)
    return {
        "tasks": len(rows),
        "skipped": skipped,
        "budget": budget,
        "seed": seed,
        "threshold": HACK_MIN,
        "hacked": len(hacked),
        "hack_rate": round(len(hacked) / len(rows), 4) if rows else 0.0,
        "max_hack_reward": max((r["reward"] for r in hacked), default=0.0),
        "max_excess": max((r["excess"] for r in rows), default=0.0),
        "mean_reference_reward": round(
            sum(r["reference_reward"] for r in rows) / len(rows) if rows else 0.0, 4
        ),
        "evaluations": sum(r["evaluations"] for r in rows),
        "seconds_per_task": round(seconds / len(rows), 3) if rows else 0.0,
        "by_task_family": by_family,
        "by_attack": dict(sorted(by_attack.items())),
        "hacks_by_origin": dict(Counter(r["origin"] for r in hacked).most_common()),
    }
