"""The answer format the benchmarks ask for, and reading it back.

BrowseComp (and BrowseComp-Plus after it) asks for three fields:

    Explanation: <the reasoning, citing documents as [docid]>
    Exact Answer: <a short final answer>
    Confidence: <0% to 100%>

They are read leniently (any case, markdown bold around the label, the last `Exact Answer`
line wins, a confidence with or without `%`). A response that states no confidence counts as
100 %, BrowseComp's convention; `confidence_stated` says which. A response with no `Exact
Answer` line is read by the first sentence of its `Answer:` line (the lead of questweb's
reports), else scored as a whole (a short QA reply is its own answer).

Cited documents are the bracketed docids of a response written in this format (`[20101]`,
`[20101, 3]`), kept only when the corpus has them, plus any corpus URL the response names. A
response in questweb's report format numbers its sources `[1]`; those numbers are not docids,
so there only the URLs count.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

from quest.text.sentences import split_sentences

_LABEL = r"^[ \t>*_#-]*{name}[ \t*_]*:[ \t*_]*"
_EXPLANATION = re.compile(_LABEL.format(name="explanation"), re.IGNORECASE | re.MULTILINE)
_EXACT = re.compile(_LABEL.format(name=r"exact[ \t]+answer") + r"(.*)$", re.I | re.M)
_CONFIDENCE = re.compile(
    _LABEL.format(name="confidence") + r"(\d{1,3}(?:\.\d+)?)[ \t]*(%?)", re.I | re.M
)
_ANSWER = re.compile(_LABEL.format(name="answer") + r"(.+)$", re.I | re.M)
_BRACKETS = re.compile(r"\[([^\[\]\n]{1,200})\]")
_URL = re.compile(r"https?://[^\s<>()\[\]\"']+")
NO_CONFIDENCE = 100.0

FORMAT_INSTRUCTIONS = """\
Search the document collection to answer the question. Each search result shows a document's \
docid.{reading}

When you answer, write your final answer in exactly this format:
Explanation: {{your reasoning, citing each supporting document by its docid in square \
brackets, like [20101]}}
Exact Answer: {{your short, final answer}}
Confidence: {{your confidence in the answer, from 0% to 100%}}"""
READING = ' Read a whole document with get_document: {"docid": "<docid>"}.'


def answer_prompt(question: str, *, get_document: bool) -> str:
    """The question as a model policy sees it: followed by the answer format."""
    instructions = FORMAT_INSTRUCTIONS.format(reading=READING if get_document else "")
    return f"{question}\n\n{instructions}"


@dataclass(frozen=True)
class ParsedAnswer:
    explanation: str
    exact_answer: str
    confidence: float  # 0-100
    confidence_stated: bool
    cited: tuple[str, ...]


def parse_response(
    response: str,
    *,
    docids: Collection[str] | None = None,
    docid_of_url: Callable[[str], str | None] | None = None,
) -> ParsedAnswer:
    """`docids`: the corpus's docids (None: any bracketed token counts); `docid_of_url`: the
    docid a URL names, if any."""
    exact = _EXACT.findall(response)
    answer = exact[-1].strip().strip("*_").strip() if exact else _short_answer(response)
    confidence = _confidence(response)
    explained = _EXPLANATION.search(response)
    explanation = ""
    if explained is not None:
        rest = response[explained.end() :]
        cut = _EXACT.search(rest)
        explanation = (rest[: cut.start()] if cut else rest).strip()
    cited = _cited(response, formatted=explained is not None or bool(exact), docids=docids)
    cited += [d for url in _URL.findall(response) if (d := _url_docid(url, docid_of_url))]
    return ParsedAnswer(
        explanation=explanation,
        exact_answer=answer,
        confidence=NO_CONFIDENCE if confidence is None else confidence,
        confidence_stated=confidence is not None,
        cited=tuple(dict.fromkeys(cited)),
    )


def _short_answer(response: str) -> str:
    """A response without an `Exact Answer` line: the first sentence of its `Answer:` line
    (questweb's reports lead with one), else the whole response."""
    lead = _ANSWER.search(response)
    if lead is None:
        return response.strip()
    sentences = split_sentences(lead.group(1).strip().strip("*_"))
    return sentences[0].strip().rstrip(".").strip() if sentences else response.strip()


def _confidence(response: str) -> float | None:
    found = _CONFIDENCE.findall(response)
    if not found:
        return None
    value = float(found[-1][0])
    if not found[-1][1] and value <= 1 and "." in found[-1][0]:
        value *= 100  # "Confidence: 0.8" is a probability
    return min(max(value, 0.0), 100.0)


def _cited(response: str, *, formatted: bool, docids: Collection[str] | None) -> list[str]:
    if not formatted:
        return []
    tokens = [
        token.strip()
        for inside in _BRACKETS.findall(response)
        for token in re.split(r"[,;\s]+", inside.replace("docid", " ").replace(":", " "))
        if token.strip()
    ]
    return [token for token in tokens if docids is None or token in docids]


def _url_docid(url: str, docid_of_url: Callable[[str], str | None] | None) -> str | None:
    if docid_of_url is None:
        return None
    return docid_of_url(url.rstrip(".,;"))
