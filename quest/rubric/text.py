"""Text normalisation shared by the deterministic checks and the citation checker."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

# Checks read at most this much of an answer or a page: enough for any real report, and it
# keeps every check linear and bounded on hostile input.
MAX_SCAN = 400_000

_SEPARATORS = re.compile(r"[\W_]+", re.UNICODE)
_STOPWORD_TEXT = """
a an and are as at be been but by for from has have he her his in is it its of on or she that the
their them they this to was were which who will with not no than then there these those into over
also our your you we i me my us can could would should may might must shall do does did done about
after before between during under above such
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@lru_cache(maxsize=65_536)  # the reward folds the same pages and claims again and again
def fold(text: str) -> str:
    """Case-, accent- and punctuation-insensitive form: `São-Paulo!` -> `sao paulo`."""
    decomposed = unicodedata.normalize("NFKD", text[:MAX_SCAN])
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _SEPARATORS.sub(" ", stripped.casefold()).strip()


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
        at = padded.find(f" {phrase} ")
        return at  # padding shifts by one and the match starts one past the space: they cancel

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
    text = text[:MAX_SCAN]
    chars: list[str] = []
    origin: list[int] = []
    pending_space = False
    for index, ch in enumerate(text):
        for part in unicodedata.normalize("NFKD", ch).casefold():
            if unicodedata.combining(part):
                continue
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
    left = max(0, start - context)
    right = min(len(text), end + context)
    piece = text[left:right]
    if left > 0 and " " in piece[:context]:
        piece = piece[piece.index(" ") + 1 :]
    if right < len(text) and " " in piece[-context:]:
        piece = piece[: piece.rindex(" ")]
    return " ".join(piece.split())


def key_tokens(text: str) -> list[str]:
    """Content words and numbers of a fact: what a supporting page must also contain."""
    return [
        tok
        for tok in fold(text).split()
        if tok not in STOPWORDS and (len(tok) > 2 or tok.isdigit())
    ]


def word_set(words: str) -> frozenset[str]:
    """A frozen set of the whitespace-separated words of `words` (for rule vocabularies)."""
    return frozenset(words.split())
