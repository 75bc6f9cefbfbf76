"""The deterministic page-to-evidence extractor: the page is cut into passages, each passage is
scored by the goal's words it contains (rarer words on the page count more), and the best
passages, in page order, are the evidence. Same page and goal, same answer."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from quest.text.sentences import split_sentences
from quest.tools.protocols import Page

MAX_PASSAGE_CHARS = 600
MAX_EVIDENCE_CHARS = 2_400
MAX_SUMMARY_CHARS = 600
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "did",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "their",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "find",
        "about",
        "information",
        "page",
        "pages",
        "goal",
        "user",
    }
)


@dataclass(frozen=True)
class Extract:
    rational: str
    evidence: str
    summary: str

    def as_dict(self) -> dict[str, str]:
        return {"rational": self.rational, "evidence": self.evidence, "summary": self.summary}


def terms(text: str) -> list[str]:
    """Lower-cased content words of `text`."""
    words = (word.casefold() for word in _WORD.findall(text))
    return [word for word in words if word not in _STOPWORDS and (len(word) > 1 or word.isdigit())]


def passages(text: str, max_chars: int = MAX_PASSAGE_CHARS) -> list[str]:
    """Paragraphs of `text`; a paragraph past `max_chars` is cut at sentence ends."""
    cut: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        cut.extend(_pack(split_sentences(block), max_chars))
    return cut


def extract(page: Page, goal: str) -> Extract:
    cut = passages(page.text)
    if not cut:
        return Extract(
            rational="The page has no text.",
            evidence="The page has no text.",
            summary=f"'{page.title}' has no text to draw on.",
        )
    weights = _weights(cut, set(terms(goal)))
    scores = [_score(passage, weights) for passage in cut]
    chosen = _choose(cut, scores)
    matched = sorted(set(weights) & set(terms(" ".join(cut[index] for index in chosen))))
    evidence = "\n\n".join(cut[index] for index in chosen)
    return Extract(
        rational=_rational(matched, len(chosen), len(cut)),
        evidence=evidence,
        summary=_summary(page.title, evidence, weights),
    )


def _pack(parts: list[str], max_chars: int) -> list[str]:
    packed: list[str] = []
    for part in parts:
        if packed and len(packed[-1]) + 1 + len(part) <= max_chars:
            packed[-1] = f"{packed[-1]} {part}"
        else:
            packed.extend(
                part[start : start + max_chars] for start in range(0, len(part), max_chars)
            )
    return packed


def _weights(cut: list[str], wanted: set[str]) -> dict[str, float]:
    """Each goal term found on the page, weighted up the fewer passages contain it."""
    frequency = Counter(word for passage in cut for word in set(terms(passage)) & wanted)
    return {word: math.log(1 + len(cut) / count) for word, count in frequency.items()}


def _score(text: str, weights: dict[str, float]) -> float:
    return sum(weights.get(word, 0.0) for word in set(terms(text)))


def _choose(cut: list[str], scores: list[float]) -> list[int]:
    """Indexes of the best passages that fit the evidence budget, in page order; the opening
    passages when nothing on the page shares a word with the goal."""
    if max(scores) > 0:
        order = sorted(range(len(cut)), key=lambda index: (-scores[index], index))
        order = [index for index in order if scores[index] > 0]
    else:
        order = list(range(len(cut)))
    chosen: list[int] = []
    used = 0
    for index in order:
        if chosen and used + len(cut[index]) > MAX_EVIDENCE_CHARS:
            break
        chosen.append(index)
        used += len(cut[index])
    return sorted(chosen)


def _rational(matched: list[str], chosen: int, total: int) -> str:
    if not matched:
        return (
            "No passage of the page shares a word with the goal; "
            "the opening of the page is given instead."
        )
    shown = ", ".join(matched[:12])
    return f"{chosen} of the page's {total} passages contain the goal's terms: {shown}."


def _summary(title: str, evidence: str, weights: dict[str, float]) -> str:
    """The two evidence sentences that score best, in page order."""
    cut = split_sentences(evidence)
    best = sorted(range(len(cut)), key=lambda index: (-_score(cut[index], weights), index))[:2]
    summary = ""
    for index in sorted(best):
        if len(summary) + len(cut[index]) > MAX_SUMMARY_CHARS:
            break
        summary = f"{summary} {cut[index]}".strip()
    summary = summary or evidence[:MAX_SUMMARY_CHARS]
    return f"From '{title}': {summary}" if title else summary
