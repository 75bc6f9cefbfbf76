"""The one exception the rubric engine raises for bad input."""

from __future__ import annotations

import json
from collections.abc import Iterable

# A hostile tree can produce an error per node; past this many the rest add nothing a human reads.
MAX_ERRORS = 50


class RubricError(ValueError):
    """Invalid rubric input. `errors` holds every problem found (at most MAX_ERRORS), each
    prefixed with the path of the node it concerns, e.g. `root/a: leaf has no check`."""

    def __init__(self, errors: Iterable[str]) -> None:
        collected = tuple(errors)[:MAX_ERRORS] or ("invalid rubric",)
        self.errors: tuple[str, ...] = collected
        super().__init__(self.summary())

    def summary(self) -> str:
        """The first error on one line, with a count of the others."""
        first = self.errors[0].replace("\n", " ")
        more = len(self.errors) - 1
        return f"{first} (and {more} more)" if more else first


def quoted(value: object, limit: int = 80) -> str:
    """A name as it appears in messages: double-quoted, escaped, cut to `limit` characters."""
    return json.dumps(str(value)[:limit], ensure_ascii=False)


class ErrorList:
    """Collects errors up to MAX_ERRORS; `full` tells a walker it may stop early."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.dropped = 0

    def add(self, message: str) -> None:
        if len(self.items) < MAX_ERRORS:
            self.items.append(message)
        else:
            self.dropped += 1

    @property
    def full(self) -> bool:
        return len(self.items) >= MAX_ERRORS

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self) -> None:
        if self.items:
            raise RubricError(self.items)
