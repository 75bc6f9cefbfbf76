"""What a session's reward says beyond its value (issue 29): which citations did not hold and
why, on the page's scoring events and in the Markdown export, whose numbers are rounded and
whose empty fields are left out."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.live.exports import markdown
from apps.live.scoring import TaskScorer

pytestmark = pytest.mark.django_db
SYDNEY = "https://en.wikipedia.org/wiki/Sydney"
ANSWER = f"Canberra is the capital of Australia [1].\n\n## Sources\n1. Sydney - {SYDNEY}\n"


def _task(make_user: Callable[..., Any]) -> Any:
    from apps.rubrics.services import task_create
    from tests.rubrics.conftest import small_tree

    record = {"question": "Which city is the capital of Australia?", "rubric": small_tree()}
    return task_create(user=make_user("admin"), record=record)


def test_the_final_reward_names_the_citations_that_did_not_hold(
    make_user: Callable[..., Any], corpus: Path
) -> None:
    _, score = TaskScorer(_task(make_user)).final(ANSWER)
    reward = score["reward"]
    assert reward["valid_rate"] == 0.0
    [invalid] = reward["invalid"]
    assert invalid["url"] == SYDNEY
    assert invalid["label"] == "unsupported"
    assert invalid["reason"]


def test_the_markdown_export_rounds_numbers_and_leaves_out_empty_fields(
    make_user: Callable[..., Any], make_session: Callable[..., Any], corpus: Path
) -> None:
    _, score = TaskScorer(_task(make_user)).final(ANSWER)
    score["reward"]["base"] = 0.6666666666666666
    session = make_session(make_user("viewer"), answer=ANSWER, result={"score": score})
    text = markdown(session)
    rubric = text.split("## Rubric score")[1].split("\n## ")[0]
    assert "- base: 0.667" in rubric
    assert not re.search(r"\d\.\d{4,}", rubric), rubric
    assert not re.search(r": (None|\[\]|\{\})?$", rubric, re.MULTILINE), rubric
    assert "dropped" not in rubric
    assert f"  - {SYDNEY} (unsupported): " in rubric
