"""A task's reference solution as answer text: what the judge suggestions and the probes score."""

from __future__ import annotations

from typing import Any

from apps.rubrics.models import Task
from apps.rubrics.tree_view import solution_items


def solution_text(solution: dict[str, Any]) -> str:
    """QUEST's `{item: {description, reference_urls}}` as one line per item, each citing its
    sources as Markdown links."""
    lines = []
    for item in solution_items(solution):
        head = f"{item['name']}: " if item["name"] else ""
        sources = "".join(f" [{url}]({url})" for url in item["urls"])
        lines.append(f"{head}{item['description']}{sources}")
    return "\n".join(lines)


def probe_text(task: Task) -> str:
    """The answer the probes take as the reference: the written reference answer, else one
    made from the solution items."""
    return task.reference_answer.strip() or solution_text(task.solution or {})
