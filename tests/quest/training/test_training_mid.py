from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from quest.agent import RunResult
from quest.agent.condenser import CONDENSER_SYSTEM, condenser_prompt
from quest.agent.prompts import unwrap_tool_response
from quest.agent.state import parse_state
from quest.corpus.store import CorpusStore
from quest.tools.summariser import SYSTEM_PROMPT, summariser_messages
from quest.training import MidBuilder, Rollout, read_jsonl, read_rollouts, visits


def read(path: Path) -> list[Rollout]:
    return list(read_rollouts(read_jsonl(path)))


def mid_rows(path: Path, corpus: Path | None) -> tuple[MidBuilder, list[dict[str, Any]]]:
    builder = MidBuilder(store=CorpusStore(corpus) if corpus else None)
    return builder, list(builder.rows(read(path)))


def test_each_condensation_is_a_pair_from_the_condenser_prompt_to_the_next_state(
    runs: dict[str, RunResult], rollouts_file: Path, corpus: Path
) -> None:
    _, rows = mid_rows(rollouts_file, corpus)
    pairs = [r for r in rows if r["kind"] == "condenser" and r["rollout_id"] == "aus-1"]
    condensations = runs["aus-1"].trajectory.condensations
    assert len(condensations) >= 2 and len(pairs) == len(condensations)
    for row, pair in zip(pairs, condensations, strict=True):
        system, user, target = row["messages"]
        assert system == {"role": "system", "content": CONDENSER_SYSTEM, "loss": False}
        prompt = condenser_prompt(pair.question, pair.events, pair.state_before)
        assert user == {"role": "user", "content": prompt, "loss": False}
        assert (target["role"], target["loss"]) == ("assistant", True)
        assert parse_state(target["content"]) == pair.state_after
    # the second pair starts from the first one's state
    assert "none (this is the first condensation)" in pairs[0]["messages"][1]["content"]
    assert pairs[0]["messages"][2]["content"] in pairs[1]["messages"][1]["content"]


def test_each_page_a_visit_read_is_a_pair_from_page_and_goal_to_the_evidence(
    runs: dict[str, RunResult], rollouts_file: Path, corpus: Path
) -> None:
    _, rows = mid_rows(rollouts_file, corpus)
    pages = [r for r in rows if r["kind"] == "page" and r["rollout_id"] == "aus-1"]
    assert [r["url"] for r in pages] == [s["url"] for s in runs["aus-1"].sources]
    store = CorpusStore(corpus)
    seen = [
        unwrap_tool_response(t["content"]) or ""
        for s in runs["aus-1"].trajectory.segments
        for t in s.turns
    ]
    for row in pages:
        page = store.get(row["url"])
        assert page is not None
        assert row["messages"][:2] == [
            {**m, "loss": False} for m in summariser_messages(page, row["goal"])
        ]
        assert row["messages"][0]["content"] == SYSTEM_PROMPT
        target = json.loads(row["messages"][2]["content"])
        assert list(target) == ["rational", "evidence", "summary"]
        assert row["messages"][2]["loss"]
        # the evidence is what the agent read in the tool response
        assert any(target["evidence"] in text for text in seen)


def test_the_trajectory_keeps_each_visits_structured_result(runs: dict[str, RunResult]) -> None:
    rollout = Rollout(runs["fra-1"].trajectory, line=1)
    found = list(visits(rollout))
    assert [v["url"] for v in found] == [s["url"] for s in runs["fra-1"].sources]
    assert all(v["goal"] == "Find: What is the capital city of France?" for v in found)


def test_rows_repeated_across_rollouts_are_written_once(rollouts_file: Path, corpus: Path) -> None:
    builder, rows = mid_rows(rollouts_file, corpus)
    # aus-1 is recorded three times, and aus-2 reads and condenses exactly as aus-1 does
    assert {r["rollout_id"] for r in rows} == {"aus-1", "fra-1"}
    first = sum(1 for r in rows if r["rollout_id"] == "aus-1")
    report = builder.report
    assert (report.rollouts, report.duplicates) == (5, 3 * first)
    assert report.condenser + report.page == len(rows)


def test_without_a_corpus_there_are_condenser_pairs_but_no_page_pairs(
    rollouts_file: Path,
) -> None:
    builder, rows = mid_rows(rollouts_file, None)
    assert rows and {r["kind"] for r in rows} == {"condenser"}
    assert builder.report.pages_missing > 0 and builder.report.page == 0
