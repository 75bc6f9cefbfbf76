"""What a person reading an answer sees, as Markdown the rubric's reader can parse.

An answer is Markdown with HTML. A reader of the rendered page sees the words of HTML blocks and
inline HTML, the contents of code blocks, footnote definitions at the end, an image's alt text
where the picture would be, the text of a `<details>` block once it is opened, and notes written
after a reference's URL. A reader never sees an element that is hidden (`hidden`,
`display:none`, `visibility:hidden`, zero size or opacity), a comment, a script or a style.

`visible_markdown` rewrites the answer so that everything a reader sees is plain Markdown prose
(and struck-out HTML stays struck out, as `~~…~~`), and nothing a reader cannot see is left. The
rubric's checks then read one text: nothing hidden earns credit, and nothing visible is free.
"""

from __future__ import annotations

import re
import textwrap
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin
from selectolax.lexbor import LexborHTMLParser, LexborNode

# A cheap test before any parsing: answers without these markers are their own rendering.
_MARKERS = re.compile(
    r"<[A-Za-z/!]|```|~~~|!\[|\[\^|^(?: {4}|\t)\S|^\s{0,3}\[\d{1,4}\]:?\s+\S+\s+\S", re.MULTILINE
)
_AUTOLINK = re.compile(r"<(https?://[^\s<>]+)>")
_TAG = re.compile(r"<[A-Za-z/!]")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_FOOTNOTE_DEF = re.compile(r"^\s{0,3}\[\^([^\]\s]{1,40})\]:\s*(.*)$")
_REFERENCE = re.compile(r"^(\s{0,3}\[\^?\d{1,4}\]:?\s+)(https?://\S+)(.*)$")
_URL = re.compile(r"https?://[^\s<>\"')\]]+")
_HIDDEN_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|font-size\s*:\s*0(?![.\d]*[1-9])"
    r"|opacity\s*:\s*0(?![.\d]*[1-9])|(?:max-)?(?:height|width)\s*:\s*0(?![.\d]*[1-9])",
    re.IGNORECASE,
)
_INVISIBLE_TAGS = frozenset({"script", "style", "template", "noscript", "head", "title", "meta"})
_STRUCK_TAGS = frozenset({"del", "s", "strike"})
_BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "details",
        "dialog",
        "dd",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    ]
)
_ROW_TAGS = frozenset({"td", "th"})


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    parser.use(footnote_plugin)
    # Only blocks are rewritten here: inline parsing would cost twice the block pass.
    parser.core.ruler.disable(["inline"])
    return parser


@lru_cache(maxsize=64)
def visible_markdown(answer: str) -> str:
    """The answer with everything a reader sees as prose, and nothing a reader cannot see."""
    if not _MARKERS.search(answer):
        return answer
    lines = answer.split("\n")
    replaced: dict[int, tuple[int, list[str]]] = {}  # first line -> (end line, new lines)
    for token in _markdown().parse(answer, {}):
        new = _rendered(token)
        if new is not None and token.map is not None:
            start, end = token.map
            if not any(start < e and s < end for s, (e, _) in replaced.items()):
                replaced[start] = (end, ["", *new, ""])
    out: list[str] = []
    notes: list[str] = []
    index = 0
    while index < len(lines):
        if index in replaced:
            end, new = replaced[index]
            out.extend(new)
            index = max(end, index + 1)
            continue
        out.extend(_visible_line(lines[index], notes))
        index += 1
    if notes:
        out.extend(["", *notes])
    return "\n".join(out)


def _rendered(token: Token) -> list[str] | None:
    """New lines for a block a reader sees otherwise than Markdown shows it, else None."""
    if token.type in ("fence", "code_block"):
        return _paragraphs(textwrap.dedent(token.content))
    if token.type == "html_block":
        return _paragraphs(html_visible(token.content))
    return None


def _paragraphs(text: str) -> list[str]:
    """Text as Markdown paragraphs: each of its lines its own paragraph, so no line of code or
    HTML runs into the next as one sentence, and none reads as Markdown's own syntax."""
    out: list[str] = []
    for line in text.split("\n"):
        if line.strip():
            out.extend([_literal(line.strip()), ""])
    return out


def _literal(line: str) -> str:
    # A line that would open a code block, a list or a heading in Markdown is prose here.
    return re.sub(r"^(?:[`~]{3,}|[-+*]\s|#{1,6}\s|>\s?|\d{1,9}[.)]\s)", "", line).strip() or line


def _visible_line(line: str, notes: list[str]) -> list[str]:
    footnote = _FOOTNOTE_DEF.match(line)
    if footnote:
        return _footnote(footnote[1], footnote[2], notes)
    reference = _REFERENCE.match(line)
    if reference and reference[3].strip():
        # A reference with a note after its URL: the URL still cites; the note is read.
        notes.append(_inline_visible(reference[3].strip(" -\u2013\u2014:;,")))
        return [reference[1] + reference[2]]
    return [_inline_visible(line)]


def _footnote(label: str, text: str, notes: list[str]) -> list[str]:
    """A footnote definition: its URL (if any) is a reference for `[^label]`; its words are
    prose, read where the page shows them, at the end."""
    url = _URL.search(text)
    words = _URL.sub(" ", text).strip(" -\u2013\u2014:;,.")
    if words:
        notes.append(_inline_visible(words))
    return [f"[^{label}]: {url[0]}"] if url else []


def _inline_visible(line: str) -> str:
    line = _IMAGE.sub(lambda m: f" {m[1]} ", line)
    line = _AUTOLINK.sub(r"\1", line)
    if not _TAG.search(line):
        return line
    return " ".join(html_visible(line).split("\n")).strip()


def html_visible(html: str) -> str:
    """The text a browser shows for an HTML fragment: one line per block element, struck-out
    text as `~~…~~`, links as Markdown links, images as their alt text; hidden parts dropped."""
    body = LexborHTMLParser(f"<body>{html}</body>").body
    if body is None:
        return ""
    parts: list[str] = []
    _walk(body, parts)
    text = "".join(parts)
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def _walk(node: LexborNode, parts: list[str]) -> None:
    for child in node.iter(include_text=True):
        tag = child.tag
        if tag == "-text":
            parts.append(child.text_content or "")
        elif tag and not tag.startswith("-") and not _hidden(child):
            _element(child, tag, parts)


def _element(node: LexborNode, tag: str, parts: list[str]) -> None:
    if tag == "br":
        parts.append("\n")
    elif tag == "img":
        parts.append(f" {node.attributes.get('alt') or ''} ")
    elif tag in _STRUCK_TAGS:
        inner: list[str] = []
        _walk(node, inner)
        text = " ".join("".join(inner).split())
        parts.append(f"~~{text}~~" if text else "")
    elif tag == "a" and _URL.fullmatch(node.attributes.get("href") or ""):
        inner = []
        _walk(node, inner)
        parts.append(f"[{' '.join(''.join(inner).split())}]({node.attributes['href']})")
    else:
        block = tag in _BLOCK_TAGS and tag not in _ROW_TAGS
        parts.append("\n" if block else (" | " if tag in _ROW_TAGS else ""))
        _walk(node, parts)
        parts.append("\n" if block else "")


def _hidden(node: LexborNode) -> bool:
    if node.tag in _INVISIBLE_TAGS:
        return True
    attributes = node.attributes
    if "hidden" in attributes:
        return True
    if node.tag == "input" and (attributes.get("type") or "").lower() == "hidden":
        return True
    return bool(_HIDDEN_STYLE.search(attributes.get("style") or ""))
