"""The mid-training set (QUEST-SPEC §5.1, §6): the two skills the agent leans on, as chat rows
in the same shape as the SFT set (`messages` with per-message `loss` flags).

- `condenser`: the condenser's prompt (quest.agent.condenser: the question, the previous
  state, the session's events) -> the next state, one row per recorded condensation.
- `page`: the visit summariser's prompt (quest.tools.summariser: the page and the goal) ->
  `{rational, evidence, summary}`, one row per page a visit read. Trajectory turns keep the
  visit's structured result; the page text comes from the corpus the rollouts used, so without
  a corpus (or for a page it no longer holds) there are no page rows.

Identical rows (two rollouts of one task often condense and read alike) are written once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from quest.agent.condenser import CONDENSER_SYSTEM, condenser_prompt
from quest.agent.trajectory import Condensation
from quest.corpus.store import CorpusStore
from quest.tools.summariser import summariser_messages
from quest.training.rollouts import Rollout, RolloutTally

EXTRACT_FIELDS = ("rational", "evidence", "summary")


@dataclass
class MidReport(RolloutTally):
    condenser: int = 0
    page: int = 0
    duplicates: int = 0
    pages_missing: int = 0  # read during the rollout, not in the corpus now (or no corpus)


class MidBuilder:
    def __init__(self, *, store: CorpusStore | None = None) -> None:
        self.store = store
        self.report = MidReport()
        self._seen: set[str] = set()

    def rows(self, rollouts: Iterable[Rollout]) -> Iterator[dict[str, Any]]:
        for rollout in rollouts:
            self.report.rollouts += 1
            for row in [*condenser_rows(rollout), *self._page_rows(rollout)]:
                digest = hashlib.sha256(json.dumps(row["messages"]).encode()).hexdigest()
                if digest in self._seen:
                    self.report.duplicates += 1
                    continue
                self._seen.add(digest)
                if row["kind"] == "page":
                    self.report.page += 1
                else:
                    self.report.condenser += 1
                yield row

    def _page_rows(self, rollout: Rollout) -> list[dict[str, Any]]:
        rows = []
        for visit in visits(rollout):
            page = self.store.get(visit["url"]) if self.store is not None else None
            if page is None:
                self.report.pages_missing += 1
                continue
            target = json.dumps({key: visit[key] for key in EXTRACT_FIELDS}, ensure_ascii=False)
            rows.append(
                {
                    "kind": "page",
                    "rollout_id": rollout.rollout_id,
                    "task_id": rollout.task_id,
                    "url": visit["url"],
                    "goal": visit["goal"],
                    "messages": _pair(summariser_messages(page, visit["goal"]), target),
                }
            )
        return rows


def condenser_rows(rollout: Rollout) -> list[dict[str, Any]]:
    return [_condenser_row(rollout, pair) for pair in rollout.trajectory.condensations]


def _condenser_row(rollout: Rollout, pair: Condensation) -> dict[str, Any]:
    prompt = condenser_prompt(pair.question, pair.events, pair.state_before)
    system = {"role": "system", "content": CONDENSER_SYSTEM}
    return {
        "kind": "condenser",
        "rollout_id": rollout.rollout_id,
        "task_id": rollout.task_id,
        "index": pair.index,
        "recovered": pair.recovered,  # the state is the rule condenser's fallback merge
        "messages": _pair([system, {"role": "user", "content": prompt}], pair.state_after.dumps()),
    }


def visits(rollout: Rollout) -> Iterator[dict[str, str]]:
    """Every page a visit read: `{url, goal, rational, evidence, summary}` (pages it could not
    read are left out)."""
    for segment in rollout.segments:
        for turn in segment.turns:
            tool = turn.get("tool")
            if not isinstance(tool, dict) or tool.get("name") != "visit":
                continue
            for detail in tool.get("details") or ():
                if all(isinstance(detail.get(k), str) for k in ("url", "goal", *EXTRACT_FIELDS)):
                    yield detail


def _pair(prompt: list[dict[str, str]], target: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{**m, "loss": False} for m in prompt]
    return [*messages, {"role": "assistant", "content": target, "loss": True}]
