"""Ranked rows: what every index returns before rows become documents."""

from __future__ import annotations

from typing import NamedTuple


class Hit(NamedTuple):
    row: int  # position of the passage in the corpus's passages.jsonl
    score: float


class SearchError(Exception):
    """A query or index the searcher cannot serve; the message says what to do."""
