"""The geographic part of the corpus (GeoNames records, then countryinfo pages), and the whole
offline corpus with the Wikipedia summaries before it."""

from __future__ import annotations

from collections.abc import Iterator

from quest.corpus.countryinfo import load_countryinfo
from quest.corpus.geonames import MIN_CITY_POPULATION, load_geonames
from quest.corpus.model import Document
from quest.corpus.packages import utc_now
from quest.corpus.wiki import load_wikipedia


def load_geo(
    *, min_city_population: int = MIN_CITY_POPULATION, fetched_at: str | None = None
) -> Iterator[Document]:
    stamp = fetched_at or utc_now()
    yield from load_geonames(min_city_population=min_city_population, fetched_at=stamp)
    yield from load_countryinfo(fetched_at=stamp)


def load_offline(*, fetched_at: str | None = None) -> Iterator[Document]:
    """The whole offline corpus: the Wikipedia summaries, then the geographic pages."""
    stamp = fetched_at or utc_now()
    yield from load_wikipedia(fetched_at=stamp)
    yield from load_geo(fetched_at=stamp)
