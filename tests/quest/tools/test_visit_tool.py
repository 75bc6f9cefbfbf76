from __future__ import annotations

import pytest
from tools_doubles import ADA, BABBAGE, EMPTY, DictPageSource

from quest.tools import ToolError, VisitTool, WebPage, extract

GOAL = "When did Lovelace die?"


class RefusingPageSource:
    """Refuses every URL, as a guarded live reader does for a private address."""

    def get(self, url: str) -> WebPage | None:
        raise ToolError("127.0.0.1 is a loopback address")


class CrashingPageSource:
    def get(self, url: str) -> WebPage | None:
        raise ConnectionResetError("peer went away")


def test_it_writes_the_goal_directed_extract_as_quests_visit_tool_does() -> None:
    result = VisitTool(DictPageSource([ADA]))(ADA.url, GOAL)

    found = extract(ADA, GOAL)
    assert result.ok
    assert result.text == (
        f"The useful information in {ADA.url} for user goal {GOAL} as follows: \n\n"
        f"Evidence in page: \n{found.evidence}\n\n"
        f"Summary: \n{found.summary}\n\n"
    )
    assert result.details == ({"url": ADA.url, "goal": GOAL, **found.as_dict()},)


def test_several_urls_are_answered_in_order_and_separated() -> None:
    result = VisitTool(DictPageSource([ADA, BABBAGE]))([BABBAGE.url, ADA.url], "engine")

    first, second = result.text.split("\n=======\n")
    assert first.startswith(f"The useful information in {BABBAGE.url}")
    assert second.startswith(f"The useful information in {ADA.url}")


def test_an_unknown_page_is_reported_as_unreadable_never_as_none() -> None:
    result = VisitTool(DictPageSource([ADA]))(["https://example.org/missing"], GOAL)

    assert not result.ok
    assert "The page could not be read: https://example.org/missing" in result.text
    assert "None" not in result.text


def test_an_empty_page_is_unreadable_too() -> None:
    result = VisitTool(DictPageSource([EMPTY]))(EMPTY.url, GOAL)

    assert not result.ok
    assert "The page could not be read" in result.text


def test_one_bad_url_does_not_spoil_the_others() -> None:
    result = VisitTool(DictPageSource([ADA]))(["file:///etc/passwd", ADA.url], GOAL)

    refused, answered = result.text.split("\n=======\n")
    assert result.ok
    assert refused.startswith("The page was not visited:")
    assert answered.startswith(f"The useful information in {ADA.url}")
    assert result.details[0]["error"].startswith("The page was not visited:")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", "the URL has 'file:'; only http:// and https:// URLs"),
        ("javascript:alert(1)", "the URL has 'javascript:'"),
        ("data:text/html,<script>x</script>", "the URL has 'data:'"),
        ("ftp://example.org/a", "the URL has 'ftp:'"),
        ("/etc/passwd", "the URL has no scheme"),
        ("https://en.wikipedia.org/wiki/../../etc/passwd", "path traversal"),
        ("https://en.wikipedia.org/wiki/%2e%2e/%2E%2E/secret", "path traversal"),
        ("https://en.wikipedia.org/wiki/%252e%252e/x", "path traversal"),
        ("https://en.wikipedia.org\\..\\..\\x", "path traversal"),
        ("https://user:secret@example.org/", "user name or password"),
        ("https://example.org/a/..%5c..%5cetc", "path traversal"),
        ("https://exa$mple.org/", "characters a host name cannot have"),
        ("https://example.org/a b", "spaces or control characters"),
        ("https://example.org/\x00", "spaces or control characters"),
        ("https:///nohost", "the URL has no host"),
        ("https://[::1/", "cannot be parsed"),
        ("https://example.org:99999/", "cannot be parsed"),
        ("https://example.org/" + "a" * 3_000, "the limit is 2,048"),
    ],
)
def test_hostile_urls_are_refused_with_a_reason_and_never_looked_up(url: str, reason: str) -> None:
    pages = DictPageSource([ADA])

    result = VisitTool(pages).run({"url": [url], "goal": GOAL})

    assert not result.ok
    assert "The page was not visited:" in result.text
    assert reason in result.text
    assert pages.asked == []


def test_too_many_urls_are_refused_before_any_is_read() -> None:
    pages = DictPageSource([ADA])

    result = VisitTool(pages)([ADA.url] * 6, GOAL)

    assert result.text == "[visit] Error: 6 URLs were sent; at most 5 are allowed"
    assert pages.asked == []


def test_a_missing_or_gigantic_goal_is_refused() -> None:
    tool = VisitTool(DictPageSource([ADA]))

    assert tool.run({"url": ADA.url}).error == "'goal' must be a non-empty string"
    assert tool.run({"url": ADA.url, "goal": "x" * 5_000}).error == (
        "the goal is 5,000 characters long; the limit is 1,000"
    )


def test_a_refusal_from_the_page_source_is_passed_on() -> None:
    result = VisitTool(RefusingPageSource())("http://127.0.0.1/admin", GOAL)

    assert not result.ok
    assert "The page was not visited: 127.0.0.1 is a loopback address" in result.text


def test_a_crashing_page_source_is_an_unreadable_page_not_an_exception() -> None:
    result = VisitTool(CrashingPageSource())(ADA.url, GOAL)

    assert not result.ok
    assert "could not be read" in result.text
    assert "ConnectionResetError" in result.text


def test_output_is_cut_to_twelve_thousand_characters_with_a_visible_marker() -> None:
    pages = [WebPage(f"https://example.org/{n}", "Big", "lovelace " * 2_000) for n in range(5)]

    result = VisitTool(DictPageSource(pages))([page.url for page in pages], "lovelace")

    assert len(result.text) <= 12_000
    assert "\n[... output truncated:" in result.text
