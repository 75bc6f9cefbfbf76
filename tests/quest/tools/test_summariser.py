from __future__ import annotations

import json

from tools_doubles import ADA, DictPageSource, ScriptedChatClientStandIn

from quest.tools import VisitTool, extract

GOAL = "When did Lovelace die?"
GOOD_REPLY = json.dumps(
    {
        "rational": "The page gives her death date.",
        "evidence": "She died of uterine cancer on 27 November 1852, aged 36.",
        "summary": "Ada Lovelace died on 27 November 1852.",
    }
)


def test_an_llm_summary_replaces_the_extractor_when_a_chat_client_is_given() -> None:
    chat = ScriptedChatClientStandIn(GOOD_REPLY)

    result = VisitTool(DictPageSource([ADA]), chat=chat)(ADA.url, GOAL)

    assert "Evidence in page: \nShe died of uterine cancer on 27 November 1852" in result.text
    assert "Summary: \nAda Lovelace died on 27 November 1852.\n\n" in result.text
    assert result.details[0]["rational"] == "The page gives her death date."
    system, user = chat.calls[0]
    assert system["role"] == "system"
    assert "JSON" in system["content"]
    assert ADA.text in user["content"]
    assert user["content"].endswith(f"Goal: {GOAL}")


def test_a_fenced_reply_with_evidence_as_a_list_is_accepted() -> None:
    reply = "```json\n" + json.dumps({"rational": "r", "evidence": ["a", "b"], "summary": "s"})
    chat = ScriptedChatClientStandIn(reply + "\n```")

    result = VisitTool(DictPageSource([ADA]), chat=chat)(ADA.url, GOAL)

    assert "Evidence in page: \na\nb\n\nSummary: \ns\n\n" in result.text


def test_a_reply_that_is_not_json_falls_back_to_the_extractor_with_a_note() -> None:
    chat = ScriptedChatClientStandIn("Sorry, I cannot help with that.")

    result = VisitTool(DictPageSource([ADA]), chat=chat)(ADA.url, GOAL)

    found = extract(ADA, GOAL)
    assert result.ok
    assert f"Evidence in page: \n{found.evidence}\n\n" in result.text
    assert result.details[0]["rational"] == (
        "(Note: the summariser's reply held no JSON object; the passages were chosen by word "
        f"overlap instead.) {found.rational}"
    )


def test_a_reply_without_evidence_or_summary_falls_back() -> None:
    chat = ScriptedChatClientStandIn(json.dumps({"rational": "nothing here"}))

    result = VisitTool(DictPageSource([ADA]), chat=chat)(ADA.url, GOAL)

    assert "gave neither evidence nor a summary" in result.details[0]["rational"]


def test_a_reply_with_a_field_of_the_wrong_type_falls_back() -> None:
    chat = ScriptedChatClientStandIn(json.dumps({"evidence": {"a": 1}, "summary": "s"}))

    result = VisitTool(DictPageSource([ADA]), chat=chat)(ADA.url, GOAL)

    assert "the summariser's 'evidence' was not text" in result.details[0]["rational"]


def test_a_failing_chat_client_falls_back_instead_of_failing_the_visit() -> None:
    chat = ScriptedChatClientStandIn(TimeoutError("model server timed out"))

    result = VisitTool(DictPageSource([ADA]), chat=chat)(ADA.url, GOAL)

    assert result.ok
    assert "the summariser failed (TimeoutError)" in result.details[0]["rational"]
    assert "27 November 1852" in result.text


def test_an_unreadable_page_is_never_sent_to_the_llm() -> None:
    chat = ScriptedChatClientStandIn(GOOD_REPLY)

    VisitTool(DictPageSource([ADA]), chat=chat)("https://example.org/missing", GOAL)

    assert chat.calls == []
