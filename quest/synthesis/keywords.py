"""Seed keywords for the llm proposer (QUEST-SPEC §3: trending keywords, 10 sampled per task).

From a CSV file with one `keyword` column (`read_keywords`), or, offline by default, derived
from the corpus per subcategory (`CorpusKeywords`): the titles of the Wikipedia pages a BM25
search for the subcategory's own terms ranks first, so a "Food & Cooking" task starts from
pages such as "Bread" or "Cheese" that the corpus can answer questions about.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence

from quest.synthesis.seeds import SUBCATEGORIES

MAX_KEYWORDS = 10_000
MAX_KEYWORD_CHARS = 200
PER_SUBCATEGORY = 40
# The subcategory's own terms, widened a little so BM25 finds its pages.
QUERIES: dict[str, str] = {
    "Shopping": "shopping retail market trade goods",
    "Food & Cooking": "food cuisine cooking dish",
    "Sports & Fitness": "sport athletics football exercise",
    "Health & Medicine": "disease medicine health treatment",
    "Pets & Animal Welfare": "domestic animal dog cat pet",
    "Fashion & Beauty": "clothing fashion textile cosmetics",
    "Hobbies & DIY": "craft hobby game tool",
    "Films & TV Shows": "film television director actor",
    "Gaming & Virtual Worlds": "video game computer game",
    "Live Shows & Performances": "theatre opera dance performance",
    "Music": "music composer song instrument",
    "Books & Reading": "novel book writer literature",
    "General Info.": "country city history",
    "News": "newspaper journalism broadcasting",
    "Legal & Government Services": "law government constitution court",
    "Real Estate": "architecture building city housing",
    "Finance & Investment": "currency bank economy finance",
    "Research & Academia": "university science research",
    "Technology & Science": "technology engineering physics computer",
    "Education & Learning": "education school university learning",
    "Jobs & Career": "occupation labour profession work",
    "Travel & Accommodation": "tourism travel city landmark",
    "Outdoor & Recreation": "mountain river national park",
    "Ticketed Activities": "museum stadium festival theatre",
}
assert set(QUERIES) == set(SUBCATEGORIES)

Search = Callable[[str, int], Sequence[tuple[str, str]]]  # (query, k) -> [(url, title)]


class CorpusKeywords:
    """Keywords per subcategory from a corpus search, computed once per subcategory."""

    def __init__(self, search: Search) -> None:
        self.search = search
        self._cache: dict[str, list[str]] = {}

    def __call__(self, subcategory: str) -> list[str]:
        if subcategory not in self._cache:
            hits = self.search(QUERIES.get(subcategory, subcategory), PER_SUBCATEGORY)
            titles = [t for url, t in hits if "wikipedia.org/" in url and t.strip()]
            self._cache[subcategory] = list(dict.fromkeys(titles)) or [subcategory]
        return self._cache[subcategory]


class KeywordError(ValueError):
    pass


def read_keywords(data: str | bytes, *, name: str = "the file") -> list[str]:
    """The `keyword` column of a CSV file, blanks and repeats dropped; KeywordError saying
    what is wrong otherwise."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise KeywordError(f"{name}: not UTF-8 text") from None
    if "\x00" in data:
        raise KeywordError(f"{name}: holds a NUL character")
    try:
        reader = csv.DictReader(io.StringIO(data))
        if "keyword" not in (reader.fieldnames or []):
            raise KeywordError(f"{name}: no `keyword` column (found {reader.fieldnames})")
        found = dict.fromkeys(
            " ".join(str(row.get("keyword") or "").split())[:MAX_KEYWORD_CHARS] for row in reader
        )
    except csv.Error as exc:
        raise KeywordError(f"{name}: not a CSV file: {exc}") from None
    keywords = [k for k in found if k]
    if not keywords:
        raise KeywordError(f"{name}: no keywords in the `keyword` column")
    if len(keywords) > MAX_KEYWORDS:
        raise KeywordError(f"{name}: more than {MAX_KEYWORDS:,} keywords")
    return keywords
