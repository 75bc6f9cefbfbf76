"""Formatting of values, names and citations, and the answer document the grammar edits.

A `Style` picks one option per paraphrase axis; `Doc` is an answer cut into the parts that
attacks rewrite (body blocks, the commitment line, the reference list, footnotes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from quest.synthesis.grammar.canonical import YEAR_RELATIONS
from quest.synthesis.grammar.lexicon import ACCENTED, ALIASES
from quest.text.fold import strip_accents
from quest.text.words import spelled_number

THIN = "\u2009"
NARROW = "\u202f"
# Name endings that read naturally after "The" ("The Jonkoping Airport").
_TAKES_THE = ("Airport", "Islands", "Republic", "Kingdom", "States", "Emirates")


@dataclass(frozen=True)
class Style:
    template: int = 0
    shape: str = "sentence"
    number: str = "comma"
    name: str = "as_is"
    url: str = "plain"
    line: str = "plain"
    pad: int = 0


DEFAULT = Style()
# The reference's own wording (template -1): the base every attack edits.
CANONICAL = Style(template=-1)


@dataclass(frozen=True)
class Doc:
    blocks: tuple[str, ...]
    line: str
    refs: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    refs_first: bool = False

    def text(self) -> str:
        refs = "\n".join(self.refs)
        ordered = [refs, self.line] if self.refs_first else [self.line, refs]
        parts = [*self.blocks, *ordered, *self.notes]
        return "\n\n".join(p for p in parts if p.strip()) + "\n"

    def with_blocks(self, *blocks: str, at: int | None = None) -> Doc:
        where = len(self.blocks) if at is None else at
        return replace(self, blocks=(*self.blocks[:where], *blocks, *self.blocks[where:]))


def number_text(value: str, relation: str, how: str) -> str:
    """A number as a writer might set it; years never take separators or words."""
    number = float(value)
    if number != int(number) or relation in YEAR_RELATIONS:
        return value
    whole = int(number)
    if how == "words" and 0 <= whole < 100:
        return spelled_number(whole)
    grouped = f"{whole:,}"
    separator = {"plain": "", "comma": ",", "thin": THIN, "narrow": NARROW}.get(how, ",")
    return grouped.replace(",", separator) if whole >= 1000 else str(whole)


def name_text(name: str, how: str) -> str:
    """A name in the form `how` asks for; unchanged where that form would not be natural."""
    if how == "fold":
        return strip_accents(name)
    if how == "accent":
        for plain, accented in ACCENTED.items():
            name = re.sub(rf"\b{re.escape(plain)}\b", accented, name)
        return name
    if how == "alias":
        return ALIASES.get(name, (name,))[0]
    if how == "short":
        return _short(name)
    return name


def _short(name: str) -> str:
    for suffix in (" language", " Language"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return {"New York City": "New York", "Modern Greek": "Greek"}.get(name, name)


def line_name(name: str, how: str) -> str:
    """How the commitment line spells an answer under the name axis."""
    if how == "lower":
        return name.lower()
    if how == "upper":
        return name.upper()
    if how == "the":
        alias = ALIASES.get(name, ("",))[0]
        if alias.startswith("the "):
            return "The " + alias[4:]
        return f"The {name}" if name.endswith(_TAKES_THE) else name
    return name_text(name, how)


def url_text(url: str, how: str) -> str:
    if how == "query":
        return url + ("&" if "?" in url else "?") + "utm_source=chatgpt.com"
    if how == "fragment":
        return url + ("#History" if "wikipedia.org" in url else "#facts")
    if how == "slash":
        return url if url.endswith("/") else url + "/"
    if how == "http":
        return url.replace("https://", "http://", 1)
    if how == "mobile":
        return url.replace("://en.wikipedia.org", "://en.m.wikipedia.org", 1)
    return url


@dataclass
class Citer:
    """Numbers citations in order of first use, or writes them as inline links."""

    how: str = "plain"
    urls: list[str] = field(default_factory=list)

    def mark(self, urls: tuple[str, ...]) -> str:
        if not urls:
            return ""
        if self.how == "inline":
            return " " + " ".join(f"([source]({u}))" for u in urls)
        numbers = []
        for url in urls:
            if url not in self.urls:
                self.urls.append(url)
            numbers.append(self.urls.index(url) + 1)
        return " " + "".join(f"[{n}]" for n in numbers)

    def references(self) -> tuple[str, ...]:
        if self.how == "inline":
            return ()
        return tuple(f"[{i}] {url_text(u, self.how)}" for i, u in enumerate(self.urls, 1))


def answer_line(answer: str, how: str, unit: str = "") -> str:
    forms = {
        "plain": f"Exact answer: {answer}",
        "bold": f"**Exact answer:** {answer}",
        "fullwidth": f"Exact Answer\uff1a{answer}",
        "table": f"| Field | Value |\n|---|---|\n| Exact answer | {answer} |",
        "answer_bold": f"Exact answer: **{answer}**",
        "period": f"Exact answer: {answer}.",
        "unit": f"Exact answer: {answer} {unit}".rstrip(),
    }
    return forms.get(how, forms["plain"])
