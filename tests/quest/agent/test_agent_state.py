from __future__ import annotations

import json
from typing import Any

import pytest

from quest.agent import DRState, Fact, Query, Source, StateError, parse_state, render_state_block
from quest.agent.prompts import split_user_prompt, user_prompt

STATE = DRState(
    search_queries=(Query("capital of Australia", "the question's key words"),),
    visited_sources=(Source("https://en.wikipedia.org/wiki/Canberra", "Canberra: capital"),),
    trusted=(
        Fact(
            "f-1", "Canberra is the capital.", ("https://en.wikipedia.org/wiki/Canberra",), "direct"
        ),
    ),
    untrusted=(Fact("f-2", "Sydney is the capital.", ("https://x.org",), "contradicted"),),
    uncertain=(
        Fact("f-3", "Hobart is a capital.", ("https://y.org",), "partial", "search Hobart"),
    ),
)


def state_json() -> dict[str, Any]:
    return json.loads(json.dumps(STATE.to_json()))


def test_a_state_survives_a_round_trip_through_json() -> None:
    assert parse_state(STATE.dumps()) == STATE
    assert parse_state(STATE.to_json()) == STATE


def test_the_json_has_exactly_the_spec_shape() -> None:
    data = STATE.to_json()
    assert list(data) == ["version", "search_queries", "visited_sources", "information_state"]
    assert list(data["information_state"]) == ["trusted", "untrusted", "uncertain"]
    assert "need" not in data["information_state"]["trusted"][0]
    assert data["information_state"]["uncertain"][0]["need"] == "search Hobart"


def test_a_state_wrapped_in_prose_and_a_json_fence_is_read() -> None:
    reply = f"Here is the new state:\n```json\n{STATE.dumps()}\n```\nDone."
    assert parse_state(reply) == STATE


def test_a_wrong_type_is_reported_at_its_path() -> None:
    data = state_json()
    data["information_state"]["trusted"][0]["sources"] = ["https://a.org", 7]
    with pytest.raises(StateError) as error:
        parse_state(data)
    assert str(error.value) == (
        "dr_state.information_state.trusted[0].sources[1]: expected a string, got a number"
    )


def test_an_uncertain_fact_needs_a_visit_or_search() -> None:
    data = state_json()
    data["information_state"]["uncertain"][0]["need"] = "think harder"
    with pytest.raises(StateError, match=r"uncertain\[0\]\.need: must be"):
        parse_state(data)
    del data["information_state"]["uncertain"][0]["need"]
    with pytest.raises(StateError, match="missing key 'need'"):
        parse_state(data)


def test_unknown_keys_and_a_wrong_version_are_rejected() -> None:
    data = state_json()
    data["notes"] = "extra"
    with pytest.raises(StateError, match="dr_state: unexpected key 'notes'"):
        parse_state(data)
    data = state_json()
    data["version"] = "v2"
    with pytest.raises(StateError, match=r"dr_state\.version"):
        parse_state(data)


def test_a_fact_id_used_twice_is_rejected() -> None:
    data = state_json()
    data["information_state"]["untrusted"][0]["id"] = "f-1"
    with pytest.raises(StateError, match="'f-1' is used twice"):
        parse_state(data)


def test_a_reply_without_json_is_rejected() -> None:
    with pytest.raises(StateError, match="no JSON object"):
        parse_state("I could not summarise the research.")


def test_the_summary_block_names_itself_and_reads_back() -> None:
    block = render_state_block(STATE)
    assert block.startswith("RESEARCH STATE SUMMARY\n")
    assert "treat the untrusted ones as refuted" in block
    question, state = split_user_prompt(user_prompt("What is the capital?", STATE))
    assert question == "What is the capital?"
    assert state == STATE


def test_a_plain_question_has_no_state() -> None:
    assert split_user_prompt("What is the capital?") == ("What is the capital?", None)
