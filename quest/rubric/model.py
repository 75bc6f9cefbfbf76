"""The canonical rubric tree: frozen dataclasses and their canonical JSON form.

One model expresses QUEST trees (critical gate, sequential short-circuit, unweighted means),
PaperBench trees (integer weights) and HealthBench / ResearchRubrics flat criteria (points
from -10 to +10). The scoring rules live in `score.py`; this module only holds the data.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

FORMAT = "questweb.rubric/1"

Strategy: TypeAlias = Literal["parallel", "sequential"]
Scoring: TypeAlias = Literal["quest", "weighted", "points"]
STRATEGIES: tuple[Strategy, ...] = ("parallel", "sequential")
SCORING_MODES: tuple[Scoring, ...] = ("quest", "weighted", "points")

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
Scalar: TypeAlias = "str | int | float | bool | None"
ParamValue: TypeAlias = "Scalar | tuple[Scalar, ...]"


# Limits that keep hostile input cheap to reject; QUEST's largest trees are far below them.
MAX_DEPTH = 16
MAX_NODES = 5_000
MAX_PAYLOAD_BYTES = 5_000_000
MAX_TEXT = 10_000
MAX_TASK_TEXT = 100_000
MAX_ID_LENGTH = 64
MAX_EXTRA_DEPTH = 8
POINTS_RANGE = (-10, 10)


def attributes(record: object, names: str) -> dict[str, Any]:
    """The JSON form of a record whose keys are its attributes' names: the fields or properties
    in `names` (space-separated, as namedtuple takes them), in that order, values as they are."""
    return {name: getattr(record, name) for name in names.split()}


def _frozen(mapping: Mapping[str, object]) -> Mapping[str, object]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Check:
    """How a leaf is verified: a deterministic kind with its params, or `judge` with a claim
    and optional source URLs. List params are stored as tuples so the check stays immutable."""

    kind: str
    params: Mapping[str, ParamValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        frozen = {k: tuple(v) if isinstance(v, list) else v for k, v in self.params.items()}
        object.__setattr__(self, "params", _frozen(frozen))

    @classmethod
    def judge(cls, claim: str, sources: tuple[str, ...] = ()) -> Check:
        return cls("judge", {"claim": claim, "sources": tuple(sources)})

    def to_dict(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {"kind": self.kind}
        for key, value in self.params.items():
            out[key] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True)
class Node:
    """A rubric node. Leaves carry a `check`; internal nodes carry `children` and a
    `strategy`. `name` keeps the original label (node_name, key or name) when the id had to
    differ from it; `extra` keeps unknown fields of the source JSON so exports lose nothing."""

    id: str
    description: str
    critical: bool = False
    strategy: Strategy = "parallel"
    weight: int | None = None
    children: tuple[Node, ...] = ()
    check: Check | None = None
    name: str | None = None
    extra: Mapping[str, JSONValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "children", tuple(self.children))
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))

    @property
    def is_leaf(self) -> bool:
        return not self.children

    @property
    def label(self) -> str:
        return self.name if self.name is not None else self.id

    def to_dict(self) -> dict[str, JSONValue]:
        """Canonical JSON of this subtree. Trees from the importers are at most MAX_DEPTH deep,
        so recursion is bounded here."""
        out: dict[str, JSONValue] = {
            "id": self.id,
            "description": self.description,
            "critical": self.critical,
        }
        if self.children:
            out["strategy"] = self.strategy
        if self.weight is not None:
            out["weight"] = self.weight
        if self.children:
            out["children"] = [child.to_dict() for child in self.children]
        if self.check is not None:
            out["check"] = self.check.to_dict()
        if self.name is not None:
            out["name"] = self.name
        if self.extra:
            out["extra"] = _thaw(self.extra)
        return out


@dataclass(frozen=True)
class RubricTree:
    """A whole rubric: the root node, how it is scored, and the task it belongs to."""

    root: Node
    scoring: Scoring = "quest"
    task_description: str = ""
    extra: Mapping[str, JSONValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))

    def nodes(self) -> Iterator[Node]:
        """Every node in pre-order, without recursion."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def leaves(self) -> Iterator[Node]:
        return (node for node in self.nodes() if node.is_leaf)

    def node(self, node_id: str) -> Node:
        for node in self.nodes():
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    def to_dict(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {"format": FORMAT, "scoring": self.scoring}
        if self.task_description:
            out["task_description"] = self.task_description
        out["root"] = self.root.to_dict()
        if self.extra:
            out["extra"] = _thaw(self.extra)
        return out

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


def _thaw(mapping: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    # Extras were decoded from JSON and depth-checked on import; a JSON round trip is the
    # simplest deep copy that hands callers something they may mutate.
    thawed: dict[str, JSONValue] = json.loads(json.dumps(dict(mapping)))
    return thawed
