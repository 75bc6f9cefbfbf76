"""The LLM page summariser: the model reads the page and the goal and replies with JSON
`{rational, evidence, summary}`. A reply that cannot be used falls back to the deterministic
extractor, and the rational says so."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from quest.tools.passages import Extract, extract
from quest.tools.protocols import ChatClient, Page

MAX_PAGE_CHARS = 60_000
MAX_FIELD_CHARS = 6_000
_FIELDS = ("rational", "evidence", "summary")
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)

SYSTEM_PROMPT = (
    "You read one web page for a researcher who has a goal. Find the parts of the page that "
    "serve the goal and quote them. Reply with one JSON object and nothing else: "
    '{"rational": "<why these parts matter for the goal, or why the page does not help>", '
    '"evidence": "<the relevant passages, quoted from the page, with their numbers and names '
    'intact>", "summary": "<a short paragraph: what the evidence says about the goal>"}.'
)


class UnusableReply(ValueError):
    pass


class LlmSummariser:
    def __init__(self, client: ChatClient, *, max_page_chars: int = MAX_PAGE_CHARS) -> None:
        self.client = client
        self.max_page_chars = max_page_chars

    def __call__(self, page: Page, goal: str) -> Extract:
        try:
            return parse_reply(self.client.chat(self.messages(page, goal)))
        except UnusableReply as error:
            return _fallback(page, goal, str(error))
        except Exception as error:  # any client failure: the agent still gets the page
            return _fallback(page, goal, f"the summariser failed ({type(error).__name__})")

    def messages(self, page: Page, goal: str) -> list[dict[str, str]]:
        return summariser_messages(page, goal, self.max_page_chars)


def summariser_messages(
    page: Page, goal: str, max_page_chars: int = MAX_PAGE_CHARS
) -> list[dict[str, str]]:
    """What the summariser model reads for one page; also the prompt of the page -> evidence
    pairs of mid-training (quest.training.mid)."""
    text = page.text[:max_page_chars]
    user = f"Page title: {page.title}\nPage URL: {page.url}\n\nPage text:\n{text}\n\nGoal: {goal}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def parse_reply(reply: str) -> Extract:
    """The three fields of a summariser reply; UnusableReply says what is wrong with it."""
    match = _OBJECT.search(reply)
    if not match:
        raise UnusableReply("the summariser's reply held no JSON object")
    try:
        decoded = json.loads(match.group(0))
    except json.JSONDecodeError:
        raise UnusableReply("the summariser's reply was not valid JSON") from None
    if not isinstance(decoded, Mapping):
        raise UnusableReply("the summariser's reply was not a JSON object")
    fields = {name: _field(decoded, name) for name in _FIELDS}
    if not fields["evidence"] and not fields["summary"]:
        raise UnusableReply("the summariser gave neither evidence nor a summary")
    return Extract(**fields)


def _field(decoded: Mapping[str, object], name: str) -> str:
    value = decoded.get(name, "")
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        value = "\n".join(value)
    if not isinstance(value, str):
        raise UnusableReply(f"the summariser's '{name}' was not text")
    return value.strip()[:MAX_FIELD_CHARS]


def _fallback(page: Page, goal: str, reason: str) -> Extract:
    found = extract(page, goal)
    note = f"(Note: {reason}; the passages were chosen by word overlap instead.) "
    return Extract(rational=note + found.rational, evidence=found.evidence, summary=found.summary)
