"""What the research should read and answer at a point of a run: the pages about the things the
question names (both options of a comparison), and for a two-hop question, first the bridge
("the country where the Taj Mahal stands"), then, once the pages read name it, the question
about it ("What is the capital of India?").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from quest.agent.research.compare import lookup, missing
from quest.agent.research.extract import extract, ranked
from quest.agent.research.fields import field_answers
from quest.agent.research.question import Question, key_terms
from quest.agent.research.shape import NUMBER, YEAR, Shape
from quest.agent.research.tallies import Found, Said

MAX_NAMES = 2
CONTENDERS = 3


@dataclass(frozen=True)
class Focus:
    names: tuple[str, ...]  # whose pages to read, most needed first
    question: str  # the question to answer from what was read
    bridge: str = ""  # the bridge's answer, once found
    more: tuple[str, ...] = ()  # names whose other pages (records) are needed too
    searches: tuple[str, ...] = ()  # searches that could find those pages


def research_focus(question: str, said: Sequence[Said]) -> Focus:
    shape = Shape(question)
    if shape.comparison is not None:
        lacking = tuple(missing(shape, said))
        searches = tuple(lookup(shape, option, said) for option in lacking)
        return Focus(shape.comparison.options, question, more=lacking, searches=searches)
    named = Question(question).entities[:MAX_NAMES]
    bridge = shape.bridge
    if bridge is None:
        return _records(Focus((*named, *_contenders(question, said)), question), said)
    inner = Question(bridge.question).entities[:MAX_NAMES]
    found = ranked(bridge.question, said)
    if not found or _names_itself(found[0], inner):
        return Focus(inner, question)
    outer = question.replace(bridge.phrase, found[0].answer)
    others = [e for e in Question(outer).entities if e != found[0].answer][:1]
    contenders = _contenders(bridge.question, said, bridged=True)
    names = (*inner, found[0].answer, *contenders, *others)
    return _records(Focus(names, outer, found[0].answer), said)


def _records(focus: Focus, said: Sequence[Said]) -> Focus:
    """While no page read states what is asked about the question's subject, its other pages
    (a record about it) are wanted too, and a search for them."""
    asked = Question(focus.question)
    if not asked.entities or Shape(focus.question).kind in {NUMBER, YEAR}:
        return focus
    subject = asked.entities[0]
    if not any(item.subject.casefold() == subject.casefold() for item in said):
        return focus  # its own page first
    found = extract(focus.question, said)
    wanted = set(asked.terms) - asked.entity_terms - Shape(focus.question).type_words
    if not wanted or (found is not None and wanted & set(key_terms(found.line))):
        return focus
    search = f"{subject} {' '.join(asked.attribute_words[:3])}".strip()
    return replace(focus, more=(subject,), searches=(search,))


def answer(question: str, said: Sequence[Said], retrieved: Sequence[str] = ()) -> Found | None:
    """The direct answer to the question, through its bridge when it has one; `retrieved`
    lists the pages the question's own searches ranked first. A field that the page about what
    the question names states (research.fields) answers before any sentence that shares the
    question's words."""
    focus = research_focus(question, said)
    stated = _stated(question, focus, said).get(0)
    if stated is not None:
        return stated
    if focus.bridge:
        return extract(focus.question, said, Question(question).entities)
    return extract(focus.question, said, retrieved=retrieved)


def stated_parts(question: str, said: Sequence[Said]) -> dict[int, Found]:
    """The parts of the question that a field stated on a page read answers (research.fields),
    by index, through the question's bridge when it has one."""
    return _stated(question, research_focus(question, said), said)


def _stated(question: str, focus: Focus, said: Sequence[Said]) -> dict[int, Found]:
    if Shape(question).bridge is not None and not focus.bridge:
        return {}  # what the bridge names is not known yet
    return field_answers(focus.question, said)


def _contenders(question: str, said: Sequence[Said], *, bridged: bool = False) -> tuple[str, ...]:
    """The leading candidates of a question that asks for a kind of thing ("which
    country") or of a bridge: their own pages say whether they are one."""
    shape = Shape(question)
    if not (shape.type_words or bridged) or shape.kind in {NUMBER, YEAR}:
        return ()
    leading = ranked(question, said, typed_only=False)[:CONTENDERS]
    return tuple(found.answer for found in leading)


def _names_itself(found: Found, names: Sequence[str]) -> bool:
    return any(found.answer.casefold() == name.casefold() for name in names)
