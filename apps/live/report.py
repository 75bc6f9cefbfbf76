"""A session's report as safe HTML: the one Markdown renderer of the live page.

Reports are model output over web text, so raw HTML in them is shown as text, never parsed;
links are kept only when they are http(s) or app-relative; images are not drawn (they would load
from outside the app). Citation markers `[n]` and bare URLs become links to the app's copy of
the document, as the page's citation chips are, and open in a new tab.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

# A citation marker or a bare URL inside text; a URL stops before closing punctuation.
_MARKER = re.compile(r"\[(\d{1,4})\]|(https?://[^\s<>\"'\])]*[^\s<>\"'\]).,;:!?])")
_SAFE_LINK = re.compile(r"^(https?://|/(?!/)|#)", re.IGNORECASE)


def _safe_link(url: str) -> bool:
    return bool(_SAFE_LINK.match(url.strip()))


def _doc_href(url: str) -> str:
    return f"{reverse('corpus:document')}?{urlencode({'url': url})}"


def _link(href: str, text: str, *, title: str, chip: bool) -> list[Token]:
    attrs: dict[str, str | int | float] = {
        "href": href,
        "title": title,
        "target": "_blank",
        "rel": "noopener",
    }
    if chip:
        attrs["class"] = "chip"
    opened = Token("link_open", "a", 1, attrs=attrs)
    label = Token("text", "", 0, content=text)
    return [opened, label, Token("link_close", "a", -1)]


def _split_text(token: Token, cited: Mapping[str, str]) -> list[Token]:
    out: list[Token] = []
    text, last = token.content, 0
    for match in _MARKER.finditer(text):
        number, url = match.group(1), match.group(2)
        if number is not None and number not in cited:
            continue
        if match.start() > last:
            out.append(Token("text", "", 0, content=text[last : match.start()]))
        target = cited[number] if number is not None else url
        title = f"{target} (opens in a new tab)"
        out += _link(_doc_href(target), match.group(0), title=title, chip=number is not None)
        last = match.end()
    if not out:
        return [token]
    if last < len(text):
        out.append(Token("text", "", 0, content=text[last:]))
    return out


def _link_sources(state: StateCore) -> None:
    """Citation markers and bare URLs outside links become links to the document page."""
    cited: Mapping[str, str] = state.env.get("cited", {})
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        inside_link = 0
        for child in block.children:
            inside_link += {"link_open": 1, "link_close": -1}.get(child.type, 0)
            if child.type == "text" and not inside_link:
                children.extend(_split_text(child, cited))
            else:
                children.append(child)
        block.children = children


def _open_in_new_tab(state: StateCore) -> None:
    for block in state.tokens:
        for child in block.children or ():
            if child.type == "link_open" and child.attrGet("target") is None:
                child.attrSet("target", "_blank")
                child.attrSet("rel", "noopener noreferrer")


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    md.disable("image")
    md.validateLink = _safe_link  # type: ignore[method-assign]
    md.core.ruler.push("questweb_sources", _link_sources)
    md.core.ruler.push("questweb_new_tab", _open_in_new_tab)
    return md


def report_html(text: str, citations: Sequence[Mapping[str, Any]] = ()) -> str:
    """`text` (Markdown) as HTML that is safe to insert into the page."""
    cited = {
        str(c.get("n")): str(c.get("url"))
        for c in citations
        if c.get("url") and _safe_link(str(c.get("url")))
    }
    html: str = _markdown().render(text, {"cited": cited})
    return html
