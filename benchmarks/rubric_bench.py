"""Rubric scoring speed: quest.rubric's compiled scorer against a straightforward baseline.

    .venv/bin/python benchmarks/rubric_bench.py [--trees N] [--group-trees M] [--seed S]

N random trees (default 10,000; 50-300 nodes; branching 2-6; up to 7 levels; 30% of children
critical; 25% of internal nodes sequential), each with 8 random verdict sets (70% pass, 25%
fail, 3% error, 2% missing).

The baseline is what one writes first: a recursive pydantic v2 model whose nodes carry their
own score and status (the shape of Mind2Web 2's verification tree), scored by a recursive
method with the same rules (QUEST-SPEC §1.1, the same status precedence, the same bracket for
undecided leaves). Both sides parse their tree once, beforehand; both receive a fresh verdict
dict per call, built outside the timer, as a scorer in a training loop does. Outside the timed
sections the benchmark checks that both give identical root scores, brackets, and per-node
scores and statuses, and exits non-zero if they differ.

Passes: "first" and "second" each score every tree once (new verdicts each time); "groups"
scores M trees 8 times each, back to back, the way GRPO scores a group of 8 rollouts of one
task (compile once, score many). Timed per call: root score and its upper bracket. The
"+status" column also derives every node's status, which the baseline computes anyway.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quest.rubric import (
    Check,
    CompiledTree,
    Node,
    RubricTree,
    ScoreReport,
    compile_tree,
)

GROUP = 8
BUCKETS = ((50, 100), (100, 150), (150, 200), (200, 250), (250, 301))
Statuses = list[tuple[str, str]]


# -- random trees ------------------------------------------------------------------------------


def random_tree(rng: random.Random, size: int) -> dict[str, Any]:
    """A tree of exactly `size` nodes as nested dicts (id, critical, strategy, children)."""
    nodes: list[dict[str, Any]] = [{"id": "n0", "critical": False}]
    depth = {0: 1}
    frontier = [0]
    while len(nodes) < size:
        parent = rng.choice([i for i in frontier if depth[i] < 7])
        frontier.remove(parent)
        for _ in range(min(rng.randint(2, 6), size - len(nodes))):
            index = len(nodes)
            critical = nodes[parent]["critical"] or rng.random() < 0.3
            child = {"id": f"n{index}", "critical": critical}
            nodes[parent].setdefault("children", []).append(child)
            nodes.append(child)
            depth[index] = depth[parent] + 1
            frontier.append(index)
    for node in nodes:
        if "children" in node:
            node["strategy"] = "sequential" if rng.random() < 0.25 else "parallel"
    return nodes[0]


def as_rubric(data: dict[str, Any]) -> Node:
    children = tuple(as_rubric(child) for child in data.get("children", ()))
    return Node(
        data["id"],
        f"node {data['id']}",
        critical=data["critical"],
        strategy=data.get("strategy", "parallel"),
        children=children,
        check=None if children else Check.judge(f"claim {data['id']}"),
    )


def random_statuses(rng: random.Random, leaf_ids: Sequence[str]) -> Statuses:
    out = []
    for leaf in leaf_ids:
        roll = rng.random()
        if roll < 0.98:
            out.append((leaf, "pass" if roll < 0.70 else "fail" if roll < 0.95 else "error"))
    return out


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

    def compute(self, verdicts: dict[str, str], undecided_pass: bool = False) -> float:
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


def baseline_score(root: BaselineNode, verdicts: dict[str, str]) -> tuple[float, float]:
    """(root score, upper bracket); the tree is left holding the states of the first."""
    leaves = (n for n in root.walk() if not n.children)
    undecided = any(verdicts.get(n.id) in (None, "error") for n in leaves)
    upper = root.compute(verdicts, undecided_pass=True) if undecided else None
    lower = root.compute(verdicts)
    return lower, lower if upper is None else upper


# -- measuring ---------------------------------------------------------------------------------


@dataclass
class Case:
    size: int
    baseline: BaselineNode
    compiled: CompiledTree
    verdicts: list[Statuses]


@dataclass
class Pass:
    seconds: float
    per_case: list[float]
    roots: list[tuple[float, float]]


def run_ours(
    cases: Sequence[Case], which: int, keep: list[ScoreReport] | None = None, statuses: bool = False
) -> Pass:
    per_case, roots = [], []
    clock = time.perf_counter
    for case in cases:
        verdicts = dict(case.verdicts[which])
        start = clock()
        report = case.compiled.score(verdicts)
        root = (report.root_score, report.root_score_upper)
        if statuses:
            _ = report.root_status  # derives every node's status
        per_case.append(clock() - start)
        roots.append(root)
        if keep is not None:
            keep.append(report)
    return Pass(sum(per_case), per_case, roots)


def run_baseline(cases: Sequence[Case], which: int) -> Pass:
    per_case, roots = [], []
    clock = time.perf_counter
    for case in cases:
        verdicts = dict(case.verdicts[which])
        start = clock()
        root = baseline_score(case.baseline, verdicts)
        per_case.append(clock() - start)
        roots.append(root)
    return Pass(sum(per_case), per_case, roots)


def run_groups(cases: Sequence[Case], ours: bool, statuses: bool = False) -> float:
    total = 0.0
    clock = time.perf_counter
    for case in cases:
        for which in range(GROUP):
            verdicts = dict(case.verdicts[which])
            start = clock()
            if ours:
                report = case.compiled.score(verdicts)
                _ = report.root_score_upper
                if statuses:
                    _ = report.root_status
            else:
                baseline_score(case.baseline, verdicts)
            total += clock() - start
    return total


def without_gc(function: Any, *args: Any) -> Any:
    gc.collect()
    gc.disable()
    try:
        return function(*args)
    finally:
        gc.enable()


def verify(cases: Sequence[Case], ours: Pass, reports: list[ScoreReport], baseline: Pass) -> None:
    """Same roots and brackets, and (from the baseline's last pass) the same node states."""
    for number, (case, report) in enumerate(zip(cases, reports, strict=True)):
        if ours.roots[number] != baseline.roots[number]:
            mine, theirs = ours.roots[number], baseline.roots[number]
            raise SystemExit(f"tree {number}: ours {mine} != baseline {theirs}")
        for node in case.baseline.walk():
            got = (report.score_of(node.id), report.status_of(node.id))
            if got != (node.score, node.status):
                expected = (node.score, node.status)
                raise SystemExit(f"tree {number} node {node.id}: ours {got} != {expected}")


def build(trees: int, seed: int) -> tuple[list[Case], float, float]:
    rng = random.Random(seed)
    shapes = [random_tree(rng, rng.randint(50, 300)) for _ in range(trees)]
    start = time.perf_counter()
    models = [BaselineNode.model_validate(shape) for shape in shapes]
    parse = time.perf_counter() - start
    rubrics = [RubricTree(as_rubric(shape)) for shape in shapes]
    start = time.perf_counter()
    compiled = [compile_tree(rubric) for rubric in rubrics]
    compile_seconds = time.perf_counter() - start
    cases = [
        Case(len(c.ids), model, c, [random_statuses(rng, c.leaf_ids) for _ in range(GROUP)])
        for model, c in zip(models, compiled, strict=True)
    ]
    return cases, parse, compile_seconds


def row(name: str, calls: int, ours: float, full: float, base: float, nodes: int) -> str:
    return (
        f"{name:<10}{calls / ours:>10,.0f}{ours / nodes * 1e6:>9.3f}{full / nodes * 1e6:>10.3f}"
        f"{base / nodes * 1e6:>10.3f}{base / ours:>8.1f}x{base / full:>9.1f}x"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="quest.rubric scoring benchmark")
    parser.add_argument("--trees", type=int, default=10_000)
    parser.add_argument("--group-trees", type=int, default=1_250)
    parser.add_argument("--seed", type=int, default=20260)
    args = parser.parse_args(argv)
    cases, parse_s, compile_s = build(args.trees, args.seed)
    nodes = sum(case.size for case in cases)
    python = sys.version.split()[0]
    print(f"{len(cases)} trees, {nodes} nodes ({nodes / len(cases):.0f} per tree), Python {python}")
    print(
        f"once per tree: pydantic model_validate {parse_s / len(cases) * 1e6:.0f} us, "
        f"compile_tree (validates) {compile_s / len(cases) * 1e6:.0f} us\n"
    )
    lines, scaling = [], None
    for which, name in ((0, "first"), (1, "second")):
        reports: list[ScoreReport] = []
        ours = without_gc(run_ours, cases, which, reports)
        full = without_gc(run_ours, cases, which, None, True)
        base = without_gc(run_baseline, cases, which)
        verify(cases, ours, reports, base)
        lines.append(row(name, len(cases), ours.seconds, full.seconds, base.seconds, nodes))
        scaling = (ours, base)
    group = cases[: args.group_trees]
    group_nodes = sum(case.size for case in group) * GROUP
    ours_g = without_gc(run_groups, group, True)
    full_g = without_gc(run_groups, group, True, True)
    base_g = without_gc(run_groups, group, False)
    lines.append(row("groups", len(group) * GROUP, ours_g, full_g, base_g, group_nodes))

    print("per call: ours = root score + bracket; +status = also every node's status")
    header = f"{'pass':<10}{'calls/s':>10}{'ours':>9}{'+status':>10}{'baseline':>10}"
    header += f"{'speed-up':>9}{'+status':>10}"
    units = f"{'':<10}{'':>10}{'us/node':>9}{'us/node':>10}{'us/node':>10}"
    print(f"{header}\n{units}")
    print("\n".join(lines))
    print(f"(groups: {len(group)} trees x {GROUP} verdict sets, scored back to back)")
    assert scaling is not None
    print_scaling(cases, *scaling)
    print("\nidentical to the baseline: every root, bracket, node score and status (checked)")
    return 0


def print_scaling(cases: Sequence[Case], ours: Pass, base: Pass) -> None:
    print("\nscaling, second pass (us per node)")
    print(f"{'nodes':<10}{'trees':>7}{'ours':>9}{'baseline':>10}{'speed-up':>10}")
    for low, high in BUCKETS:
        picked = [i for i, case in enumerate(cases) if low <= case.size < high]
        size = sum(cases[i].size for i in picked)
        mine = sum(ours.per_case[i] for i in picked) / size * 1e6
        theirs = sum(base.per_case[i] for i in picked) / size * 1e6
        label = f"{low}-{min(high, 300)}"
        print(f"{label:<10}{len(picked):>7}{mine:>9.3f}{theirs:>10.3f}{theirs / mine:>9.1f}x")


if __name__ == "__main__":
    raise SystemExit(main())
