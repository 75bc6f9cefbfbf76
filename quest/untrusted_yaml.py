"""YAML from someone else (a config typed into a form, sent to the API, or passed on the command
line), read with bounds on its shape.

`yaml.safe_load` builds nested collections recursively: a few kilobytes of "[[[[…" exhaust
Python's stack (RecursionError, a 500 in the web app). Aliases add another way to blow up: each
`*ref` repeats a whole anchored subtree, so a short document can stand for billions of values
(anything that walks it afterwards never ends). So the document's events (PyYAML's parser is a
loop, not a recursion) are read first, counting its depth and its size with every alias
expanded, and only a document within both bounds is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

MAX_DEPTH = 64
MAX_VALUES = 100_000


class YamlTooBig(yaml.YAMLError):
    """A document nested deeper, or holding more values, than the bounds allow."""

    def __init__(self, problem: str, line: int | None) -> None:
        where = f" (line {line})" if line is not None else ""
        super().__init__(f"{problem}{where}")


@dataclass
class _Collection:
    anchor: str | None
    depth: int = 1  # collections nested in it, itself included
    values: int = 1  # nodes in it, itself included, aliases expanded


@dataclass
class _Shape:
    """Depth and size of a document, read event by event."""

    max_depth: int
    max_values: int
    open: list[_Collection] = field(default_factory=list)
    anchors: dict[str, tuple[int, int]] = field(default_factory=dict)  # anchor: (depth, values)
    values: int = 0

    def _refuse(self, problem: str, event: Any) -> YamlTooBig:
        return YamlTooBig(problem, event.start_mark.line + 1 if event.start_mark else None)

    def _place(self, depth: int, values: int, event: Any) -> None:
        """A node `depth` collections deep holding `values` nodes, inside the open collections."""
        if len(self.open) + depth > self.max_depth:
            raise self._refuse(f"nested deeper than {self.max_depth} levels", event)
        self.values += values
        if self.values > self.max_values:
            raise self._refuse(f"more than {self.max_values:,} values (aliases expanded)", event)
        if self.open:
            self.open[-1].values += values

    def _close(self, depth: int, values: int, anchor: str | None) -> None:
        if anchor:
            self.anchors[anchor] = (depth, values)
        if self.open:
            parent = self.open[-1]
            parent.depth = max(parent.depth, depth + 1)

    def read(self, event: Any) -> None:
        if isinstance(event, yaml.CollectionStartEvent):
            self._place(1, 1, event)
            self.open.append(_Collection(event.anchor))
        elif isinstance(event, yaml.CollectionEndEvent):
            done = self.open.pop()
            if self.open:
                self.open[-1].values += done.values - 1  # its first value was counted at its start
            self._close(done.depth, done.values, done.anchor)
        elif isinstance(event, yaml.ScalarEvent):
            self._place(0, 1, event)
            self._close(0, 1, event.anchor)
        elif isinstance(event, yaml.AliasEvent):
            if any(c.anchor == event.anchor for c in self.open):
                raise self._refuse(f"the alias *{event.anchor} is inside its own anchor", event)
            depth, values = self.anchors.get(event.anchor or "", (0, 1))
            self._place(depth, values, event)
            self._close(depth, values, None)


def load_yaml(text: str, *, max_depth: int = MAX_DEPTH, max_values: int = MAX_VALUES) -> Any:
    """`yaml.safe_load(text)`, refused with YamlTooBig (a yaml.YAMLError) past either bound.
    Other YAML errors are safe_load's own."""
    shape = _Shape(max_depth, max_values)
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        shape.read(event)
    return yaml.safe_load(text)
