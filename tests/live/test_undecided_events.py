"""What a session's scoring events tell the page about checks that could not run: a judge leaf
with no judge configured is sent as undecided, and the nodes above it with their score bracket,
so the live tree never shows them as a failed 0; the dropped reward carries the bracket too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.live.models import Event, Session
from apps.live.scoring import TaskScorer
from apps.rubrics.services import task_create
from tests.rubrics.conftest import judged_tree, small_tree

pytestmark = pytest.mark.django_db
QUESTION = "Which city is the capital of Australia?"
ANSWER = "Canberra is the capital [1].\n\n## Sources\n1. https://en.wikipedia.org/wiki/Canberra"


def _task(make_user: Callable[..., Any], tree: dict[str, Any]) -> Any:
    return task_create(user=make_user("admin"), record={"question": QUESTION, "rubric": tree})


def _payloads(session: Session, kind: str) -> list[dict[str, Any]]:
    return list(Event.objects.filter(session=session, type=kind).values_list("payload", flat=True))


def test_a_session_without_a_judge_sends_its_judge_leaf_and_the_root_as_undecided(
    make_user: Callable[..., Any], corpus: Path, settings: Any
) -> None:
    from apps.live import runner

    settings.LLM_JUDGE_MODEL = ""
    task = _task(make_user, judged_tree())
    session = Session.objects.create(owner=task.created_by, question=QUESTION, task=task)
    runner.session_run(session_id=session.pk)

    verdicts = _payloads(session, "verdict")
    assert verdicts[-1]["final"] is True
    # What the page shows at the end: each node as its latest event left it.
    nodes = {node: shown for verdict in verdicts for node, shown in verdict["nodes"].items()}
    # The critical leaf passes; of the other two the cited one passes and the judge leaf could
    # not run: a half, or all of it.
    assert nodes["root"] == {"status": "partial", "score": 0.5, "undecided": True, "upper": 1.0}
    assert nodes["reasoned"]["status"] == "error" and nodes["reasoned"]["undecided"] is True
    assert nodes["capital"] == {"status": "pass", "score": 1.0}
    score = _payloads(session, "score")[-1]
    assert (score["complete"], score["lower"], score["upper"]) == (False, 0.5, 1.0)
    reward = score["reward"]
    assert reward["dropped"] is True and "reward" not in reward
    assert (reward["root_score_lower"], reward["root_score_upper"]) == (0.5, 1.0)


def test_a_judge_only_tree_without_a_judge_is_undecided_from_zero_to_one(
    make_user: Callable[..., Any],
) -> None:
    tree = judged_tree()
    tree["root"]["children"] = tree["root"]["children"][2:]
    events, score = TaskScorer(_task(make_user, tree)).final("Canberra.")
    nodes = events[0][1]["nodes"]
    assert nodes["root"] == {"status": "error", "score": 0.0, "undecided": True, "upper": 1.0}
    assert nodes["reasoned"]["undecided"] is True
    assert score["reward"]["dropped"] is True


def test_a_decided_tree_sends_plain_scores_and_nothing_twice(
    make_user: Callable[..., Any],
) -> None:
    scorer = TaskScorer(_task(make_user, small_tree()))
    state = {"information_state": {"trusted": [{"claim": "Canberra is the capital"}]}}
    [(kind, verdict), _] = scorer.on_state(state)
    assert kind == "verdict"
    assert verdict["nodes"]["capital"] == {"status": "pass", "score": 1.0}
    shown = verdict["nodes"].values()
    assert all("undecided" not in node and "upper" not in node for node in shown)
    assert [kind for kind, _ in scorer.on_state(state)] == ["score"], "nothing changed"
