"""Flattens a canonical tree into rows a template renders without recursion.

Recursive `{% include %}` costs a template lookup per node; a flat list with explicit "close
this many levels" markers renders a 5,000-node tree in one pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from apps.common.links import http_url

# A leaf whose check errored (no judge configured, a judge failure) or that has no verdict.
UNDECIDED_LEAF = frozenset({"error", "unverified"})


@dataclass
class Row:
    node: Mapping[str, Any]
    depth: int
    path: str
    is_leaf: bool
    check: str = ""
    closes: range = field(default_factory=lambda: range(0))
    result: Mapping[str, Any] | None = None

    @property
    def state(self) -> str:
        """The scored row's CSS state: its status, or "undecided" when a check that could not run
        (no judge, a judge error) leaves it open, so it is never shown as a failure."""
        if self.result is None:
            return ""
        status = str(self.result.get("status", ""))
        if (status in UNDECIDED_LEAF) if self.is_leaf else ("upper" in self.result):
            return "undecided"
        return status


def describe_check(check: Mapping[str, Any] | None) -> str:
    """One readable line for a leaf check, e.g. `number ≈ 1969 (±0.5)`."""
    if not check:
        return "no check"
    kind = str(check.get("kind", "?"))
    params = {k: v for k, v in check.items() if k != "kind"}
    if kind == "judge":
        sources = params.get("sources") or []
        where = f" against {len(sources)} source(s)" if sources else " from the answer"
        return f"judge: “{params.get('claim', '')}”{where}"
    shown = ", ".join(f"{k}={_short(v)}" for k, v in params.items())
    return f"{kind}: {shown}" if shown else kind


def _short(value: Any) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
    return text if len(text) <= 80 else text[:77] + "…"


def tree_rows(tree: Mapping[str, Any], results: Mapping[str, Any] | None = None) -> list[Row]:
    rows: list[Row] = []
    stack: list[tuple[Mapping[str, Any], int, str]] = [(tree["root"], 0, str(tree["root"]["id"]))]
    while stack:
        node, depth, path = stack.pop()
        children = node.get("children") or []
        row = Row(
            node=node,
            depth=depth,
            path=path,
            is_leaf=not children,
            check="" if children else describe_check(node.get("check")),
            result=(results or {}).get(str(node["id"])),
        )
        rows.append(row)
        for child in reversed(children):
            stack.append((child, depth + 1, f"{path}/{child['id']}"))
    # Each internal node opens a level; a row closes every level between it and the next row.
    for index, row in enumerate(rows):
        next_depth = rows[index + 1].depth if index + 1 < len(rows) else 0
        open_levels = row.depth + (0 if row.is_leaf else 1)
        row.closes = range(max(open_levels - next_depth, 0))
    return rows


def has_judge_leaves(tree: Mapping[str, Any] | None) -> bool:
    """Whether any leaf of a canonical tree is judged by an LLM (pages then say when no judge
    model is configured; a tree of deterministic checks never needs one)."""
    stack = [tree.get("root")] if tree else []
    while stack:
        node = stack.pop()
        if not isinstance(node, Mapping):
            continue
        children = node.get("children") or []
        check = node.get("check") or {}
        if not children and isinstance(check, Mapping) and check.get("kind") == "judge":
            return True
        stack.extend(children)
    return False


def _sources(value: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """An item's source URLs: those that may be links (http and https) and the rest."""
    urls = value.get("reference_urls") or value.get("urls") or []
    links: list[str] = []
    others: list[str] = []
    for url in urls if isinstance(urls, list) else []:
        href = http_url(url)
        if href is not None:
            links.append(href)
        elif isinstance(url, str):
            others.append(url)
    return links, others


def solution_items(solution: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The reference solution as items with their source URLs (QUEST's
    `{item: {description, reference_urls}}`, or free text). `urls` holds only http(s) URLs, safe
    as links; `other_urls` the rest (javascript:, data:, …), to be shown as text if at all."""
    items = []
    for name, value in solution.items():
        if isinstance(value, dict):
            urls, other_urls = _sources(value)
            item = {"name": name, "description": value.get("description", "")}
        else:
            urls, other_urls = [], []
            item = {"name": "" if name == "text" else name, "description": str(value)}
        items.append({**item, "urls": urls, "other_urls": other_urls})
    return items
