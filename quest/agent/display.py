"""Small, JSON-ready views of what happened in a run, for event payloads: the sources a tool
result names, the citations of an answer, tool arguments cut to a displayable size."""

from __future__ import annotations

from collections.abc import Mapping

from quest.agent.research.reading import read_search, read_visit
from quest.rubric.citations import parse_citations

SEARCH_TOOLS = ("search", "google_scholar")
DISPLAY_CHARS = 4_000
MAX_ARGUMENT_CHARS = 2_000


def result_sources(name: str, text: str) -> list[dict[str, str]]:
    """The pages a search listed or a visit read, each once, as {url, title}."""
    if name in SEARCH_TOOLS:
        pairs = [(hit.url, hit.title) for hit in read_search(text)]
    elif name == "visit":
        pairs = [(page.url, page.title) for page in read_visit(text)]
    else:
        return []
    first: dict[str, str] = {}
    for url, title in pairs:
        first.setdefault(url, title)
    return [{"url": url, "title": title} for url, title in first.items()]


def answer_citations(answer: str, titles: Mapping[str, str]) -> list[dict[str, object]]:
    """{n, url, title} for each cited source: numbered references first, in number order, then
    URLs cited inline, numbered after them."""
    cited = parse_citations(answer)
    numbered = sorted((int(n), url) for n, url in cited.references)
    listed = {url for _, url in numbered}
    number = max((n for n, _ in numbered), default=0)
    out: list[dict[str, object]] = [
        {"n": n, "url": url, "title": titles.get(url, "")} for n, url in numbered
    ]
    for url in cited.urls():
        if url not in listed:
            number += 1
            listed.add(url)
            out.append({"n": number, "url": url, "title": titles.get(url, "")})
    return out


def display_arguments(arguments: Mapping[str, object]) -> dict[str, object]:
    return {key: _cut(value) for key, value in arguments.items()}


def _cut(value: object) -> object:
    if isinstance(value, str) and len(value) > MAX_ARGUMENT_CHARS:
        return value[:MAX_ARGUMENT_CHARS] + " [...]"
    if isinstance(value, list):
        return [_cut(item) for item in value[:20]]
    if isinstance(value, dict):
        return {str(key): _cut(item) for key, item in list(value.items())[:20]}
    return value
