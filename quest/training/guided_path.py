"""The solution path a guided teacher follows (quest.training.guided), read from a task's
synthesized record, and the answer it writes from what the trajectory found.

The synthesizer's reference answer (quest.synthesis.facts.write_answer) already is the path in
the form the reward pays: one sentence per fact, each citing the page that states it, then the
committed `Exact answer:` line. A *step* is one page of it with the sentences it is cited for,
in the order the reference first cites them (a chain's hops come in the order they depend on
each other). Only the teacher reads this; the policy it demonstrates sees the question alone.

What the answer may state is decided by what was read, never by the record:

- a cited sentence only when the page a visit showed supports it (the reward's own check,
  quest.rubric.support, on the visit's text rather than the whole page);
- an answer that is *read* (a lookup's country, a chain's end) only when a visited page
  shows it;
- an answer that is *worked out* (which ranks first, a sum) only when every figure it is worked
  out from was read: a ranking decided on part of its values would teach guessing;
- of a list of items (find k), the items whose every sentence was read;
- a sentence citing no page (a chain's "X is the most populous of Y's neighbours") only when
  every cited one was read, since it concludes from them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from quest.rubric.citations import parse_citations
from quest.rubric.numbers import numbers_in, parse_number
from quest.synthesis.facts import EXACT_LABEL
from quest.text.fold import fold

# Families whose committed answer is worked out from every figure the path reads.
DERIVED = frozenset({"comparison", "temporal_order", "chain_fanout", "aggregation"})
# Families whose committed answer is a list of items, each shown by its own pages.
ITEMS = frozenset({"find_k", "intersection"})
ITEM_SEPARATOR = "; "
_WORKING = re.compile(r";\s*so\s+(.+?)\.?\s*$")


@dataclass(frozen=True)
class PathFact:
    text: str  # the reference's sentence, with its full stop
    url: str  # the page it cites; "" for a conclusion drawn from the others


@dataclass(frozen=True)
class Step:
    url: str
    facts: tuple[PathFact, ...]


@dataclass(frozen=True)
class SolutionPath:
    family: str
    facts: tuple[PathFact, ...]  # in the reference's order
    exact: str  # the committed answer; "" when the question asks for none
    working: str = ""  # an aggregation's arithmetic: "2 + 3 = 5"

    @property
    def steps(self) -> tuple[Step, ...]:
        urls = list(dict.fromkeys(fact.url for fact in self.facts if fact.url))
        return tuple(Step(url, tuple(f for f in self.facts if f.url == url)) for url in urls)

    def cited(self) -> tuple[PathFact, ...]:
        return tuple(fact for fact in self.facts if fact.url)


NO_PATH = SolutionPath(family="", facts=(), exact="")


def read_path(record: Mapping[str, Any]) -> SolutionPath:
    """The path of an accepted-task record (tasks/accepted.jsonl); NO_PATH for a record the
    synthesizer wrote no reference answer for."""
    reference = str(record.get("reference_answer") or "")
    if not reference.strip():
        return NO_PATH
    family = str((record.get("provenance") or {}).get("family") or "")
    family = family or str((record.get("oracle") or {}).get("family") or "")
    facts = []
    for claim in parse_citations(reference).claims:
        if claim.text.startswith(EXACT_LABEL):
            continue
        facts.append(PathFact(claim.text, claim.urls[0] if claim.urls else ""))
    exact = _exact(reference)
    working = _working(record.get("solution"), exact) if family == "aggregation" else ""
    return SolutionPath(family, tuple(facts), exact, working)


def _exact(reference: str) -> str:
    lines = [line.strip() for line in reference.splitlines()]
    found = [
        line.removeprefix(EXACT_LABEL).strip() for line in lines if line.startswith(EXACT_LABEL)
    ]
    return found[-1] if found else ""


def _working(solution: object, exact: str) -> str:
    """The arithmetic of an aggregation's solution ("…; so 2 + 3 = 5.")."""
    if not isinstance(solution, Mapping) or not isinstance(solution.get(exact), Mapping):
        return ""
    found = _WORKING.search(str(solution[exact].get("description", "")))
    return found.group(1) if found else ""


def committed(path: SolutionPath, read: Collection[PathFact], shown: Iterable[str]) -> str:
    """The committed answer the trajectory may state: `read` are the path's cited sentences
    a visited page supports, `shown` the text of every visited page."""
    if not path.exact:
        return ""
    if path.family in DERIVED:
        return path.exact if set(path.cited()) <= set(read) else ""
    if path.family in ITEMS:
        items = [item for item in path.exact.split(ITEM_SEPARATOR) if _item_read(path, item, read)]
        return ITEM_SEPARATOR.join(items)
    return path.exact if any(_mentions(text, path.exact) for text in shown) else ""


def _item_read(path: SolutionPath, item: str, read: Collection[PathFact]) -> bool:
    about = [fact for fact in path.cited() if _mentions(fact.text, item)]
    return bool(about) and all(fact in read for fact in about)


def _mentions(text: str, name: str) -> bool:
    """Whether `text` states `name`: a figure by its value ("2182" is "2,182"), a name by its
    folded words."""
    figure = parse_number(name)
    if figure is not None:
        return any(found.value == figure.value for found in numbers_in(text))
    wanted = fold(name)
    return bool(wanted) and f" {wanted} " in f" {fold(text)} "


def write_answer(path: SolutionPath, read: Mapping[PathFact, str], exact: str) -> str:
    """The final answer: the sentences read, each citing by number the page that states it,
    the conclusions when everything was read, the working of a worked-out answer, the
    `Exact answer:` line and the numbered sources (the reference answer's form, which the
    reward pays)."""
    complete = set(path.cited()) <= set(read)
    sources: list[str] = []
    sentences = []
    for fact in path.facts:
        if not fact.url:
            if complete:
                sentences.append(fact.text)
            continue
        url = read.get(fact)
        if url is None:
            continue
        if url not in sources:
            sources.append(url)
        sentences.append(f"{fact.text.rstrip('.')} [{sources.index(url) + 1}].")
    body = " ".join(sentences) or "None of the pages I could read states what the question asks."
    if exact and path.working:
        body += f"\n\nSo {path.working}."
    if exact:
        body += f"\n\n{EXACT_LABEL} {exact}"
    listed = "\n".join(f"[{number}] {url}" for number, url in enumerate(sources, start=1))
    return f"{body}\n\n{listed}" if listed else body
