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

Batch rows (quest.rubric.batch, numpy): all trees are laid out once as one Forest
(compile_forest, timed and reported separately, like compile_tree), then ONE Forest.score call
scores every (tree, verdict set) pair; each timing is the median of 3 such calls, each on fresh
verdict dicts. Its time covers reading the verdict dicts (built outside
the timer, as above), the score pass, the upper-bracket pass, the lower bracket and `complete`
for every tree; "+status" also derives every node's status. "groups" puts the M group trees,
each repeated 8 times, in one forest (one call for all M x 8 answers); "per-group" keeps one
forest of 8 per tree and makes M calls, as a trainer scoring one GRPO group at a time would.
Every batch result (roots, brackets, complete, every node's score and status) is checked
against CompiledTree.score, which is checked against the baseline; the benchmark exits
non-zero on any difference. The scaling table scores one forest per size bucket.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
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
from quest.rubric.batch import BatchScores, Forest, compile_forest

GROUP = 8
REPEATS = 3  # batch timings are the median of this many calls (one batch call is short)
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
    compile_forest([cases[0].compiled])  # imports numpy outside the timers
    forest, forest_s = timed(compile_forest, [case.compiled for case in cases])
    print(
        f"once per tree: pydantic model_validate {parse_s / len(cases) * 1e6:.0f} us, "
        f"compile_tree (validates) {compile_s / len(cases) * 1e6:.0f} us, "
        f"then compile_forest {forest_s / len(cases) * 1e6:.1f} us "
        f"({forest_s * 1e3:.0f} ms for all {len(cases)})\n"
    )
    lines, batch_lines, scaling = [], [], None
    for which, name in ((0, "first"), (1, "second")):
        reports: list[ScoreReport] = []
        ours = without_gc(run_ours, cases, which, reports)
        full = without_gc(run_ours, cases, which, None, True)
        base = without_gc(run_baseline, cases, which)
        verify(cases, ours, reports, base)
        lines.append(row(name, len(cases), ours.seconds, full.seconds, base.seconds, nodes))
        batch, batch_s, batch_full_s = run_batch(forest, [case.verdicts[which] for case in cases])
        verify_batch([case.compiled for case in cases], reports, batch)
        batch_lines.append(row(name, len(cases), batch_s, batch_full_s, base.seconds, nodes))
        scaling = (ours, base)
    group = cases[: args.group_trees]
    group_nodes = sum(case.size for case in group) * GROUP
    ours_g = without_gc(run_groups, group, True)
    full_g = without_gc(run_groups, group, True, True)
    base_g = without_gc(run_groups, group, False)
    lines.append(row("groups", len(group) * GROUP, ours_g, full_g, base_g, group_nodes))
    batch_lines.extend(batch_groups(group, base_g, group_nodes))

    print("per call: ours = root score + bracket; +status = also every node's status")
    header = f"{'pass':<10}{'calls/s':>10}{'ours':>9}{'+status':>10}{'baseline':>10}"
    header += f"{'speed-up':>9}{'+status':>10}"
    units = f"{'':<10}{'':>10}{'us/node':>9}{'us/node':>10}{'us/node':>10}"
    print(f"{header}\n{units}")
    print("\n".join(lines))
    print(f"(groups: {len(group)} trees x {GROUP} verdict sets, scored back to back)")
    print(
        "\nbatch (numpy): one Forest.score call per row (median of 3); trees/s counts (tree,"
        " verdicts) pairs"
    )
    print(f"{header.replace('calls/s', 'trees/s')}\n{units}")
    print("\n".join(batch_lines))
    print(
        f"(groups: {len(group)} trees x {GROUP} in one forest, one call; per-group: "
        f"{len(group)} forests of {GROUP}, one call each; forests compiled beforehand)"
    )
    assert scaling is not None
    print_scaling(cases, *scaling)
    print(
        "\nidentical to the baseline: every root, bracket, node score and status (checked)"
        "\nbatch identical to CompiledTree.score: roots, brackets, complete, every node's score"
        " and status, bit for bit (checked)"
    )
    return 0


def timed(function: Any, *args: Any) -> tuple[Any, float]:
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        result = function(*args)
        return result, time.perf_counter() - start
    finally:
        gc.enable()


def median_timed(
    function: Callable[[Any], Any], make_input: Callable[[], Any]
) -> tuple[Any, float]:
    """The median of REPEATS timed calls, each on a fresh input built outside the timer."""
    runs = [timed(function, make_input()) for _ in range(REPEATS)]
    return runs[0][0], statistics.median(seconds for _, seconds in runs)


def run_batch(forest: Forest, verdicts: Sequence[Statuses]) -> tuple[BatchScores, float, float]:
    """Forest.score on fresh verdict dicts, then the same deriving every node's status too."""

    def make() -> list[dict[str, str]]:
        return [dict(pairs) for pairs in verdicts]

    batch, seconds = median_timed(forest.score, make)
    _, full = median_timed(lambda dicts: forest.score(dicts).root_statuses(), make)
    return batch, seconds, full


def verify_batch(
    trees: Sequence[CompiledTree], reports: Sequence[ScoreReport], batch: BatchScores
) -> None:
    """The batch scorer against CompiledTree.score, exactly (==, not approximately)."""
    roots = batch.root_statuses()
    for number, (compiled, report) in enumerate(zip(trees, reports, strict=True)):
        got = (
            float(batch.root_score[number]),
            float(batch.root_score_lower[number]),
            float(batch.root_score_upper[number]),
            bool(batch.complete[number]),
            roots[number],
        )
        expected = (
            report.root_score,
            report.root_score_lower,
            report.root_score_upper,
            report.complete,
            report.root_status,
        )
        if got != expected:
            raise SystemExit(f"batch tree {number}: {got} != compiled {expected}")
        scores = [report.score_of(node_id) for node_id in compiled.ids]
        statuses = [report.status_of(node_id) for node_id in compiled.ids]
        if batch.node_scores(number) != scores or batch.node_statuses(number) != statuses:
            raise SystemExit(f"batch tree {number}: node scores or statuses differ")


def batch_groups(group: Sequence[Case], base_seconds: float, group_nodes: int) -> list[str]:
    """GRPO groups: all M x 8 answers in one forest, and one forest of 8 per tree."""
    trees = [case.compiled for case in group for _ in range(GROUP)]
    pairs = [case.verdicts[which] for case in group for which in range(GROUP)]
    forest, compile_seconds = timed(compile_forest, trees)
    batch, seconds, full = run_batch(forest, pairs)
    reports = [tree.score(dict(verdicts)) for tree, verdicts in zip(trees, pairs, strict=True)]
    verify_batch(trees, reports, batch)
    forests, per_compile = timed(lambda: [compile_forest([c.compiled] * GROUP) for c in group])

    def make() -> list[list[dict[str, str]]]:
        return [[dict(case.verdicts[which]) for which in range(GROUP)] for case in group]

    def score(sets: list[list[dict[str, str]]]) -> list[BatchScores]:
        return [f.score(s) for f, s in zip(forests, sets, strict=True)]

    results, per_seconds = median_timed(score, make)
    _, per_full = median_timed(lambda sets: [r.root_statuses() for r in score(sets)], make)
    for number, (case, result) in enumerate(zip(group, results, strict=True)):
        verify_batch(
            [case.compiled] * GROUP, reports[number * GROUP : (number + 1) * GROUP], result
        )
    print(
        f"compile_forest for the groups: {compile_seconds * 1e3:.0f} ms for one forest of "
        f"{len(trees)}, {per_compile / len(group) * 1e6:.0f} us per forest of {GROUP}"
    )
    calls = len(trees)
    return [
        row("groups", calls, seconds, full, base_seconds, group_nodes),
        row("per-group", calls, per_seconds, per_full, base_seconds, group_nodes),
    ]


def print_scaling(cases: Sequence[Case], ours: Pass, base: Pass) -> None:
    print("\nscaling, second pass (us per node; batch: one forest per bucket, median of 3 calls)")
    print(
        f"{'nodes':<10}{'trees':>7}{'ours':>9}{'batch':>9}{'baseline':>10}{'speed-up':>10}{'batch':>8}"
    )
    for low, high in BUCKETS:
        picked = [i for i, case in enumerate(cases) if low <= case.size < high]
        size = sum(cases[i].size for i in picked)
        mine = sum(ours.per_case[i] for i in picked) / size * 1e6
        theirs = sum(base.per_case[i] for i in picked) / size * 1e6
        forest = compile_forest([cases[i].compiled for i in picked])
        batch = run_batch(forest, [cases[i].verdicts[1] for i in picked])[1] / size * 1e6
        label = f"{low}-{min(high, 300)}"
        print(
            f"{label:<10}{len(picked):>7}{mine:>9.3f}{batch:>9.3f}{theirs:>10.3f}"
            f"{theirs / mine:>9.1f}x{theirs / batch:>7.1f}x"
        )


if __name__ == "__main__":
    raise SystemExit(main())
