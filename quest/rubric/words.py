"""How the page support check (quest.rubric.support) matches a claim's word to a page's: the
same word, one Snowball stem, synonyms of a relation, or a short ending more."""

from __future__ import annotations

from dataclasses import dataclass

from quest.rubric.relations import RELATIONS
from quest.text.words import stem


@dataclass(frozen=True)
class Vocabulary:
    """A window's words indexed for what same_word compares: exact words, Snowball stems, synonym
    groups, and the prefixes a word a few letters longer starts with."""

    words: frozenset[str]
    stems: frozenset[str]
    groups: frozenset[str]
    prefixes: frozenset[str]

    @classmethod
    def of(cls, words: tuple[str, ...]) -> Vocabulary:
        unique = frozenset(words)
        return cls(
            unique,
            frozenset(stem(w) for w in unique),
            frozenset(RELATIONS[w] for w in unique if w in RELATIONS),
            frozenset(w[:n] for w in unique for n in range(max(4, len(w) - 3), len(w))),
        )

    def has(self, word: str) -> bool:
        """Whether a word of the window is `word` by same_word's rules, without a scan."""
        return (
            word in self.words
            or stem(word) in self.stems
            or RELATIONS.get(word, "") in self.groups
            or (len(word) >= 4 and word in self.prefixes)
            or any(word[:n] in self.words for n in range(max(4, len(word) - 3), len(word)))
        )


def same_word(a: str, b: str) -> bool:
    """Equal, one Snowball stem (city/cities, border/borders) or synonyms of a relation
    (largest/biggest, border/neighbour), or one extends the other by a short ending
    (high/highest, Kenya/Kenyan)."""
    if a == b or stem(a) == stem(b):
        return True
    if a in RELATIONS and RELATIONS[a] == RELATIONS.get(b):
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 4 and long.startswith(short) and len(long) - len(short) <= 3
