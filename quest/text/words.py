"""Words as every package counts them: one English stopword list, the number words, Snowball
stems (the Snowball English stemmer, as search engines use it) and a fact's content words.

The lists are data; which words carry no content is decided here once, so the index, the
citation checker and the reader of a question agree on it.
"""

from __future__ import annotations

from functools import lru_cache

import snowballstemmer

from quest.text.fold import fold, strip_accents


def word_set(words: str) -> frozenset[str]:
    """A frozen set of the whitespace-separated words of `words` (for vocabularies)."""
    return frozenset(words.split())


# Function words of English. "us" and "may" are left out: folded, they are also "US" and the
# month, which a question or a fact can be about.
STOPWORDS = word_set(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during each
    few for from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just me might more most must my myself no nor not now of off on
    once only or other our ours ourselves out over own same shall she should so some such than
    that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would
    you your yours yourself"""
)

# The number words a count is written with, by value: NUMBER_WORDS[7] == "seven".
NUMBER_WORDS = tuple(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty""".split()  # noqa: SIM905
)
TENS_WORDS = tuple("twenty thirty forty fifty sixty seventy eighty ninety".split())  # noqa: SIM905
SCALE_WORDS = ("hundred", "thousand", "million", "billion")


def number_word(n: int) -> str:
    """`n` as a count is written in prose: "seven" up to twenty, digits past it."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def spelled_number(n: int) -> str:
    """`n` in words below a hundred ("fifty-seven"), in digits from a hundred on."""
    if not 0 <= n < 100:
        return str(n)
    if n < len(NUMBER_WORDS):
        return NUMBER_WORDS[n]
    tens, ones = divmod(n, 10)
    return TENS_WORDS[tens - 2] + (f"-{NUMBER_WORDS[ones]}" if ones else "")


_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65_536)  # the same words are stemmed page after page
def stem(word: str) -> str:
    """The Snowball English stem of one word, accents dropped and lower-cased:
    "Cities" -> "citi", "borders" -> "border"."""
    return str(_STEMMER.stemWord(strip_accents(word).casefold()))


def key_tokens(text: str) -> list[str]:
    """Content words and numbers of a fact: what a supporting page must also contain."""
    return [
        tok
        for tok in fold(text).split()
        if tok not in STOPWORDS and (len(tok) > 2 or tok.isdigit())
    ]
