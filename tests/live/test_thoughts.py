"""A scripted session's thoughts name what it looks for in the question's own words (issue 29):
its terms are stemmed for matching ("accord", "geoname"), which no viewer should have to read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.live import runner
from apps.live.models import Event

pytestmark = pytest.mark.django_db


def test_a_scripted_thought_shows_the_question_words_not_their_stems(
    make_user: Callable[..., Any], make_session: Callable[..., Any], corpus: Path
) -> None:
    question = "According to GeoNames, how many people live in Canberra?"
    session = make_session(make_user("viewer"), question=question, budgets={"max_turns": 3})
    runner.session_run(session_id=session.pk)
    thought = Event.objects.filter(session=session, type="thought").first()
    assert thought is not None
    text = thought.payload["text"]
    assert "Looking for: According, GeoNames, people, live, Canberra." in text
    assert "accord" not in text and "geoname," not in text
