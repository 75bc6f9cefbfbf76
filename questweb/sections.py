"""The workbench's sections, as the navigation shows them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    slug: str
    title: str
    summary: str


SECTIONS: tuple[Section, ...] = (
    Section(
        "tasks",
        "Tasks",
        "Synthetic research tasks with their rubric trees: browse, filter, read the tree, try an "
        "answer and watch it score leaf by leaf.",
    ),
    Section(
        "audit",
        "Audit",
        "Annotators' queue: claim the next tree, mark each node correct, wrong or unverifiable, "
        "edit it as a new version; reviewers adjudicate and watch error rates.",
    ),
    Section(
        "live",
        "Live",
        "Agent sessions streamed as they run: tool calls, pages read, the condensed research "
        "state, the cited report and the rubric tree lighting up.",
    ),
    Section(
        "synthesis",
        "Synthesis",
        "Task synthesis batches: topic, exploration of the corpus, constraints, rubric tree, "
        "question and verification, with progress and rejects.",
    ),
    Section(
        "training",
        "Training",
        "SFT and GRPO jobs on Celery GPU workers: config preview, live reward curves, sample "
        "rollouts, checkpoints and comparisons.",
    ),
    Section(
        "recipes",
        "Recipes",
        "QUEST's loop on one page: synthesize, gate by a human audit, collect trajectories, SFT, "
        "GRPO and evaluate on held-out tasks, each stage linked to what it made.",
    ),
    Section(
        "benchmarks",
        "Benchmarks",
        "A checkpoint or an endpoint on BrowseComp-Plus, Search-R1 / FlashRAG and FRAMES in their "
        "own formats and metrics, beside the published numbers for the same protocol.",
    ),
    Section(
        "corpus",
        "Corpus",
        "The offline web the agents search: sources, licences, documents, and the state of the "
        "BM25 and dense indexes.",
    ),
)

BY_SLUG = {section.slug: section for section in SECTIONS}
