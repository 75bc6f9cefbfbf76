"""What a task is about: its generator family and the entities it names, read from a task
record (or a draft shaped like one). The loop's split (quest.loop.split) and the synthesis
worlds (quest.synthesis.worlds) both compare tasks by these names.

A task's entities are the places its solution is about: its answers, the countries of a
chain's path, the subjects of its facts, the names its facts and rubric checks ask for
(capitals, largest cities, neighbours), and the places its question names as clues ("borders
Gibraltar": any name the record knows, its rivals included, found in the question). An
attribute that many countries share (a currency code) is not an entity: a fact is about its
subject, and disjoint subjects make disjoint facts; nor is a figure ("14").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from quest.text.fold import strip_accents

# Fact relations and check contexts whose values are attributes shared by many entities.
ATTRIBUTE_RELATIONS = frozenset({"currency"})
ATTRIBUTE_CONTEXTS = frozenset({"currency"})
CLASS = re.compile(r"^C[1-9]$")


def task_family(record: Mapping[str, Any]) -> str:
    """The generator family of a task, or "": the family the generator recorded (lookup,
    find_k, chain, domain_chain, comparison ...), else its oracle's coarser one (a comparison's
    oracle is a lookup's: one answer to find)."""
    oracle = record.get("oracle") or {}
    provenance = record.get("provenance") or {}
    return str(provenance.get("family") or oracle.get("family") or "")


def in_slice(record: Mapping[str, Any], name: str | None) -> bool:
    """Whether a task belongs to the slice `name`: a class (C1..C9) or a family."""
    if not name:
        return False
    if CLASS.match(name):
        return str(record.get("complexity", "")) == name
    return task_family(record) == name


def task_entities(record: Mapping[str, Any]) -> frozenset[str]:
    """The normalised names of the entities a task is about (see the module)."""
    names = {name for name in _names(record) if name.strip() and not _figure(name)}
    known = names | _rivals(record)
    return frozenset(map(entity_key, names | _named(str(record.get("question", "")), known)))


def _figure(name: str) -> bool:
    """A count or a figure a check asks for as text ("14", "1,200"): a value, not an entity."""
    return not any(ch.isalpha() for ch in name)


def entity_key(name: str) -> str:
    """A name as compared: accents, case and spacing aside ("São Paulo" is "sao paulo")."""
    return " ".join(strip_accents(name).casefold().split())


def _names(record: Mapping[str, Any]) -> Iterator[str]:
    oracle = record.get("oracle") or {}
    yield from (str(a) for a in oracle.get("answers") or ())
    yield from (str(p) for p in oracle.get("path") or ())
    for fact in oracle.get("facts") or ():
        yield str(fact.get("subject", ""))
        if isinstance(fact.get("value"), str) and fact.get("relation") not in ATTRIBUTE_RELATIONS:
            yield fact["value"]
    solution = record.get("solution")
    if isinstance(solution, Mapping):
        yield from (str(name) for name in solution)
    rubric = record.get("rubric") or {}
    yield from _check_names(rubric.get("root") or {})


def _rivals(record: Mapping[str, Any]) -> set[str]:
    """The names a record lists as wrong answers: the oracle's distractors and its checks'
    rivals. They are not the task's entities, only names its question may use as clues."""
    oracle = record.get("oracle") or {}
    found = {str(name) for name in oracle.get("distractors") or ()}
    stack = [(record.get("rubric") or {}).get("root") or {}]
    while stack:
        node = stack.pop()
        stack.extend(node.get("children") or ())
        found.update(str(name) for name in (node.get("check") or {}).get("others") or ())
    return {name for name in found if name.strip()}


def _named(text: str, known: set[str]) -> set[str]:
    """The known names `text` holds as whole words, the longest first ("Papua New Guinea"
    is not "Guinea")."""
    if not text or not known:
        return set()
    names = sorted(known, key=len, reverse=True)
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")
    return set(pattern.findall(text))


def _check_names(node: Mapping[str, Any]) -> Iterator[str]:
    for child in node.get("children") or ():
        yield from _check_names(child)
    check = node.get("check") or {}
    if not check:
        return
    if isinstance(check.get("subject"), str):
        yield check["subject"]
    if ATTRIBUTE_CONTEXTS & set(check.get("context") or ()):
        return
    if check.get("kind") in ("mentions", "source_supports") and isinstance(check.get("value"), str):
        yield check["value"]
    if check.get("kind") == "one_of":
        yield from (str(v) for v in check.get("values") or ())
