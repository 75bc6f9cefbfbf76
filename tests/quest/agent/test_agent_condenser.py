from __future__ import annotations

import json
from pathlib import Path

from agent_helpers import CANBERRA, QUESTION, CannedReplies

from quest.agent import DRState, Fact, LLMCondenser, Query, RuleCondenser
from quest.agent.prompts import message, tool_response
from quest.corpus import Document, corpus_write
from quest.llm.types import LLMError, Message
from quest.search.indexing import bm25_build
from quest.tools import Toolbox
from quest.tools.offline import offline_toolbox

PREVIOUS = DRState(
    search_queries=(Query("Australia capital", "earlier search"),),
    trusted=(Fact("f-old", "Australia is a federation.", ("https://old.org",), "earlier"),),
)


def research(toolbox: Toolbox) -> list[Message]:
    """A search and a visit, as the loop would have put them in the context."""
    calls = [
        ("search", {"query": ["capital city Australia"]}),
        ("visit", {"url": [CANBERRA], "goal": QUESTION}),
    ]
    messages: list[Message] = []
    for name, arguments in calls:
        body = json.dumps({"name": name, "arguments": arguments})
        messages.append(message("assistant", f"<tool_call>{body}</tool_call>"))
        messages.append(message("user", tool_response(toolbox.call(name, arguments).text)))
    return messages


def valid_reply(claim: str = "Canberra is the capital of Australia.") -> str:
    return json.dumps(
        DRState(
            search_queries=(Query("capital city Australia", "find the capital"),),
            trusted=(Fact("t1", claim, (CANBERRA,), "stated by the page"),),
        ).to_json()
    )


def test_the_rule_condenser_collects_queries_pages_and_facts(toolbox: Toolbox) -> None:
    state = RuleCondenser().condense(QUESTION, research(toolbox), None)
    assert [q.q for q in state.search_queries] == ["capital city Australia"]
    assert [s.url for s in state.visited_sources] == [CANBERRA]
    assert state.visited_sources[0].note.startswith("From 'Canberra':")
    assert [f.claim for f in state.trusted] == ["Canberra is the capital city of Australia."]
    assert state.trusted[0].sources == (CANBERRA,)
    assert all(fact.need.startswith("visit ") for fact in state.uncertain)


def test_the_rule_condenser_keeps_what_the_previous_state_knew(toolbox: Toolbox) -> None:
    state = RuleCondenser().condense(QUESTION, research(toolbox), PREVIOUS)
    assert state.search_queries[0] == PREVIOUS.search_queries[0]
    assert PREVIOUS.trusted[0].claim in [fact.claim for fact in state.trusted]
    assert [f.id for f in state.trusted if f.claim == "Australia is a federation."] == ["f-old"]


def test_a_valid_condenser_reply_becomes_the_state(toolbox: Toolbox) -> None:
    client = CannedReplies([f"```json\n{valid_reply()}\n```"])
    state = LLMCondenser(client).condense(QUESTION, research(toolbox), None)
    assert not state.recovered
    assert [f.id for f in state.trusted] == ["t1"]
    prompt = client.requests[0][1]["content"]
    assert "[tool response]" in prompt and "Previous research state:\nnone" in prompt


def test_a_bad_reply_is_retried_once_with_the_error_quoted(toolbox: Toolbox) -> None:
    bad = valid_reply().replace(f'["{CANBERRA}"]', '"not a list"')
    client = CannedReplies([bad, valid_reply()])
    state = LLMCondenser(client).condense(QUESTION, research(toolbox), None)
    assert not state.recovered and state.trusted[0].id == "t1"
    retry = client.requests[1]
    assert retry[-2] == {"role": "assistant", "content": bad}
    assert "information_state.trusted[0].sources: expected a list" in retry[-1]["content"]


def test_two_bad_replies_recover_with_the_deterministic_merge(toolbox: Toolbox) -> None:
    client = CannedReplies(["not json at all", '{"version": "dr_state"}'])
    state = LLMCondenser(client).condense(QUESTION, research(toolbox), PREVIOUS)
    assert state.recovered
    assert "missing key" in state.recovery
    claims = [fact.claim for fact in state.trusted]
    assert "Australia is a federation." in claims
    assert "Canberra is the capital city of Australia." in claims
    assert "capital city Australia" in [q.q for q in state.search_queries]


def test_a_failing_condenser_model_is_recovered_from(toolbox: Toolbox) -> None:
    client = CannedReplies([LLMError("all endpoints down"), LLMError("still down")])
    state = LLMCondenser(client).condense(QUESTION, research(toolbox), PREVIOUS)
    assert state.recovered and "all endpoints down" not in state.recovery
    assert "still down" in state.recovery
    assert "f-old" in [fact.id for fact in state.trusted]


def test_a_trusted_fact_the_model_drops_is_put_back(toolbox: Toolbox) -> None:
    state = LLMCondenser(CannedReplies([valid_reply()])).condense(
        QUESTION, research(toolbox), PREVIOUS
    )
    assert [f.id for f in state.trusted] == ["t1", "f-old"]


def test_conflicting_numbers_leave_the_outnumbered_claim_untrusted(tmp_path: Path) -> None:
    pages = [
        ("https://a.org/eiffel", "The Eiffel Tower is 330 metres tall. It stands in Paris."),
        ("https://b.org/eiffel", "The Eiffel Tower is 330 metres tall. It was built for a fair."),
        ("https://c.org/eiffel", "The Eiffel Tower is 300 metres tall. It is made of iron."),
    ]
    corpus_write(
        tmp_path,
        [
            Document(url=u, title=u, text=t, source="web", licence="t", topic="", fetched_at="x")
            for u, t in pages
        ],
    )
    bm25_build(tmp_path)
    toolbox = offline_toolbox(tmp_path)
    question = "How tall is the Eiffel Tower in metres?"
    events: list[Message] = []
    for url, _ in pages:
        body = json.dumps({"name": "visit", "arguments": {"url": [url], "goal": question}})
        events.append(message("assistant", f"<tool_call>{body}</tool_call>"))
        text = toolbox.call("visit", {"url": [url], "goal": question}).text
        events.append(message("user", tool_response(text)))
    state = RuleCondenser().condense(question, events, None)
    trusted = [f for f in state.trusted if "330" in f.claim]
    assert trusted and set(trusted[0].sources) == {"https://a.org/eiffel", "https://b.org/eiffel"}
    assert [f.claim for f in state.untrusted] == ["The Eiffel Tower is 300 metres tall."]
    assert "contradicted by" in state.untrusted[0].reason
