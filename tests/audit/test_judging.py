"""Judge suggestions: the configured judge scores each task's reference solution, and the leaf
verdicts become suggestions on the audit page. The judge here is a real model behind a real
OpenAI-compatible server (`python -m quest serve-llm` with a tiny random-weights model): its
rulings are noise, which is what an undecided judge leaf looks like."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import JudgeVerdict
from apps.audit.services import campaign_create, solutions_judge_run
from apps.rubrics.services import task_create
from tests.live.test_llm_session import _llm_servers
from tests.rubrics.conftest import small_tree

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def tiny_judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from quest.llm.http import Endpoint, HTTPChat

    servers = _llm_servers()
    model = servers.build_tiny_model(tmp_path_factory.mktemp("models") / servers.TINY)
    served = servers.start_serve_llm(model)
    yield HTTPChat([Endpoint(base_url=served.url, model=servers.TINY)], max_tokens=16)
    served.stop()


def _task(admin: User) -> Any:
    tree = small_tree()
    tree["root"]["children"].append(
        {"id": "claim", "description": "States that Canberra is the capital", "critical": False,
         "check": {"kind": "judge", "claim": "Canberra is the capital of Australia"}}
    )  # fmt: skip
    return task_create(
        user=admin,
        record={
            "question": "Which city is the capital of Australia?",
            "rubric": tree,
            "solution": {
                "capital": {
                    "description": "Canberra",
                    "reference_urls": ["https://en.wikipedia.org/wiki/Canberra"],
                }
            },
        },
    )


@pytest.mark.integration
def test_the_judge_scores_reference_solutions_into_suggestions(
    make_user: Callable[..., User], tiny_judge: Any, settings: Any, tmp_path: Path
) -> None:
    settings.CORPUS_DIR = tmp_path / "no-corpus"
    settings.LLM_JUDGE_MODEL = "tiny-random-llama"
    admin = make_user("admin")
    task = _task(admin)
    campaign = campaign_create(user=admin, name="judged", filters={})
    assert solutions_judge_run(campaign_id=campaign.pk, client=tiny_judge) == 3
    verdicts = {v.node_id: v for v in JudgeVerdict.objects.filter(task=task)}
    assert set(verdicts) == {"capital", "cited", "claim"}
    assert verdicts["capital"].status == "pass"  # "Canberra" is in the reference solution
    assert verdicts["cited"].status == "pass"
    assert verdicts["claim"].status in {"pass", "fail", "error"}
    assert {v.judge for v in verdicts.values()} == {"tiny-random-llama"}
    solutions_judge_run(campaign_id=campaign.pk, client=tiny_judge)  # a rerun replaces them
    assert JudgeVerdict.objects.filter(task=task).count() == 3


def test_judging_needs_a_judge_model_and_an_admin(
    make_user: Callable[..., User], bearer: Callable[..., dict[str, str]], client: Client,
    settings: Any,
) -> None:  # fmt: skip
    admin = make_user("admin")
    _task(admin)
    campaign = campaign_create(user=admin, name="judged", filters={})
    url = f"/api/audit/campaigns/{campaign.pk}/judge-solutions"
    settings.LLM_JUDGE_MODEL = ""
    response = client.post(url, headers=bearer(admin))
    assert response.status_code == 422
    assert "QUESTWEB_JUDGE_MODEL" in response.json()["detail"]
    settings.LLM_JUDGE_MODEL = "smollm2"
    assert client.post(url, headers=bearer(make_user("reviewer"))).status_code == 403
    queued = client.post(url, headers=bearer(admin))
    assert queued.status_code == 202
    assert json.loads(queued.content) == {"queued_tasks": 1}


def test_an_admin_asks_for_judging_from_the_campaign_page(
    make_user: Callable[..., User], client: Client, settings: Any
) -> None:
    admin = make_user("admin")
    _task(admin)
    campaign = campaign_create(user=admin, name="judged", filters={})
    client.force_login(admin)
    assert (
        "Judge reference solutions"
        in client.get(f"/audit/campaigns/{campaign.pk}/").content.decode()
    )
    settings.LLM_JUDGE_MODEL = ""
    page = client.post(f"/audit/campaigns/{campaign.pk}/judge/", follow=True).content.decode()
    assert "no judge model is configured" in page
