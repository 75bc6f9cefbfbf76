"""What part a name plays in a sentence, for research.extract: who acts in it ("a book by Sir
Isaac Newton"), where it stands in a place written smallest first ("in Agra, Uttar Pradesh,
India"), and whether it is only another name of the subject asked about ("Argentina, officially
the Argentine Republic"). The word lists are general English, about no particular subject.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from quest.agent.research.question import Question, key_terms
from quest.agent.research.shape import PERSON, Shape
from quest.agent.research.tallies import Said, fold

PERSON_NOUNS = frozenset(
    {"person", "man", "woman", "girl", "boy", "king", "queen", "emperor", "empress", "pharaoh"}
    | {"president", "leader", "ruler", "general", "monarch", "pope", "saint", "prophet"}
    | {"composer", "painter", "artist", "sculptor", "architect", "writer", "author", "poet"}
    | {"playwright", "novelist", "philosopher", "scientist", "physicist", "chemist"}
    | {"mathematician", "astronomer", "biologist", "inventor", "explorer", "nurse", "doctor"}
    | {"singer", "musician", "actor", "director", "founder"}
)
_PERSON_TERMS = frozenset(key_terms(" ".join(sorted(PERSON_NOUNS))))  # as type words are kept
# A passive's agent, up to the end of its noun phrase: "by Wolfgang Amadeus Mozart [to a German
# libretto by ...]", "by the Dutch painter Vincent van Gogh[,]".
_AGENT = re.compile(
    r"\bby\s+((?:(?!\s(?:to|with|in|for|at|from|on|by|and|who|which|that|after)\s)[^,;:.()])+)"
)
_DOER_VERB = re.compile(r"(?:was|is|became|led|served|founded|wrote|painted|composed)\b")
_PLACE = r"[A-Z][\w'\u2019.-]*(?:\s+(?:de\s+|of\s+)?[A-Z][\w'\u2019.-]*)*"
_PLACE_CHAIN = re.compile(rf"\b(?:in|at|near)\s+((?:{_PLACE}),\s+{_PLACE}(?:,\s+{_PLACE})*)")
LARGEST_PLACES = frozenset({"country", "nation", "continent"})
SMALLEST_PLACES = frozenset({"city", "town", "village"})


def asks_person(shape: Shape) -> bool:
    """ "Who ...", or "Which Austrian composer ...": a person is asked for."""
    return shape.kind == PERSON or bool(shape.type_words & _PERSON_TERMS)


def doer(text: str, candidates: Sequence[tuple[str, int]]) -> str | None:
    """The person who acts in a sentence: the agent of a passive ("The Principia is a book by
    Sir Isaac Newton"), else the person it opens on ("Neil Armstrong was an astronaut who ...
    became the first person to walk on the Moon"). A "who" question is answered by who did
    it, not by the other names of the sentence ("Apollo")."""
    for phrase in _AGENT.findall(text):  # "by the Dutch painter Vincent van Gogh, ..."
        agents = [name for name, _ in candidates if len(name.split()) >= 2 and name in phrase]
        if agents:
            return max(agents, key=phrase.rfind)  # the name the phrase ends on
    for name, at in candidates:
        opens = at == 0 and text.startswith(f"{name} ")
        if opens and len(name.split()) >= 2 and _DOER_VERB.match(text, len(name) + 1):
            return name
    return None


def in_chain(text: str, candidate: str, type_words: frozenset[str]) -> bool | None:
    """Where a candidate stands in a place written smallest first ("in Agra, Uttar Pradesh,
    India"): True when it is the end asked for (the last for a country or a continent, the
    first for a city or a town), False for another place of the chain, None outside one."""
    last = bool(type_words & LARGEST_PLACES)
    if not (last or type_words & SMALLEST_PLACES):
        return None
    for match in _PLACE_CHAIN.finditer(text):
        places = [p.strip() for p in match.group(1).split(",")]
        if candidate in places:
            return candidate == (places[-1] if last else places[0])
    return None


def alias_of_asked(item: Said, name: str, asked: Question) -> bool:
    """Whether the sentence gives `name` as another name of its page's subject, which the
    question names ("Argentina, officially the Argentine Republic, ...")."""
    subject = fold(item.subject)
    if not subject or subject not in {fold(e) for e in asked.entities}:
        return False
    pattern = rf"{re.escape(subject)}\s*(?:officially|formally|also known as|or)\s+(?:the\s+)?"
    return re.search(pattern + re.escape(fold(name)), fold(item.text)) is not None
