"""Who judges a session's rubric: the configured judge model, never the policy grading itself,
and the session page says so when there is none."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.live.models import Policy

pytestmark = pytest.mark.django_db

# Two models behind an address nothing listens on: the clients are built, never called.
ENDPOINTS = "http://127.0.0.1:9/v1|policy-model,http://127.0.0.1:9/v1|judge-model"
NO_JUDGE = "No judge model is configured (QUESTWEB_JUDGE_MODEL)"


def _parts(session: Any) -> tuple[Any, Any, Any]:
    """(the policy inside the runner's watch, the condenser, the judge client)."""
    from apps.live.progress import TurnWatch
    from apps.live.runner import _agent_parts, _budgets

    watch = TurnWatch(session, pace_s=0.0, announce=False)
    policy, condenser, judge, _ = _agent_parts(session, _budgets(session), watch)
    return policy.inner, condenser, judge


@pytest.fixture
def llm_session(make_user: Callable[..., Any], make_session: Callable[..., Any]) -> Any:
    return make_session(make_user("viewer"), policy=Policy.LLM, model="policy-model")


def test_an_llm_session_is_judged_by_the_judge_model_not_by_its_own_client(
    llm_session: Any, settings: Any
) -> None:
    settings.LLM_ENDPOINTS = ENDPOINTS
    settings.LLM_JUDGE_MODEL = "judge-model"
    policy, _, judge = _parts(llm_session)
    assert judge is not None and judge is not policy.client
    assert (judge.name, policy.client.name) == ("judge-model", "policy-model")


@pytest.mark.parametrize("judge_model", ["", "policy-model"])
def test_an_llm_session_has_no_judge_without_one_or_when_it_is_its_own_model(
    llm_session: Any, settings: Any, judge_model: str
) -> None:
    settings.LLM_ENDPOINTS = ENDPOINTS
    settings.LLM_JUDGE_MODEL = judge_model
    policy, _, judge = _parts(llm_session)
    assert judge is None and policy.client.name == "policy-model"


def test_a_scripted_session_is_judged_by_the_judge_model(
    make_user: Callable[..., Any], make_session: Callable[..., Any], settings: Any
) -> None:
    settings.LLM_ENDPOINTS = ENDPOINTS
    settings.LLM_JUDGE_MODEL = "judge-model"
    session = make_session(make_user("viewer"), policy=Policy.SCRIPTED)
    assert _parts(session)[2].name == "judge-model"
    settings.LLM_JUDGE_MODEL = ""
    assert _parts(session)[2] is None


def test_a_task_session_page_says_when_no_judge_is_configured(
    make_user: Callable[..., Any], make_session: Callable[..., Any], client: Client, settings: Any
) -> None:
    from apps.rubrics.services import task_create
    from tests.rubrics.conftest import judged_tree

    admin = make_user("admin")
    task = task_create(user=admin, record={"question": "Capital?", "rubric": judged_tree()})
    session = make_session(admin, task=task, policy=Policy.LLM, model="policy-model")
    client.force_login(admin)
    settings.LLM_JUDGE_MODEL = ""
    assert NO_JUDGE in client.get(f"/live/{session.public_id}/").content.decode()
    settings.LLM_JUDGE_MODEL = "policy-model"
    page = client.get(f"/live/{session.public_id}/").content.decode()
    assert NO_JUDGE not in page and "a policy never grades itself" in page
    settings.LLM_JUDGE_MODEL = "judge-model"
    assert "never grades itself" not in client.get(f"/live/{session.public_id}/").content.decode()
