from __future__ import annotations

import json
from collections.abc import Mapping

import pytest
from tools_doubles import ADA, BABBAGE, DictPageSource, ListSearchBackend

from quest.tools import Toolbox, ToolResult, WebPage, code_from, parse_tool_call


class ExplodingTool:
    """A tool whose code has a bug: it raises instead of returning a result."""

    name = "explode"

    def run(self, arguments: Mapping[str, object]) -> ToolResult:
        raise KeyError("bug")


@pytest.fixture
def toolbox() -> Toolbox:
    pages: list[WebPage] = [ADA, BABBAGE]
    return Toolbox.build(
        search=ListSearchBackend(pages),
        pages=DictPageSource(pages),
        scholar=ListSearchBackend([BABBAGE]),
    )


def test_it_offers_quests_four_tools(toolbox: Toolbox) -> None:
    assert toolbox.names() == ("search", "visit", "google_scholar", "PythonInterpreter")


def test_scholar_is_offered_only_when_it_has_a_backend() -> None:
    toolbox = Toolbox.build(search=ListSearchBackend([]), pages=DictPageSource([]))

    assert toolbox.names() == ("search", "visit", "PythonInterpreter")
    assert toolbox.call("google_scholar", {"query": "x"}).error == (
        "there is no tool named 'google_scholar'; tools: search, visit, PythonInterpreter"
    )


def test_a_query_may_be_a_string_a_list_or_a_list_written_as_a_string(toolbox: Toolbox) -> None:
    as_string = toolbox.call("search", {"query": "lovelace"})
    as_list = toolbox.call("search", {"query": ["lovelace", "polymath"]})
    as_json = toolbox.call("search", {"query": '["lovelace", "polymath"]'})

    assert as_string.text.startswith("A search for 'lovelace' found 1 results:")
    assert as_list.text.count("\n=======\n") == 1
    assert as_json.text == as_list.text


def test_a_url_may_be_a_string_or_a_list(toolbox: Toolbox) -> None:
    one = toolbox.call("visit", {"url": ADA.url, "goal": "engine"})
    two = toolbox.call("visit", {"url": [ADA.url, BABBAGE.url], "goal": "engine"})

    assert one.text.startswith(f"The useful information in {ADA.url}")
    assert two.text.count("\n=======\n") == 1


def test_it_runs_a_call_written_as_quests_json(toolbox: Toolbox) -> None:
    body = json.dumps({"name": "google_scholar", "arguments": {"query": ["polymath"]}})

    result = toolbox.call_json(body)

    assert result.text.startswith("A Google scholar search for 'polymath' found 1 results:")


def test_python_code_after_the_json_in_code_tags_is_run(toolbox: Toolbox) -> None:
    body = '{"name": "PythonInterpreter", "arguments": {}}\n<code>\nprint(6 * 7)\n</code>'

    result = toolbox.call_json(body)

    assert result.text == "stdout:\n42\n"


def test_arguments_sent_as_a_json_string_are_decoded(toolbox: Toolbox) -> None:
    body = {"name": "search", "arguments": json.dumps({"query": "babbage"})}

    assert toolbox.call_json(body).ok


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("not json at all", "the tool call is not valid JSON (Expecting value)"),
        ("[1, 2]", "the tool call must be a JSON object"),
        ('{"arguments": {}}', 'a tool call needs a "name" string'),
        ('{"name": "search", "arguments": [1]}', '"arguments" must be a JSON object'),
        ('{"name": "search", "arguments": "{oops"}', '"arguments" is a string that is not a JSON'),
        ('{"name": "browse", "arguments": {}}', "there is no tool named 'browse'"),
        ('{"name": "visit", "arguments": {"url": 5, "goal": "g"}}', "'url' must be a string"),
        ('{"name": "search", "arguments": {"q": "x"}}', "'query' must be a string"),
        ("x" * 300_000, "the tool call is longer than 200,000 characters"),
    ],
)
def test_a_malformed_call_is_an_error_result_not_an_exception(
    toolbox: Toolbox, body: str, error: str
) -> None:
    result = toolbox.call_json(body)

    assert not result.ok
    assert result.error is not None
    assert result.error.startswith(error)
    assert result.text.startswith("[")


def test_a_tool_that_raises_becomes_an_error_result() -> None:
    result = Toolbox({"explode": ExplodingTool()}).call("explode", {})

    assert result == ToolResult(
        text="[explode] Error: the tool failed unexpectedly (KeyError)",
        ok=False,
        error="the tool failed unexpectedly (KeyError)",
    )


def test_parse_tool_call_keeps_the_name_and_merges_code_into_the_arguments() -> None:
    call = parse_tool_call('{"name": "PythonInterpreter", "arguments": {"x": 1}}<code>a</code>')

    assert call.name == "PythonInterpreter"
    assert call.arguments == {"x": 1, "code": "a"}


def test_code_from_takes_the_raw_argument_when_there_are_no_tags() -> None:
    assert code_from("\nprint(1)\n") == "print(1)"
    assert code_from("before <code>print(2)</code> after") == "print(2)"
