"""Evaluating an answer against a tree: run every leaf check in an order that respects the
preconditions, so leaves whose outcome can no longer matter are skipped without a judge call."""

from __future__ import annotations

from quest.rubric.binding import tree_names
from quest.rubric.checks import run_check
from quest.rubric.documents import DocumentStore
from quest.rubric.judge import ChatClient
from quest.rubric.model import RubricTree
from quest.rubric.preconditions import Preconditions, evaluation_order
from quest.rubric.reading import CheckContext
from quest.rubric.report import ScoreReport
from quest.rubric.score import CompiledTree, compile_tree
from quest.rubric.verdict import LeafVerdict
from quest.text.aliases import aliases
from quest.text.fold import fold


def evaluate(
    tree: RubricTree | CompiledTree,
    answer: str,
    store: DocumentStore | None = None,
    judge: ChatClient | None = None,
    *,
    task: str | None = None,
) -> ScoreReport:
    """Check every leaf of `tree` against `answer` and score the verdicts. Judge leaves with no
    judge configured get an `error` verdict ("no judge configured"), so the report says it is
    incomplete rather than scoring them as failures."""
    compiled = tree if isinstance(tree, CompiledTree) else compile_tree(tree)
    ctx = check_context(compiled, answer, store, judge, task=task)
    return compiled.score(leaf_verdicts(compiled, ctx))


def check_context(
    compiled: CompiledTree,
    answer: str,
    store: DocumentStore | None = None,
    judge: ChatClient | None = None,
    *,
    task: str | None = None,
) -> CheckContext:
    """What the checks of `compiled` read for `answer`, with the tree's names for binding."""
    return CheckContext(
        answer=answer,
        task=compiled.tree.task_description if task is None else task,
        store=store,
        judge=judge,
        names=known_names(compiled),
        list_most=list_size(compiled),
    )


def known_names(compiled: CompiledTree) -> frozenset[str]:
    """The tree's names (quest.rubric.binding) and the other names a country goes by, folded,
    so a fact about "the Czech Republic" is a fact about Czechia."""
    names = tree_names(leaf.check for leaf in compiled.tree.leaves() if leaf.check)
    return frozenset(fold(alias) for name in names for alias in aliases(name))


def list_size(compiled: CompiledTree) -> int:
    """The k of a "find k" tree: the most items its committed list slots ask for (0 if none)."""
    sizes = [
        leaf.check.params.get("at_least", 1)
        for leaf in compiled.tree.leaves()
        if leaf.check and leaf.check.kind == "one_of" and leaf.check.params.get("committed")
    ]
    return max((s for s in sizes if isinstance(s, int)), default=0)


def leaf_verdicts(compiled: CompiledTree, ctx: CheckContext) -> dict[str, LeafVerdict]:
    tracker = Preconditions(compiled)
    verdicts: dict[str, LeafVerdict] = {}
    for leaf_id in evaluation_order(compiled):
        blocker = tracker.blocker(leaf_id)
        if blocker is not None:
            verdict = LeafVerdict(
                "skipped", reasoning=f"precondition: {blocker}", judge="precondition"
            )
        else:
            check = compiled.nodes[compiled.index[leaf_id]].check
            assert check is not None  # compile_tree validated that every leaf has one
            verdict = run_check(check, ctx)
        tracker.record(leaf_id, verdict.status)
        verdicts[leaf_id] = verdict
    return verdicts
