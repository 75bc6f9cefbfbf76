"""Citations in a final answer (QUEST-SPEC §2): which sentence cites which URL.

Recognised: markdown links `[text](https://…)`, bare URLs, and numeric markers `[1]`, `[1, 2]`,
`[1-3]`, `[^1]` resolved against a reference list: `[1] https://…`, `[1]: https://…`,
`[^1]: https://…` anywhere on their own line, and `1. Title - https://…` inside a trailing
block or under a References / Sources heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from quest.rubric.text import MAX_SCAN

MAX_CITATIONS = 500
_URL = r"https?://[^\s<>\"'\]\)]+"
_LINK = re.compile(r"\[([^\[\]\n]{0,500})\]\((" + _URL + r")\)")
_BARE_URL = re.compile(_URL)
_MARKER = re.compile(r"\[\^?(\d{1,4}(?:\s*[,;\u2013-]\s*\^?\d{1,4}){0,20})\](?!\()")
_BRACKET_DEF = re.compile(r"^\s*\[\^?(\d{1,4})\]\s*:?\s*(.*)$")
_NUMBERED_DEF = re.compile(r"^\s*(\d{1,4})[.)]\s+(.*)$")
_HEADING = re.compile(
    r"^\s*(?:#+\s*)?[*_]*"
    r"(?:references|sources|citations|bibliography|works cited|links)"
    r"[*_]*\s*:?\s*$",
    re.IGNORECASE,
)
_BOUNDARY = re.compile(r"[.!?]((?:\s*\[\^?\d[\d,;\s\u2013^-]*\])*)\s+(?=[A-Z0-9\"\u201c'(\[*])")
_TRAILING_PUNCT = ".,;:!?"


@dataclass(frozen=True)
class Sentence:
    text: str  # citation markup removed, link text kept
    urls: tuple[str, ...]
    start: int  # offsets in the answer
    end: int


@dataclass(frozen=True)
class Citation:
    fact: str
    url: str
    sentence: int


@dataclass(frozen=True)
class CitedAnswer:
    text: str
    sentences: tuple[Sentence, ...]
    citations: tuple[Citation, ...]
    references: tuple[tuple[str, str], ...]

    def urls(self) -> tuple[str, ...]:
        """Every cited URL once, in order of first citation."""
        return tuple(dict.fromkeys(citation.url for citation in self.citations))


def parse_citations(answer: str) -> CitedAnswer:
    text = answer[:MAX_SCAN]
    lines = _lines(text)
    references, reference_lines = _references(lines)
    sentences: list[Sentence] = []
    for number, (start, line) in enumerate(lines):
        if number not in reference_lines:
            sentences.extend(_sentences(line, start, references))
    citations: list[Citation] = []
    seen: set[tuple[str, str]] = set()
    for index, sentence in enumerate(sentences):
        for url in sentence.urls:
            if (sentence.text, url) not in seen and len(citations) < MAX_CITATIONS:
                seen.add((sentence.text, url))
                citations.append(Citation(sentence.text, url, index))
    return CitedAnswer(text, tuple(sentences), tuple(citations), tuple(references.items()))


def strip_citations(answer: str) -> str:
    """The answer with every citation removed: links become their text, markers, bare URLs
    and the reference list disappear. Used by the probes."""
    lines = _lines(answer)
    _, reference_lines = _references(lines)
    kept = [line for number, (_, line) in enumerate(lines) if number not in reference_lines]
    body = "\n".join(kept)
    body = _LINK.sub(lambda m: m[1], body)
    body = _MARKER.sub("", _BARE_URL.sub(_keep_trailing_punctuation, body))
    return "\n".join(_tidy(line) for line in body.split("\n")).strip()


def _keep_trailing_punctuation(match: re.Match[str]) -> str:
    url = match[0]
    return url[len(url.rstrip(_TRAILING_PUNCT)) :]


def _tidy(text: str) -> str:
    """Collapse the spaces that removed markup leaves behind: `tall [1].` -> `tall.`"""
    return re.sub(r"\s+([.,;:!?)])", r"\1", " ".join(text.split()))


def _lines(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    offset = 0
    for line in text.split("\n"):
        out.append((offset, line))
        offset += len(line) + 1
    return out


def _references(lines: list[tuple[int, str]]) -> tuple[dict[str, str], set[int]]:
    refs: dict[str, str] = {}
    used: set[int] = set()
    for number, (_, line) in enumerate(lines):
        match = _BRACKET_DEF.match(line)
        url = _first_url(match[2]) if match else None
        if match and url:
            refs.setdefault(match[1], url)
            used.add(number)
    for number in _numbered_block(lines):
        match = _NUMBERED_DEF.match(lines[number][1])
        url = _first_url(match[2]) if match else None
        if match and url:
            refs.setdefault(match[1], url)
            used.add(number)
    used.update(
        n
        for n, (_, line) in enumerate(lines)
        if _HEADING.match(line) and _defs_follow(lines, n, used)
    )
    return refs, used


def _numbered_block(lines: list[tuple[int, str]]) -> Iterator[int]:
    """Lines that may hold `1. Title - URL` definitions: after a references heading, or the
    run of such lines that ends the answer (blank lines allowed)."""
    in_section = False
    for number, (_, line) in enumerate(lines):
        if _HEADING.match(line):
            in_section = True
        elif in_section:
            yield number
    tail = len(lines)
    while tail > 0:
        line = lines[tail - 1][1]
        if line.strip() and not (_NUMBERED_DEF.match(line) and _first_url(line)):
            break
        tail -= 1
    yield from range(tail, len(lines))


def _defs_follow(lines: list[tuple[int, str]], heading: int, used: set[int]) -> bool:
    return any(n in used for n in range(heading + 1, min(len(lines), heading + 4)))


def _first_url(text: str) -> str | None:
    match = _BARE_URL.search(text)
    return match[0].rstrip(_TRAILING_PUNCT) if match else None


def _sentences(line: str, offset: int, refs: dict[str, str]) -> Iterator[Sentence]:
    start = 0
    for boundary in _BOUNDARY.finditer(line):
        end = boundary.end(1) if boundary[1] else boundary.start() + 1
        yield _sentence(line[start:end], offset + start, refs)
        start = boundary.end()
    if line[start:].strip():
        yield _sentence(line[start:], offset + start, refs)


def _sentence(raw: str, start: int, refs: dict[str, str]) -> Sentence:
    urls: list[str] = []
    for match in _LINK.finditer(raw):
        urls.append(match[2].rstrip(_TRAILING_PUNCT))
    without_links = _LINK.sub(lambda m: m[1], raw)
    for match in _BARE_URL.finditer(without_links):
        urls.append(match[0].rstrip(_TRAILING_PUNCT))
    for match in _MARKER.finditer(without_links):
        urls.extend(refs[key] for key in _marker_keys(match[1]) if key in refs)
    clean = _tidy(_MARKER.sub("", _BARE_URL.sub("", without_links)))
    text = clean.strip(" -*#>")
    return Sentence(text, tuple(dict.fromkeys(urls)), start, start + len(raw))


def _marker_keys(body: str) -> list[str]:
    keys: list[str] = []
    for part in re.split(r"\s*[,;]\s*", body):
        bounds = [p.strip().lstrip("^") for p in re.split(r"[\u2013-]", part)]
        if len(bounds) == 2 and all(b.isdigit() for b in bounds):
            low, high = int(bounds[0]), int(bounds[1])
            keys.extend(str(n) for n in range(low, min(high, low + 20) + 1))
        elif bounds and bounds[0].isdigit():
            keys.append(bounds[0])
    return keys
