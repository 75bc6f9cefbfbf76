"""An answer's prose and its citations (QUEST-SPEC §2), read with markdown-it-py.

The answer is parsed as CommonMark (with tables and strikethrough). Its prose is cut into
*claims*: the sentences of paragraphs, list items and headings, and one claim per table row
("Header: cell | …"), of what a reader sees (quest.text.visible: code, HTML, footnotes and alt
text are prose there; hidden elements are gone). Reference lists are not prose, and neither is
struck-out text (`~~…~~`, `<del>…</del>`, `<s>…</s>`, `<strike>…</strike>`): its words and
the citations inside it belong to no claim. Each claim knows the URLs it cites:

- inline links `[text](https://…)`, autolinks `<https://…>` and bare URLs; a link whose text
  is only a marker (`[1](url)`, `[source](url)`, the URL itself) cites without adding words;
- reference links `[text][ref]`, `[1]` and `[^1]` against definitions `[1]: https://…`;
- numeric markers `[1]`, `[1, 2]`, `[1-3]`, `[^1]` against reference lines `[1] https://…`,
  or against `1. Title - https://…` items under a References / Sources heading or in a trailing
  list whose every item holds a URL.

A marker that follows a full stop belongs to the sentence before it. Only http(s) URLs cite.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from quest.rubric.sentences import sentence_starts
from quest.text.fold import MAX_SCAN
from quest.text.visible import visible_markdown

_ADJACENT_MARKERS = re.compile(r"\[(\d{1,4})\](?=\[\d{1,4}\])")

MAX_CITATIONS = 500
_URL = r"https?://[^\s<>\"'\]\)]+"
_BARE_URL = re.compile(_URL)
_MARKER = re.compile(r"\[\^?(\d{1,4}(?:\s*[,;\u2013-]\s*\^?\d{1,4}){0,20})\](?![(\[:])")
_REFERENCE_LINE = re.compile(r"^\s{0,3}\[\^?(\d{1,4})\]:?\s+(.*)$")
_NUMBERED_ITEM = re.compile(r"^\s*(\d{1,4})[.)]\s+")
# Possessive runs (`*+`): none of their characters can start what follows them, and a plain `*`
# would backtrack quadratically over a long run of `*` or spaces after the word.
_HEADING = re.compile(
    r"^[#*_\s]*+(?:references|sources|citations|bibliography|works cited|links)"
    r"[*_\s]*+(?::[*_\s]*+)?$",
    re.IGNORECASE,
)
# Link texts that only point at a source: they cite, but they are not words of the claim.
_LABEL = re.compile(
    r"^\s*(?:\^?\d{1,4}|\[?\^?\d{1,4}\]?|source|sources|link|here|ref|reference|citation|cite|"
    r"see|https?://\S*)\s*$",
    re.IGNORECASE,
)
# The label an answer line opens with ("**Answer:** Canberra …") is shown to the reader, but it
# is not part of the fact a cited page must state.
_ANSWER_LABEL = re.compile(r"^(?:(?:final|short)\s+)?answer\s*:\s*", re.IGNORECASE)
_SPACES = re.compile(r"[ \t\r\n\f\v]+")
_URL_OR_MARKER = re.compile(f"{_URL}|{_MARKER.pattern}")
_STRIKE_TAG = re.compile(r"<(/?)(?:del|s|strike)\b[^>]*>", re.IGNORECASE)


@dataclass(frozen=True)
class Claim:
    """One sentence of prose (or one table row) with the URLs it cites."""

    text: str  # markup, URLs and citation markers removed; link text kept unless a marker
    urls: tuple[str, ...]
    block: int  # which paragraph, list item, heading or table row it comes from
    kind: str  # "paragraph" | "item" | "heading" | "row"


@dataclass(frozen=True)
class Citation:
    fact: str
    url: str
    sentence: int  # index into CitedAnswer.claims


@dataclass(frozen=True)
class CitedAnswer:
    text: str
    claims: tuple[Claim, ...]
    citations: tuple[Citation, ...]
    references: tuple[tuple[str, str], ...]  # numbered reference list: (number, url)

    def urls(self) -> tuple[str, ...]:
        """Every cited URL once, in order of first citation."""
        return tuple(dict.fromkeys(citation.url for citation in self.citations))

    def prose(self) -> str:
        """The answer's claims, one per line: what the deterministic checks read."""
        return "\n".join(claim.text for claim in self.claims)


@dataclass
class _Block:
    kind: str
    lines: tuple[int, int]
    inline: Token | None = None
    cells: list[tuple[str, Token]] = field(default_factory=list)  # table rows: (header, cell)
    number: int | None = None  # the item's number in an ordered list


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


@lru_cache(maxsize=64)
def parse_citations(answer: str) -> CitedAnswer:
    """The claims and citations of what a reader of the answer sees (quest.text.visible)."""
    text = visible_markdown(answer[:MAX_SCAN])
    # "[1][2]" is two numbered citations, not Markdown's link "1" to reference "2".
    lines = _ADJACENT_MARKERS.sub(r"[\1] ", text).split("\n")
    references, kept_lines = _reference_lines(lines)
    env: dict[str, object] = {}
    blocks = list(_blocks(_markdown().parse("\n".join(kept_lines), env)))
    listed = _reference_blocks(blocks, kept_lines)
    for block in blocks:
        if id(block) in listed and block.number is not None:
            url = _first_url(_block_source(block, kept_lines))
            if url:
                references.setdefault(str(block.number), url)
    for label, definition in _definitions(env):
        references.setdefault(label, definition)
    claims: list[Claim] = []
    for index, block in enumerate(blocks):
        if id(block) not in listed:
            claims.extend(_claims(block, index, references))
    return CitedAnswer(text, tuple(claims), _citations(claims), tuple(references.items()))


def strip_citations(answer: str) -> str:
    """The answer's prose with every citation removed (used by the probes)."""
    parsed = parse_citations(answer)
    out: list[str] = []
    last_block = None
    for claim in parsed.claims:
        if last_block is not None and claim.block != last_block:
            out.append("\n")
        elif out:
            out.append(" ")
        out.append(claim.text)
        last_block = claim.block
    return "".join(out).strip()


def _citations(claims: Sequence[Claim]) -> tuple[Citation, ...]:
    citations: list[Citation] = []
    seen: set[tuple[str, str]] = set()
    for index, claim in enumerate(claims):
        for url in claim.urls:
            if (claim.text, url) not in seen and len(citations) < MAX_CITATIONS:
                seen.add((claim.text, url))
                citations.append(Citation(_ANSWER_LABEL.sub("", claim.text, count=1), url, index))
    return tuple(citations)


# -- reference lists -----------------------------------------------------------------------------


def _reference_lines(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    """`[1] https://…`, `[1]: https://…` and `[^1]: https://…` lines: collected and blanked, so
    markdown never sees them (and line numbers stay as they were)."""
    references: dict[str, str] = {}
    kept: list[str] = []
    for line in lines:
        match = _REFERENCE_LINE.match(line)
        url = _first_url(match[2]) if match else None
        if match and url:
            references.setdefault(match[1], url)
            kept.append("")
        else:
            kept.append(line)
    return references, kept


def _definitions(env: dict[str, object]) -> Iterator[tuple[str, str]]:
    """Numbered CommonMark link definitions (`[1]: url` was already taken; `[n]: url "title"`)."""
    found = env.get("references")
    if not isinstance(found, dict):
        return
    for label, definition in found.items():
        href = definition.get("href", "") if isinstance(definition, dict) else ""
        number = str(label).lstrip("^")
        if number.isdigit() and isinstance(href, str) and _BARE_URL.fullmatch(href):
            yield number, href


def _reference_blocks(blocks: list[_Block], lines: list[str]) -> set[int]:
    """Blocks that list sources rather than state facts: a references heading, everything holding
    a URL under it, and a trailing run of numbered list items that all hold one."""
    listed: set[int] = set()
    heading: _Block | None = None
    for block in blocks:
        source = _block_source(block, lines)
        if block.kind in ("heading", "paragraph") and _HEADING.match(source.strip()):
            heading = block  # a "References" line is never a claim, whatever follows it
            listed.add(id(block))
            continue
        if block.kind == "heading":
            heading = None
        if heading is not None and _first_url(source):
            listed.add(id(block))
    tail = len(blocks)
    while tail > 0 and blocks[tail - 1].kind == "item":
        if not _first_url(_block_source(blocks[tail - 1], lines)):
            break
        tail -= 1
    trailing = blocks[tail:]
    if trailing and all(block.number is not None for block in trailing):
        listed.update(id(block) for block in trailing)
    return listed


def _block_source(block: _Block, lines: list[str]) -> str:
    first, last = block.lines
    return "\n".join(lines[first:last])


def _first_url(text: str) -> str | None:
    match = _BARE_URL.search(text)
    return match[0].rstrip(".,;:!?") if match else None


# -- blocks --------------------------------------------------------------------------------------


def _blocks(tokens: list[Token]) -> Iterator[_Block]:
    """Paragraphs, headings and list items (each with its inline token), and table body rows.
    Code blocks and raw HTML yield nothing: they are not prose."""
    reader = _BlockReader()
    for token in tokens:
        yield from reader.read(token)


@dataclass
class _BlockReader:
    numbers: list[int | None] = field(default_factory=list)  # the open lists' next numbers
    headers: list[str] = field(default_factory=list)
    row: _Block | None = None
    in_head: bool = False
    pending: _Block | None = None

    def read(self, token: Token) -> Iterator[_Block]:
        kind = token.type
        if kind in ("ordered_list_open", "bullet_list_open", "ordered_list_close"):
            self._list(token)
        elif kind == "bullet_list_close":
            self.numbers.pop()
        elif kind == "list_item_open":
            current = self.numbers[-1] if self.numbers else None
            self.pending = _Block("item", _lines(token), number=current)
            if current is not None:
                self.numbers[-1] = current + 1
        elif kind in ("heading_open", "paragraph_open") and self.pending is None:
            self.pending = _Block(kind.removesuffix("_open"), _lines(token))
        elif kind in ("thead_open", "thead_close", "tr_open", "tr_close"):
            yield from self._table(token)
        elif kind == "inline":
            yield from self._inline(token)

    def _list(self, token: Token) -> None:
        if token.type == "ordered_list_close":
            self.numbers.pop()
        elif token.type == "ordered_list_open":
            self.numbers.append(int(token.attrs.get("start", 1) or 1))
        else:
            self.numbers.append(None)

    def _table(self, token: Token) -> Iterator[_Block]:
        if token.type == "thead_open":
            self.in_head, self.headers = True, []
        elif token.type == "thead_close":
            self.in_head = False
        elif token.type == "tr_open" and not self.in_head:
            self.row = _Block("row", _lines(token))
        elif token.type == "tr_close" and self.row is not None:
            yield self.row
            self.row = None

    def _inline(self, token: Token) -> Iterator[_Block]:
        if self.in_head:
            self.headers.append(token.content.strip())
        elif self.row is not None:
            column = len(self.row.cells)
            header = self.headers[column] if column < len(self.headers) else ""
            self.row.cells.append((header, token))
        elif self.pending is not None:
            self.pending.inline = token
            yield self.pending
            self.pending = None


def _lines(token: Token) -> tuple[int, int]:
    return (token.map[0], token.map[1]) if token.map else (0, 0)


# -- inline text and claims ----------------------------------------------------------------------


@dataclass
class _Inline:
    """Flattened inline text with the positions where citations were found."""

    parts: list[str] = field(default_factory=list)
    anchors: list[tuple[int, str]] = field(default_factory=list)  # (offset, url)
    length: int = 0

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    def cite(self, url: str) -> None:
        self.anchors.append((self.length, url))

    def text(self) -> str:
        return "".join(self.parts)


def _flatten(token: Token, references: dict[str, str], into: _Inline | None = None) -> _Inline:
    out = into if into is not None else _Inline()
    children = token.children or []
    index = 0
    struck = 0  # how many deletions are open here
    while index < len(children):
        child = children[index]
        struck = _struck(child, struck)
        if child.type == "link_open":
            index, struck = _link(children, index, out, references, struck)
            continue
        if not struck and child.type in ("text", "code_inline"):
            _text(child.content, out, references)
        elif not struck and child.type in ("softbreak", "hardbreak"):
            out.add(" ")
        index += 1
    return out


def _struck(token: Token, struck: int) -> int:
    """The number of deletions open after `token`: `~~` and inline `<del>`, `<s>`, `<strike>`
    open one, their closing markup closes one."""
    if token.type == "s_open":
        return struck + 1
    if token.type == "s_close":
        return max(struck - 1, 0)
    tag = _STRIKE_TAG.fullmatch(token.content.strip()) if token.type == "html_inline" else None
    if tag is None or tag[0].endswith("/>"):
        return struck
    return max(struck - 1, 0) if tag[1] else struck + 1


def _link(
    children: list[Token], start: int, out: _Inline, references: dict[str, str], struck: int
) -> tuple[int, int]:
    """A link's words and citation; a link inside a deletion is deleted with it, words struck
    inside its text are left out. Returns where reading goes on, and the deletions open."""
    inside = struck > 0
    href = str(children[start].attrs.get("href", ""))
    words: list[str] = []
    index = start + 1
    while index < len(children) and children[index].type != "link_close":
        struck = _struck(children[index], struck)
        if children[index].type in ("text", "code_inline") and not struck:
            words.append(children[index].content)
        index += 1
    if inside:
        return index + 1, struck
    label = "".join(words)
    if not _LABEL.match(label):
        _text(label, out, references)
    if _BARE_URL.fullmatch(href):
        out.cite(href)
    return index + 1, struck


def _text(text: str, out: _Inline, references: dict[str, str]) -> None:
    """Plain text: bare URLs and numeric markers become citations at the place they stood."""
    last = 0
    for match in _URL_OR_MARKER.finditer(text):
        out.add(text[last : match.start()])
        if match[0].startswith("http"):
            url = match[0].rstrip(".,;:!?")
            out.cite(url)
            out.add(match[0][len(url) :])
        else:
            for key in _marker_keys(match[1]):
                if key in references:
                    out.cite(references[key])
        last = match.end()
    out.add(text[last:])


def _claims(block: _Block, index: int, references: dict[str, str]) -> Iterator[Claim]:
    if block.kind == "row":
        yield from _row_claim(block, index, references)
        return
    if block.inline is None:
        return
    flat = _flatten(block.inline, references)
    for text, urls in _sentences(flat):
        yield Claim(text, urls, index, block.kind)


def _row_claim(block: _Block, index: int, references: dict[str, str]) -> Iterator[Claim]:
    flat = _Inline()
    for column, (header, cell) in enumerate(block.cells):
        if column:
            flat.add(" | ")
        if header:
            flat.add(f"{header}: ")
        _flatten(cell, references, flat)
    text = _tidy(flat.text())
    if text:
        yield Claim(text, tuple(dict.fromkeys(url for _, url in flat.anchors)), index, "row")


def _sentences(flat: _Inline) -> Iterator[tuple[str, tuple[str, ...]]]:
    text = flat.text()
    cuts = [*sentence_starts(text), len(text)]
    spans = [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]
    owner = _Owner(text, cuts[:-1])
    cited: list[list[str]] = [[] for _ in spans]
    for offset, url in flat.anchors:
        cited[owner.of(offset)].append(url)
    for (start, end), urls in zip(spans, cited, strict=True):
        sentence = _tidy(text[start:end])
        if sentence:
            yield sentence, tuple(dict.fromkeys(urls))


class _Owner:
    """The sentence a citation at an offset belongs to: the one it sits in, or the one before
    when it stands at the very start of a sentence (`… capital. [1] Lyon …`). A binary search
    over the sentence starts, so many citations in a long paragraph stay cheap."""

    def __init__(self, text: str, starts: list[int]) -> None:
        self.starts = starts
        self.end = len(text)
        # Where each sentence's first non-space character stands: a citation at or before it
        # has nothing of its sentence before it.
        self.words = [
            start + len(text[start:stop]) - len(text[start:stop].lstrip())
            for start, stop in zip(starts, [*starts[1:], len(text)], strict=True)
        ]

    def of(self, offset: int) -> int:
        last = len(self.starts) - 1
        if offset > self.end:
            return last
        number = min(bisect_right(self.starts, offset) - 1, last)
        if number > 0 and offset <= self.words[number]:
            return number - 1
        return number


def _tidy(text: str) -> str:
    """Collapse the spaces and empty brackets that removed markup leaves: `tall ( ).` -> `tall.`"""
    text = _SPACES.sub(" ", text)  # not str.split: a no-break space inside 1\u00a0083 stays
    text = re.sub(r"\(\s*[,;]?\s*\)|\[\s*\]", "", text)
    text = re.sub(r" +([.,;:!?)])", r"\1", text)
    text = re.sub(r"([,;:])\1+", r"\1", text)
    return _SPACES.sub(" ", text).strip(" -*#>|")


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
