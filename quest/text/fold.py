"""Folding text for comparison: accents, case and punctuation, one way for every package.

`strip_accents` drops the marks a letter carries ("Curaçao" -> "Curacao") and transliterates
the Latin letters that have none to drop ("Łódź" -> "Lodz", "Ørsted" -> "Orsted", "ß" -> "ss")
with anyascii; other scripts are kept as written. `fold` is the case-, accent- and
punctuation-insensitive form the checks compare; `fold_with_origin` keeps, for each folded
character, where it came from, so a match can be quoted verbatim.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from anyascii import anyascii

# Checks read at most this much of an answer or a page: enough for any real report, and it
# keeps every check linear and bounded on hostile input.
MAX_SCAN = 400_000

_SEPARATORS = re.compile(r"[\W_]+", re.UNICODE)


class _LatinTable(dict[int, str]):
    """str.translate's table for what NFKD leaves: a Latin letter without a mark to drop is
    transliterated (ø, ł, đ, æ, ß), anything else maps to itself; each character once."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        plain = anyascii(char) if unicodedata.name(char, "").startswith("LATIN") else char
        self[code] = plain
        return plain


_LATIN = _LatinTable()


def strip_accents(text: str) -> str:
    """`text` with accents dropped and Latin letters made plain; other scripts unchanged."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return bare if bare.isascii() else bare.translate(_LATIN)


@lru_cache(maxsize=65_536)  # the reward folds the same pages and claims again and again
def fold(text: str) -> str:
    """Case-, accent- and punctuation-insensitive form: `São-Paulo!` -> `sao paulo`."""
    return _SEPARATORS.sub(" ", strip_accents(text[:MAX_SCAN]).casefold()).strip()


@dataclass(frozen=True)
class FoldedText:
    """A folded text with, for each folded character, the index of its source character, so a
    match in folded space can be quoted verbatim from the original."""

    original: str
    folded: str
    origin: tuple[int, ...]

    def find_phrase(self, phrase: str) -> int:
        """Start of `phrase` (already folded) as whole words in the folded text, or -1."""
        if not phrase:
            return -1
        padded = f" {self.folded} "
        return padded.find(f" {phrase} ")  # the padding and the space before cancel out

    def find_all(self, phrase: str) -> list[tuple[int, int]]:
        """Every whole-word occurrence of `phrase` (already folded) as a span of the original
        text: (start, end) offsets into `original`."""
        spans: list[tuple[int, int]] = []
        if not phrase or not self.origin:
            return spans
        padded = f" {self.folded} "
        at = padded.find(f" {phrase} ")
        while at >= 0:
            last = min(at + len(phrase) - 1, len(self.origin) - 1)
            spans.append((self.origin[at], self.origin[last] + 1))
            at = padded.find(f" {phrase} ", at + 1)
        return spans

    def quote(self, start: int, length: int, context: int = 80) -> str:
        """The original text around folded[start:start+length], trimmed to whole words."""
        if not self.origin:
            return ""
        first = self.origin[min(start, len(self.origin) - 1)]
        last = self.origin[min(start + max(length, 1) - 1, len(self.origin) - 1)]
        return snippet(self.original, first, last + 1, context)


@lru_cache(maxsize=64)
def fold_with_origin(text: str) -> FoldedText:
    """`fold(text)` with the source index of each folded character."""
    text = text[:MAX_SCAN]
    chars: list[str] = []
    origin: list[int] = []
    pending_space = False
    for index, ch in enumerate(text):
        for part in strip_accents(ch).casefold():
            if part.isalnum():
                if pending_space and chars:
                    chars.append(" ")
                    origin.append(index)
                pending_space = False
                chars.append(part)
                origin.append(index)
            else:
                pending_space = True
    return FoldedText(text, "".join(chars), tuple(origin))


def snippet(text: str, start: int, end: int, context: int = 80) -> str:
    """text[start:end] with up to `context` characters either side, cut at whole words."""
    left = max(0, start - context)
    right = min(len(text), end + context)
    piece = text[left:right]
    if left > 0 and " " in piece[:context]:
        piece = piece[piece.index(" ") + 1 :]
    if right < len(text) and " " in piece[-context:]:
        piece = piece[: piece.rindex(" ")]
    return " ".join(piece.split())
