"""Issue 14: the rule condenser flags sources that give different figures for the same thing.
Every test reads real pages through the offline visit tool and condenses what it returned."""

from __future__ import annotations

import json
from pathlib import Path

from quest.agent import DRState, Fact, RuleCondenser
from quest.agent.prompts import message, tool_response
from quest.agent.research.figures import disagree, figures
from quest.corpus import Document, corpus_write
from quest.llm.types import Message
from quest.search.indexing import bm25_build
from quest.tools.offline import offline_toolbox

QUESTION = "What is the population of Kenya?"
A, B, C = "https://a.org/kenya", "https://b.org/kenya", "https://c.org/kenya"


def visits(folder: Path, pages: list[tuple[str, str]], question: str = QUESTION) -> list[Message]:
    """The events of a session that visited each page in turn."""
    corpus_write(
        folder,
        [
            Document(url=u, title=u, text=t, source="web", licence="t", topic="", fetched_at="x")
            for u, t in pages
        ],
    )
    bm25_build(folder)
    toolbox = offline_toolbox(folder)
    events: list[Message] = []
    for url, _ in pages:
        arguments = {"url": [url], "goal": question}
        body = json.dumps({"name": "visit", "arguments": arguments})
        events.append(message("assistant", f"<tool_call>{body}</tool_call>"))
        events.append(message("user", tool_response(toolbox.call("visit", arguments).text)))
    return events


def claims(facts: tuple[Fact, ...]) -> list[str]:
    return [fact.claim for fact in facts]


def disputed(state: DRState) -> list[Fact]:
    return [f for f in state.uncertain if "sources disagree" in f.reason]


def test_three_population_figures_for_kenya_are_all_kept_and_flagged(tmp_path: Path) -> None:
    pages = [
        (A, "Kenya has a population of 47.6 million. It lies in East Africa."),
        (B, "Kenya has a population of 52.4 million. Nairobi is its capital."),
        (C, "Kenya has a population of 38 million. It borders Uganda."),
    ]
    state = RuleCondenser().condense(QUESTION, visits(tmp_path, pages), None)
    flagged = disputed(state)
    assert sorted(claims(tuple(flagged))) == [
        "Kenya has a population of 38 million.",
        "Kenya has a population of 47.6 million.",
        "Kenya has a population of 52.4 million.",
    ]
    assert not [f for f in state.trusted if "population" in f.claim]
    first = next(f for f in flagged if "47.6" in f.claim)
    assert first.sources == (A,)
    assert f"52.4 million from {B}" in first.reason and f"38 million from {C}" in first.reason
    assert first.need.startswith("search Kenya") and "population" in first.need


def test_an_outnumbered_figure_is_untrusted_and_names_what_contradicts_it(tmp_path: Path) -> None:
    pages = [
        (A, "Kenya has a population of 47.6 million. It lies in East Africa."),
        (B, "Kenya has a population of 47,564,296. Nairobi is its capital."),
        (C, "Kenya has a population of 38 million. It borders Uganda."),
    ]
    state = RuleCondenser().condense(QUESTION, visits(tmp_path, pages), None)
    assert claims(state.untrusted) == ["Kenya has a population of 38 million."]
    assert state.untrusted[0].sources == (C,)
    assert A in state.untrusted[0].reason and B in state.untrusted[0].reason
    trusted = [f for f in state.trusted if "population" in f.claim]
    assert trusted and "38 million" in trusted[0].reason
    assert not {f.id for f in state.trusted} & {f.id for f in state.untrusted}


def test_figures_equal_within_rounding_confirm_each_other(tmp_path: Path) -> None:
    pages = [
        (A, "Kenya has a population of 47.6 million. It lies in East Africa."),
        (B, "Kenya has a population of 47,564,296. Nairobi is its capital."),
    ]
    state = RuleCondenser().condense(QUESTION, visits(tmp_path, pages), None)
    assert not state.untrusted and not disputed(state)
    assert claims(state.trusted) == ["Kenya has a population of 47.6 million."]
    assert "Kenya has a population of 47,564,296." in claims(state.uncertain)


def test_figures_of_different_countries_are_not_a_conflict(tmp_path: Path) -> None:
    question = "What are the populations of Kenya and Uganda?"
    pages = [
        (A, "Kenya has a population of 47.6 million. It lies in East Africa."),
        (B, "Uganda has a population of 45.7 million. Kampala is its capital."),
    ]
    state = RuleCondenser().condense(question, visits(tmp_path, pages, question), None)
    assert not state.untrusted and not disputed(state)


def test_a_trusted_figure_contradicted_by_a_later_source_leaves_trusted(tmp_path: Path) -> None:
    first = RuleCondenser().condense(
        QUESTION, visits(tmp_path / "one", [(A, "Kenya has a population of 47.6 million.")]), None
    )
    assert claims(first.trusted) == ["Kenya has a population of 47.6 million."]
    later = visits(tmp_path / "two", [(B, "Kenya has a population of 52.4 million.")])
    state = RuleCondenser().condense(QUESTION, later, first)
    assert not [f for f in state.trusted if "population" in f.claim]
    flagged = {f.claim: f for f in disputed(state)}
    old = flagged["Kenya has a population of 47.6 million."]
    new = flagged["Kenya has a population of 52.4 million."]
    assert old.id == first.trusted[0].id and old.sources == (A,) and B in old.reason
    assert new.sources == (B,) and A in new.reason


def test_a_trusted_figure_outnumbered_by_later_sources_becomes_untrusted(tmp_path: Path) -> None:
    first = RuleCondenser().condense(
        QUESTION, visits(tmp_path / "one", [(A, "Kenya has a population of 38 million.")]), None
    )
    pages = [
        (B, "Kenya has a population of 47.6 million. Nairobi is its capital."),
        (C, "Kenya has a population of 47,564,296. It borders Uganda."),
    ]
    state = RuleCondenser().condense(QUESTION, visits(tmp_path / "two", pages), first)
    assert claims(state.untrusted) == ["Kenya has a population of 38 million."]
    assert state.untrusted[0].sources == (A,)
    assert B in state.untrusted[0].reason and C in state.untrusted[0].reason


def test_figures_compare_by_value_within_the_precision_written() -> None:
    assert not disagree(figures("47.6 million"), figures("47,564,296"))
    assert not disagree(figures("about 48 million"), figures("47,564,296"))
    assert disagree(figures("47.6 million"), figures("52,428,290"))
    assert disagree(figures("330 metres"), figures("300 metres"))
    assert not disagree(figures("38.6 million in 2009"), figures("47.6 million in 2019"))
    assert disagree(figures("independent in 1963"), figures("independent in 1964"))
    assert [f.text for f in figures("47.6 million in 2019", leave_out=frozenset({"2019"}))] == [
        "47.6 million"
    ]
