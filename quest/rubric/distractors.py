"""Names of the same kind as a checked value, and pages unrelated to a solution: what the probes
need to write a hedged candidate list, a wrong answer that lists the right one, or a correct
answer citing the wrong page.

`TitleDistractors` reads page titles: a value's kind is the noun its page's first sentence
defines it by ("Mount Kilimanjaro is a large dormant volcano …" -> volcano; "Canberra is a city
in Australia" -> city), so the distractors of Kilimanjaro are other volcanoes, those of Tanzania
other countries. Without pages, `NoDistractors` invents names that cannot be right.
"""

from __future__ import annotations

import re
import zlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from quest.rubric.documents import url_host
from quest.text.fold import fold

_KIND = re.compile(
    r"\b(?:is|was|are|were) (?:a|an|the|one of the) ((?:[\w\u2019'-]+ ){0,4}?[\w-]+?)"
    r"(?= in\b| of\b| on\b| and\b| or\b| that\b| which\b| with\b| located\b| by\b|,|\.|;|$)",
    re.IGNORECASE,
)
_TITLE_TAIL = re.compile(r"\s*\([^)]*\)\s*$")
_INVENTED = ("Zorblax", "Quintavelle", "Dovrenka", "Mirthwold", "Pashgol", "Trunemia")


class Distractors(Protocol):
    def names(self, value: str, k: int) -> list[str]:
        """Up to k names of the same kind as `value`, none of them `value`."""
        ...

    def unrelated_url(self, avoid: Sequence[str]) -> str | None:
        """A readable page that has nothing to do with the pages in `avoid`."""
        ...


class NoDistractors:
    """Invented names (they can never be the right answer) and no unrelated page."""

    def names(self, value: str, k: int) -> list[str]:
        start = zlib.crc32(value.encode("utf-8")) % len(_INVENTED)
        return [_INVENTED[(start + i) % len(_INVENTED)] for i in range(k)]

    def unrelated_url(self, avoid: Sequence[str]) -> str | None:
        return None


@dataclass(frozen=True)
class _Entry:
    name: str
    url: str
    group: tuple[str, str]  # (site, kind)


class TitleDistractors:
    """Distractors from a set of pages (url, title, text): same site and kind first."""

    def __init__(self, pages: Iterable[tuple[str, str, str]]) -> None:
        self._entries: list[_Entry] = []
        self._by_name: dict[str, list[_Entry]] = defaultdict(list)
        self._by_group: dict[tuple[str, str], list[_Entry]] = defaultdict(list)
        self._by_url: dict[str, list[_Entry]] = defaultdict(list)
        for url, title, text in pages:
            name = title_name(title)
            if not name:
                continue
            entry = _Entry(name, url, (url_host(url), page_kind(text)))
            self._entries.append(entry)
            self._by_group[entry.group].append(entry)
            self._by_url[url].append(entry)
            for word in {fold(name), *fold(name).split()}:
                self._by_name[word].append(entry)

    def names(self, value: str, k: int) -> list[str]:
        own = self._page_of(value)
        taken: list[str] = []
        for pool in (self._by_group.get(own.group, []) if own else [], self._entries):
            self._draw(pool, value, k, taken)
        return taken or NoDistractors().names(value, k)

    @staticmethod
    def _draw(pool: list[_Entry], value: str, k: int, taken: list[str]) -> None:
        """Add names from `pool` to `taken` (deterministic for a value) until it holds k."""
        wanted = fold(value)
        start = zlib.crc32(value.encode("utf-8")) % max(1, len(pool))
        for offset in range(min(len(pool), 50 * k)):
            if len(taken) >= k:
                return
            name = pool[(start + offset * 7919) % len(pool)].name
            folded = fold(name)
            if wanted not in folded and folded not in wanted and name not in taken:
                taken.append(name)

    def unrelated_url(self, avoid: Sequence[str]) -> str | None:
        groups = {entry.group for url in avoid for entry in self._entries_at(url)}
        words = {
            w for url in avoid for entry in self._entries_at(url) for w in fold(entry.name).split()
        }
        for entry in self._entries[:: max(1, len(self._entries) // 997)] + self._entries:
            if entry.url in avoid or entry.group in groups:
                continue
            if not words.intersection(fold(entry.name).split()):
                return entry.url
        return None

    def _page_of(self, value: str) -> _Entry | None:
        folded = fold(value)
        candidates = self._by_name.get(folded, [])
        exact = [e for e in candidates if fold(e.name) == folded]
        return (exact or candidates)[0] if candidates else None

    def _entries_at(self, url: str) -> list[_Entry]:
        return self._by_url.get(url, [])


def title_name(title: str) -> str:
    """The name a page is about: "Canberra, Australia (GeoNames)" -> "Canberra"."""
    name = _TITLE_TAIL.sub("", title).strip()
    return name.split(", ")[0].strip() if ", " in name else name


def page_kind(text: str) -> str:
    """The noun the page's first sentence defines its subject by, or ""."""
    match = _KIND.search(text[:400])
    return match[1].split()[-1].lower() if match else ""
