"""Reading the research tools' text back into records: search results (quest.tools.search) and
visit outputs (quest.tools.visit). Only the text is read, exactly as a model reads it, so the
scripted policy and the rule condenser learn nothing a model could not."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from quest.corpus.wiki import SHORT_DESCRIPTION
from quest.tools.search import QUERY_SEPARATOR
from quest.tools.visit import URL_SEPARATOR

_QUERY_HEAD = re.compile(r"^(?:A (?:Google scholar )?search for|No results found for) '(.*?)'")
_HIT = re.compile(r"^(\d+)\. \[(.*)\]\((\S+)\)\s*$")
_VISIT_HEAD = re.compile(r"^The useful information in (\S+) for user goal (.*?) as follows:")
_TITLE = re.compile(r"^From '(.*?)': ", re.DOTALL)
# "Located in the Rachna Doab, it is the third-most populous city": the pronoun after an
# opening phrase is the page's subject too.
_LATE_IT = re.compile(r"^([^,]{3,80}), it (?=(?:is|was|has|had|lies|stands)\b)")
_OWNED = re.compile(r"(.+?) ((?:is|are|was|were|has|had|have|lies|stands|covers)\b.*)$")
_LABEL = re.compile(r"\s*\(([^()]*)\)\s*$")
# The years a short description closes on: "(1879-1955)", "(c. 2334-2154 BC)", "(247 BC - 224
# AD)", with an en dash or a hyphen.
_ERA = r"(?:\s*(?:BC|BCE|AD|CE)\b)?"
_SPAN = re.compile(
    rf"\s*\(((?:c\.\s*)?\d{{1,4}}{_ERA})\s*[\u2013\u2014-]\s*((?:c\.\s*)?\d{{1,4}}{_ERA})\)\s*$"
)
# A person's full name: "Ludwig van Beethoven", "Wolfgang Amadeus Mozart".
_FULL_NAME = re.compile(
    r"^[A-Z][\w'\u2019.-]*(?:\s+(?:[A-Z][\w'\u2019.-]*|van|von|de|da|der|del|di|du|la|le)){1,3}$"
)
# How a description's first word ends when it is a people's name ("Italian", "Chinese",
# "English", "French", "Abrahamic") and keeps its capital.
PROPER_ENDINGS = ("an", "ese", "ish", "ch", "ic")
_HEAD_END = re.compile(r",|\s(?:and|of|in|from|for|to|who|with|between|by|on|at)\s")
# What a span of years belongs to when it is not a life: a state, a period, an event (by what
# the description or the name says it is). By Wikidata's convention a person's description
# closes on their years of birth and death.
NOT_LIVES = frozenset(
    {"dynasty", "empire", "kingdom", "kingdoms", "state", "states", "republic", "monarchy"}
    | {"caliphate", "sultanate", "khanate", "principality", "confederation", "federation"}
    | {"union", "league", "alliance", "bloc", "colony", "territory", "country", "city-state"}
    | {"polity", "civilization", "civilisation", "culture", "period", "era", "age", "war"}
    | {"wars", "conflict", "conflicts", "battle", "campaign", "campaigns", "rebellion"}
    | {"revolution", "uprising", "crisis", "dispute", "struggle", "movement", "expansion"}
    | {"depression", "company", "organisation", "organization", "band", "team", "group"}
    | {"series", "family", "government", "regime", "occupation", "policy", "station", "parts"}
    | {"wall", "barrier", "building", "bridge", "tower", "canal", "railway", "ship", "treaty"}
    | {"pact", "agreement", "council", "parliament", "party", "institution", "school", "order"}
    | {"programme", "program", "project", "mission", "expedition", "law", "constitution"}
)
# A sentence that opens on its page's subject by pronoun: "It is ...", "Its capital is ...",
# "This mountain lies ...". "The city ..." is left alone: it may be another city.
_PRONOUN_OPENING = re.compile(
    r"^(?:(Its)\s+(?=[a-z])|(It)\s+(?=[a-z])|(This)\s+[a-z]+\s+(?=[a-z]))"
)


@dataclass(frozen=True)
class Result:
    query: str
    rank: int
    title: str
    url: str
    snippet: str


@dataclass(frozen=True)
class PageRead:
    url: str
    title: str
    evidence: str
    summary: str


def read_search(text: str) -> list[Result]:
    results: list[Result] = []
    for part in text.split(QUERY_SEPARATOR):
        head = _QUERY_HEAD.match(part.strip())
        query = head.group(1) if head else ""
        results.extend(_hits(query, part.splitlines()))
    return results


def _hits(query: str, lines: Sequence[str]) -> list[Result]:
    hits: list[Result] = []
    for index, line in enumerate(lines):
        match = _HIT.match(line)
        if match is None:
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        snippet = "" if _HIT.match(following) else following.strip()
        rank, title, url = int(match.group(1)), match.group(2), match.group(3)
        hits.append(Result(query, rank, title, url, snippet))
    return hits


def read_visit(text: str) -> list[PageRead]:
    """The pages that were read; pages that could not be read have no record."""
    pages = []
    for part in text.split(URL_SEPARATOR):
        stripped = part.strip()
        head = _VISIT_HEAD.search(stripped)
        if head is None:
            continue
        evidence = _section(stripped, "Evidence in page:", "Summary:")
        summary = _section(stripped, "Summary:", None)
        pages.append(PageRead(head.group(1), page_title(summary), evidence, summary))
    return pages


def page_title(summary: str) -> str:
    """The title the visit tool's summary starts with ("From 'Title': ..."), or ""."""
    match = _TITLE.match(summary)
    return match.group(1) if match else ""


def _section(text: str, start: str, end: str | None) -> str:
    _, found, rest = text.partition(start)
    if not found:
        return ""
    if end is not None:
        rest = rest.partition(f"\n{end}")[0]
    return rest.strip()


def page_subject(title: str) -> str:
    """What a page is about, from its title: "Canberra, Australia (GeoNames)" -> "Canberra",
    "Mercury (planet)" -> "Mercury"."""
    bare = _LABEL.sub("", title).strip()
    return bare.split(", ")[0].strip() if ", " in bare else bare


def full_name_of(title: str, name: str) -> bool:
    """Whether a title is a full name that ends in `name`: "Ludwig van Beethoven" for
    "Beethoven", not "Symphony No. 3 (Beethoven)" or "Beethoven"."""
    words, named = title.casefold().split(), name.casefold().split()
    return (
        bool(_FULL_NAME.match(title)) and len(words) > len(named) and words[-len(named) :] == named
    )


def title_label(title: str) -> str:
    """The qualifier in a title's closing brackets ("GeoNames", "planet"), or ""."""
    match = _LABEL.search(title)
    return match.group(1).strip() if match else ""


def resolve_subject(sentence: str, subject: str) -> str:
    """The sentence with an opening pronoun replaced by the page's subject, so that a claim
    kept from the page still says what it is about: "Its capital is Dhaka." on the page about
    Bangladesh -> "The capital of Bangladesh is Dhaka."."""
    if not subject:
        return sentence
    if sentence.startswith(SHORT_DESCRIPTION):
        return short_description(sentence.removeprefix(SHORT_DESCRIPTION), subject)
    return _pronoun_resolved(sentence, subject)


def _pronoun_resolved(sentence: str, subject: str) -> str:
    late = _LATE_IT.match(sentence)
    if late is not None:
        return f"{late.group(1)}, {subject} {sentence[late.end() :]}"
    match = _PRONOUN_OPENING.match(sentence)
    if match is None:
        return sentence
    rest = sentence[match.end() :]
    if match.group(1):
        owned = _OWNED.match(rest)
        if owned is None:
            return f"{subject}'s {rest}"
        return f"The {owned.group(1)} of {subject} {owned.group(2)}"
    return f"{subject} {rest}"


def short_description(description: str, subject: str) -> str:
    """A page's short description as a sentence about its subject, its first word in lower case
    unless it names a people, its closing years written out: "German-born theoretical physicist
    (1879-1955)" on the page about Albert Einstein -> "Albert Einstein: German-born theoretical
    physicist, born in 1879. Albert Einstein died in 1955."; "Imperial dynasty of China
    (1368-1644)" on the page about the Ming dynasty -> "Ming dynasty: imperial dynasty of China,
    began in 1368. Ming dynasty ended in 1644.": a state's, an era's or an event's years are
    when it began and ended, as its own name or what it is says ("Western Roman Empire")."""
    text = description.strip().removesuffix(".")
    first = text.split(" ", 1)[0]
    if first[1:].islower() and not first.split("-")[0].endswith(PROPER_ENDINGS):
        text = first[:1].lower() + text[1:]  # "Type of lyric poem": not a name
    span = _SPAN.search(text)
    if span is not None:
        text, start, end = text[: span.start()], span.group(1), span.group(2)
        era = re.search(r"(?:BC|BCE)$", end)
        if era is not None and not re.search(r"[A-Z]$", start):
            start = f"{start} {era.group(0)}"  # "(c. 2334-2154 BC)": both years are BC
        head = _HEAD_END.split(text, maxsplit=1)[0].split()[-1:] + subject.split()[-1:]
        # Two sentences, so that each year stands by its own word.
        if not head or {word.casefold() for word in head} & NOT_LIVES:
            return f"{subject}: {text}, began in {start}. {subject} ended in {end}."
        return f"{subject}: {text}, born in {start}. {subject} died in {end}."
    return f"{subject}: {text}."
