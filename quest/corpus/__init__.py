"""The offline web: documents with provenance, their passages, loaders and the on-disk store.

Sources: Wikipedia vital-article summaries (CC BY-SA 4.0), GeoNames countries and cities
(CC BY 4.0), countryinfo country facts (MIT), the data-package domains of quest.corpus.domains
(elements, airports, languages, US states, holidays, subdivisions), and users' own JSONL files.
Package data files are read directly where a package's imports would pull unrelated code.
"""

from __future__ import annotations

from quest.corpus.chunking import MAX_WORDS, chunk_document, chunk_text
from quest.corpus.countryinfo import countryinfo_url, load_countryinfo
from quest.corpus.domains import DOMAINS, domain_data, load_domains
from quest.corpus.geo import load_geo, load_offline
from quest.corpus.geonames import MIN_CITY_POPULATION, geonames_url, load_geonames
from quest.corpus.jsonl import JsonlImport, LineError
from quest.corpus.model import (
    COUNTRYINFO,
    GEONAMES,
    LICENCES,
    WIKIPEDIA,
    CorpusError,
    Document,
    Passage,
    attribution,
)
from quest.corpus.store import CorpusStore, CorpusSummary, SourceSummary, WriteReport, corpus_write
from quest.corpus.wiki import load_wikipedia, wikipedia_url

__all__ = [
    "COUNTRYINFO",
    "DOMAINS",
    "GEONAMES",
    "LICENCES",
    "MAX_WORDS",
    "MIN_CITY_POPULATION",
    "WIKIPEDIA",
    "CorpusError",
    "CorpusStore",
    "CorpusSummary",
    "Document",
    "JsonlImport",
    "LineError",
    "Passage",
    "SourceSummary",
    "WriteReport",
    "attribution",
    "chunk_document",
    "chunk_text",
    "corpus_write",
    "countryinfo_url",
    "domain_data",
    "geonames_url",
    "load_countryinfo",
    "load_domains",
    "load_geo",
    "load_geonames",
    "load_offline",
    "load_wikipedia",
    "wikipedia_url",
]
