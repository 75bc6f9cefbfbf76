"""What a guided teacher's trajectory has seen, and the tools run ahead of a turn.

`Seen` reads a conversation back as a model reads it: the question, the words of the question
and of every tool output (the only words a query may use), the pages search results listed
(the only pages a visit may open) and the text each visit showed (the only text a stated fact
may come from). `Scout` runs a call through the same tools, its output cut to the size the
agent loop shows, so that the teacher can see what a call would show before making it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from quest.agent.prompts import FINAL_MARKER, split_user_prompt, unwrap_tool_response
from quest.agent.research.reading import read_search, read_visit
from quest.llm.types import Message
from quest.protocol.results import truncate
from quest.rubric.documents import Document
from quest.rubric.support import page_support
from quest.text.fold import fold
from quest.text.words import STOPWORDS
from quest.tools.toolbox import Toolbox
from quest.training.guided_path import PathFact

CACHE = 4_096
_TRUNCATED = re.compile(
    r"\n\[\.\.\. output truncated: [\d,]+ characters, showing the first [\d,]+\]$"
)
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")


def words_of(text: str) -> list[str]:
    """The words of `text` as written: letters and digits, with inner apostrophes."""
    return _WORD.findall(text)


class Scout:
    """The tools as the agent loop shows them (each output cut to `max_chars`). Calls are
    memoised: the teacher weighs the same ones turn after turn and task after task."""

    def __init__(self, toolbox: Toolbox, max_chars: int) -> None:
        self.toolbox, self.max_chars = toolbox, max_chars
        self._shown = lru_cache(maxsize=CACHE)(self._run)

    def shown(self, name: str, arguments: Mapping[str, object]) -> str:
        return str(self._shown(name, json.dumps(arguments, sort_keys=True)))

    def listing(self, queries: Sequence[str]) -> set[str]:
        """The URLs one search call with `queries` shows."""
        return {hit.url for hit in read_search(self.shown("search", {"query": list(queries)}))}

    def _run(self, name: str, arguments: str) -> str:
        return truncate(self.toolbox.call(name, json.loads(arguments)).text, self.max_chars)


@dataclass
class Seen:
    """What the trajectory has seen so far."""

    question: str
    words: set[str] = field(default_factory=set)  # folded words of the question and outputs
    listed: dict[str, str] = field(default_factory=dict)  # url -> title, as results list them
    pages: dict[str, str] = field(default_factory=dict)  # url -> the text a visit showed
    turns: int = 0  # the policy's turns so far
    final: bool = False  # the loop asks for the final answer now

    @classmethod
    def read(cls, messages: Sequence[Message]) -> Seen:
        """The conversation as the agent loop hands it over: system, user prompt (the
        question), then turns and tool responses. A research-state block after a context
        restart is left aside: the teacher reads only what this session shows."""
        prompt = messages[1].get("content", "") if len(messages) > 1 else ""
        seen = cls.asking(split_user_prompt(prompt)[0])
        for message in messages[2:]:
            output = unwrap_tool_response(message.get("content", ""))
            if message.get("role") == "assistant":
                seen.turns += 1
            elif output is not None:
                seen.absorb(output)
        seen.final = bool(messages) and messages[-1].get("content", "").startswith(FINAL_MARKER)
        return seen

    @classmethod
    def asking(cls, question: str) -> Seen:
        return cls(question, set(fold(question).split()))

    def copy(self) -> Seen:
        return Seen(self.question, set(self.words), dict(self.listed), dict(self.pages), self.turns)

    def absorb(self, output: str) -> None:
        """One tool output: its words, the results it lists, the pages it shows."""
        output = _TRUNCATED.sub("", output)
        self.words.update(fold(output).split())
        for hit in read_search(output):
            self.listed.setdefault(hit.url, hit.title)
        for page in read_visit(output):
            self.pages.setdefault(page.url, f"{page.evidence}\n\n{page.summary}")

    def known(self, text: str, *, figures: bool = False, most: int = 12) -> list[str]:
        """The content words of `text` the trajectory has seen, in order, each once (by their
        folded form); without `figures`, no numbers: a search for a figure looks for the page
        that states it, and the figure is what that page must confirm."""
        kept: dict[str, str] = {}
        for word in words_of(text):
            key = fold(word)
            usable = key in self.words and key not in STOPWORDS and key not in kept
            if usable and (figures or not any(ch.isdigit() for ch in word)):
                kept[key] = word
        return list(kept.values())[:most]

    def sources(self, facts: Iterable[PathFact]) -> dict[PathFact, str]:
        """The facts some visited page's shown text supports, each with the page to cite: the
        page the path cites when it does, else the first visited one that does."""
        found: dict[PathFact, str] = {}
        for fact in facts:
            urls = sorted(self.pages, key=lambda url: url != fact.url)
            source = next((url for url in urls if self._supports(url, fact)), None)
            if source is not None:
                found[fact] = source
        return found

    def _supports(self, url: str, fact: PathFact) -> bool:
        return supported(fact.text, url, self.listed.get(url, ""), self.pages[url])


@lru_cache(maxsize=CACHE)
def supported(claim: str, url: str, title: str, text: str) -> bool:
    """The reward's deterministic citation check (quest.rubric.support) on the text a visit
    showed: what the trajectory read, not the whole page."""
    return page_support(claim, Document(url, title, text)).supported
