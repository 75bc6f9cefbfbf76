"""The condensed research state `dr_state` (QUEST-SPEC §5.1), its strict validation and the
"RESEARCH STATE SUMMARY" block that replaces history when the context restarts.

Validation is strict (unknown keys, wrong types, a missing `need` are errors) because the state
is what a model is trained to write; the error names the bad path so a retry prompt can quote it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

VERSION = "dr_state"
BLOCK_TITLE = "RESEARCH STATE SUMMARY"
MAX_ITEMS = 500  # per list: a condenser that writes more is looping, not summarising
MAX_TEXT = 4_000  # per string
FACT_KEYS = ("id", "claim", "sources", "reason")
NEED_PREFIXES = ("visit ", "search ")
_FENCED = re.compile(r"```(?:json)?\s*\n?(.*?)```", re.DOTALL)


class StateError(ValueError):
    """A reply or object that is not a valid dr_state; the message starts with the bad path."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


@dataclass(frozen=True)
class Query:
    q: str
    intent: str


@dataclass(frozen=True)
class Source:
    url: str
    note: str


@dataclass(frozen=True)
class Fact:
    id: str
    claim: str
    sources: tuple[str, ...]
    reason: str
    need: str = ""  # only uncertain facts have one: "visit <url>" or "search <query>"

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "id": self.id,
            "claim": self.claim,
            "sources": list(self.sources),
            "reason": self.reason,
        }
        if self.need:
            data["need"] = self.need
        return data


@dataclass(frozen=True)
class DRState:
    search_queries: tuple[Query, ...] = ()
    visited_sources: tuple[Source, ...] = ()
    trusted: tuple[Fact, ...] = ()
    untrusted: tuple[Fact, ...] = ()
    uncertain: tuple[Fact, ...] = ()
    version: str = VERSION
    # Not part of the schema: why a condenser fell back to its deterministic merge ("" when it
    # did not), so that the loop can report the recovery.
    recovery: str = field(default="", compare=False)

    @property
    def recovered(self) -> bool:
        return bool(self.recovery)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "search_queries": [{"q": q.q, "intent": q.intent} for q in self.search_queries],
            "visited_sources": [{"url": s.url, "note": s.note} for s in self.visited_sources],
            "information_state": {
                "trusted": [fact.to_json() for fact in self.trusted],
                "untrusted": [fact.to_json() for fact in self.untrusted],
                "uncertain": [fact.to_json() for fact in self.uncertain],
            },
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    def facts(self) -> tuple[Fact, ...]:
        return self.trusted + self.untrusted + self.uncertain


def render_state_block(state: DRState) -> str:
    """The block appended to the question when the context restarts. The JSON is kept whole
    so that a policy (or a person) can read the state back with `parse_state`."""
    return (
        f"{BLOCK_TITLE}\n"
        "The research so far, condensed; it replaces the earlier conversation. Reuse the trusted "
        "facts, treat the untrusted ones as refuted, follow each uncertain item's need, do not "
        "repeat the searches and visits listed, and leave uncertain information out of the "
        "final answer.\n"
        f"```json\n{state.dumps()}\n```"
    )


def parse_state(value: str | Mapping[str, object]) -> DRState:
    """A DRState from JSON text (bare, fenced or wrapped in prose) or a decoded object."""
    data = _decode(value) if isinstance(value, str) else value
    return _state(data, VERSION)


def _decode(text: str) -> object:
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCED.finditer(text))]
    start = text.find("{")
    if start >= 0:
        candidates.append(text[start:])
    for candidate in candidates:
        try:
            value, _ = json.JSONDecoder().raw_decode(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise StateError(VERSION, "no JSON object found in the reply")


def _state(data: object, path: str) -> DRState:
    obj = _object(data, path, ("version", "search_queries", "visited_sources", "information_state"))
    if obj.get("version") != VERSION:
        raise StateError(f"{path}.version", f'must be "{VERSION}"')
    info = _object(
        obj["information_state"], f"{path}.information_state", ("trusted", "untrusted", "uncertain")
    )
    where = f"{path}.information_state"
    state = DRState(
        search_queries=tuple(
            Query(**_strings(item, p, ("q", "intent")))
            for p, item in _items(obj["search_queries"], f"{path}.search_queries")
        ),
        visited_sources=tuple(
            Source(**_strings(item, p, ("url", "note")))
            for p, item in _items(obj["visited_sources"], f"{path}.visited_sources")
        ),
        trusted=_facts(info["trusted"], f"{where}.trusted", need=False),
        untrusted=_facts(info["untrusted"], f"{where}.untrusted", need=False),
        uncertain=_facts(info["uncertain"], f"{where}.uncertain", need=True),
    )
    _unique_ids(state, where)
    return state


def _object(data: object, path: str, keys: Sequence[str]) -> dict[str, object]:
    if not isinstance(data, Mapping):
        raise StateError(path, f"expected an object, got {_kind(data)}")
    for key in data:
        if key not in keys:
            raise StateError(path, f"unexpected key {str(key)[:60]!r}")
    for key in keys:
        if key not in data:
            raise StateError(path, f"missing key {key!r}")
    return dict(data)


def _items(data: object, path: str) -> list[tuple[str, object]]:
    if not isinstance(data, list):
        raise StateError(path, f"expected a list, got {_kind(data)}")
    if len(data) > MAX_ITEMS:
        raise StateError(path, f"{len(data)} items; at most {MAX_ITEMS} are allowed")
    return [(f"{path}[{index}]", item) for index, item in enumerate(data)]


def _strings(data: object, path: str, keys: Sequence[str]) -> dict[str, str]:
    obj = _object(data, path, keys)
    return {key: _text(obj[key], f"{path}.{key}") for key in keys}


def _text(value: object, path: str, *, required: bool = False) -> str:
    if not isinstance(value, str):
        raise StateError(path, f"expected a string, got {_kind(value)}")
    if len(value) > MAX_TEXT:
        raise StateError(path, f"{len(value):,} characters; at most {MAX_TEXT:,} are allowed")
    if required and not value.strip():
        raise StateError(path, "must not be empty")
    return value


def _facts(data: object, path: str, *, need: bool) -> tuple[Fact, ...]:
    keys = (*FACT_KEYS, "need") if need else FACT_KEYS
    facts = []
    for where, item in _items(data, path):
        obj = _object(item, where, keys)
        sources = tuple(
            _text(url, p, required=True) for p, url in _items(obj["sources"], f"{where}.sources")
        )
        wanted = _text(obj["need"], f"{where}.need", required=True) if need else ""
        if need and not wanted.startswith(NEED_PREFIXES):
            raise StateError(f"{where}.need", 'must be "visit <url>" or "search <query>"')
        facts.append(
            Fact(
                id=_text(obj["id"], f"{where}.id", required=True),
                claim=_text(obj["claim"], f"{where}.claim", required=True),
                sources=sources,
                reason=_text(obj["reason"], f"{where}.reason"),
                need=wanted,
            )
        )
    return tuple(facts)


def _unique_ids(state: DRState, path: str) -> None:
    seen: set[str] = set()
    for fact in state.facts():
        if fact.id in seen:
            raise StateError(path, f"the id {fact.id[:60]!r} is used twice")
        seen.add(fact.id)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, Mapping) else type(value).__name__
