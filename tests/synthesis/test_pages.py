"""The synthesis pages for each role: the batch list and its form, a batch's progress, charts and
candidates, a candidate with its stages and tree, and the hand decisions."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.utils.html import escape

from apps.accounts.models import User
from apps.rubrics.models import Task
from apps.synthesis.models import SynthesisBatch, SynthesisCandidate
from tests.factories import SynthesisBatchFactory

pytestmark = pytest.mark.django_db
ROLES = ("viewer", "annotator", "reviewer", "admin")


def _login(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


@pytest.mark.parametrize("role", ROLES)
def test_every_role_reads_the_batches_a_batch_and_a_candidate(
    client: Client,
    admin: User,
    make_user: Callable[..., User],
    run_batch: Callable[..., SynthesisBatch],
    role: str,
) -> None:
    batch = run_batch(admin, count=3, seed=3, baseline=True)
    _login(client, make_user(role))
    is_admin = role == "admin"

    listed = client.get("/synthesis/").content.decode()
    assert f'href="/synthesis/{batch.pk}/"' in listed
    assert 'href="/synthesis/" aria-current="page"' in listed
    assert ('data-testid="batch-form"' in listed) is is_admin

    page = client.get(f"/synthesis/{batch.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "vendor/plotly/plotly-4.1.1.min.js" in html and "js/synthesis.js" in html
    figures = json.loads(html.split('id="synthesis-figures" type="application/json">')[1]
                         .split("</script>")[0])  # fmt: skip
    assert set(figures) == {"funnel", "categories", "classes", "depth", "breadth", "baseline"}
    assert figures["funnel"]["data"][0]["y"][0] == "Schema"
    assert html.count('<tr data-candidate="') == 3
    assert 'class="table-scroll"' in html
    assert 'hx-trigger="every 1s"' not in html, "a finished batch is not polled"
    assert ('data-testid="campaign"' in html) is (is_admin and batch.accepted > 0)

    candidate = batch.candidates.filter(accepted=True).first()
    assert candidate is not None
    detail = client.get(f"/synthesis/candidates/{candidate.pk}/").content.decode()
    assert escape(candidate.question) in detail  # it asks for 'Exact answer: <country>'
    # The red-team's and the difficulty stage among them.
    assert detail.count('class="stage stage-passed"') == 9
    assert 'data-testid="tree"' in detail and 'data-node="root"' in detail
    assert 'data-testid="reference-answer"' in detail
    assert f'href="/tasks/{candidate.task_id}/"' in detail
    assert ('data-testid="reject"' in detail) is is_admin
    assert (f'action="/synthesis/candidates/{candidate.pk}/reject/"' in detail) is is_admin


def test_an_admin_starts_a_batch_from_the_form(client: Client, admin: User) -> None:
    _login(client, admin)
    form = {"generator": "kg", "count": "5", "seed": "11", "category:General Info.": "2",
            "category:Shopping": "", "class:C2": "1"}  # fmt: skip
    created = client.post("/synthesis/", form)
    batch = SynthesisBatch.objects.get()
    assert created.status_code == 302 and created["Location"] == f"/synthesis/{batch.pk}/"
    assert batch.spec == {"generator": "kg", "count": 5, "seed": 11,
                          "categories": {"General Info.": 2.0}, "classes": {"C2": 1.0},
                          "baseline": False, "open_ended": False,
                          "proposer_turns": 30, "until_accepted": False}  # fmt: skip
    page = client.get(created["Location"]).content.decode()
    assert f"Batch {batch.pk} queued." in page
    assert f'hx-get="/synthesis/{batch.pk}/progress/" hx-trigger="every 1s"' in page
    assert 'data-testid="cancel-batch"' in page


def test_a_batch_until_its_accepted_tasks_shows_the_goal(
    client: Client, admin: User, settings: Any
) -> None:
    _login(client, admin)
    form = {"generator": "kg", "count": "300", "seed": "4", "until_accepted": "on"}
    created = client.post("/synthesis/", form)
    batch = SynthesisBatch.objects.get()
    assert created.status_code == 302 and batch.spec["until_accepted"] is True
    assert (batch.total, batch.shards) == (300, 2), "300 proposed first, in two shards"
    page = client.get(created["Location"]).content.decode()
    assert "until 300 accepted" in page and 'aria-label="tasks accepted"' in page
    assert "<strong>0</strong> of 300 tasks accepted" in page
    listing = client.get("/synthesis/").content.decode()
    assert "0 / 300 accepted" in listing


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"count": "0"}, "count must be from 1 to 2000"),
        ({"count": "many"}, "count must be a whole number"),
        ({"class:C1": "lots"}, "the weight of C1 must be a number"),
        ({"category:Music": "1"}, "categories: the kg generator writes no tasks for Music"),
    ],
)
def test_a_bad_form_is_shown_again_with_the_reason_and_nothing_is_queued(
    client: Client, admin: User, form: dict[str, str], message: str
) -> None:
    response = _login(client, admin).post("/synthesis/", {"count": "3", "seed": "1", **form})
    assert response.status_code == 422
    assert message in response.content.decode()
    assert not SynthesisBatch.objects.exists()


def test_a_viewer_cannot_start_cancel_or_decide_from_the_pages(
    client: Client, make_user: Callable[..., User], rejected_candidate: SynthesisCandidate
) -> None:
    _login(client, make_user("viewer"))
    running = SynthesisBatchFactory(status="running")
    assert client.post("/synthesis/", {"count": "2"}).status_code == 403
    assert client.post(f"/synthesis/{running.pk}/cancel/").status_code == 403
    accept = client.post(f"/synthesis/candidates/{rejected_candidate.pk}/accept/")
    assert accept.status_code == 403 and "this needs the admin role" in accept.content.decode()
    assert not Task.objects.exists()


def test_the_progress_poll_reloads_the_page_once_the_batch_has_ended(
    client: Client, admin: User
) -> None:
    batch = SynthesisBatchFactory(status="running", created_by=admin, total=10, proposed=4)
    _login(client, admin)
    htmx = {"HX-Request": "true"}
    running = client.get(f"/synthesis/{batch.pk}/progress/", headers=htmx)
    assert "HX-Refresh" not in running
    html = running.content.decode()
    assert '<progress max="10" value="4"' in html and 'hx-trigger="every 1s"' in html
    SynthesisBatch.objects.filter(pk=batch.pk).update(status="done", done=10)
    ended = client.get(f"/synthesis/{batch.pk}/progress/", headers=htmx)
    assert ended["HX-Refresh"] == "true"


def test_the_candidate_filters_swap_the_table_alone(
    client: Client, admin: User, run_batch: Callable[..., SynthesisBatch]
) -> None:
    batch = run_batch(admin, count=4, seed=3)
    _login(client, admin)
    part = client.get(f"/synthesis/{batch.pk}/?outcome=accepted", headers={"HX-Request": "true"})
    html = part.content.decode()
    assert html.lstrip().startswith('<div id="candidates">') and "<h1>" not in html
    assert html.count('<tr data-candidate="') == batch.accepted
    assert f"{batch.accepted} candidate" in html


def test_an_admin_accepts_and_rejects_a_candidate_with_the_forms_csrf_token(
    csrf_client: Client, admin: User, rejected_candidate: SynthesisCandidate
) -> None:
    url = f"/synthesis/candidates/{rejected_candidate.pk}/"
    _login(csrf_client, admin)
    assert csrf_client.post(f"{url}accept/").status_code == 403, "no token, no decision"
    page = csrf_client.get(url).content.decode()
    assert 'data-testid="accept"' in page and "rejected at Not a near-duplicate" in page
    token = csrf_client.cookies["csrftoken"].value
    accepted = csrf_client.post(f"{url}accept/", {"csrfmiddlewaretoken": token, "note": "good"})
    assert accepted.status_code == 302 and accepted["Location"] == url
    task = Task.objects.get()
    page = csrf_client.get(url).content.decode()
    assert f"Accepted: task {task.pk} is pending audit." in page
    assert "Accepted by hand by ada" in page and f'href="/tasks/{task.pk}/"' in page
    again = csrf_client.post(f"{url}accept/", {"csrfmiddlewaretoken": token})
    assert again.status_code == 302
    assert "is accepted" in csrf_client.get(url).content.decode()
    csrf_client.post(f"{url}reject/", {"csrfmiddlewaretoken": token})
    page = csrf_client.get(url).content.decode()
    assert "Rejected: its task was removed (nobody had worked on it yet)." in page
    assert not Task.objects.exists()


def test_a_campaign_is_created_from_the_batch_page(
    client: Client, admin: User, run_batch: Callable[..., SynthesisBatch]
) -> None:
    batch = run_batch(admin, count=2, seed=4)
    response = _login(client, admin).post(
        f"/synthesis/{batch.pk}/campaign/", {"annotators_per_task": "1"}
    )
    from apps.audit.models import Campaign

    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/audit/campaigns/{campaign.pk}/"
    assert campaign.items.count() == batch.accepted


def test_the_export_link_streams_the_accepted_candidates(
    client: Client, make_user: Callable[..., User], admin: User, run_batch: Any
) -> None:
    batch = run_batch(admin, count=2, seed=4)
    response = _login(client, make_user("viewer")).get(f"/synthesis/{batch.pk}/export.jsonl")
    assert response.status_code == 200
    lines = b"".join(response.streaming_content).splitlines()
    assert len(lines) == batch.accepted


def test_a_failed_and_a_cancelled_batch_say_why_on_their_page(
    client: Client, admin: User, make_user: Callable[..., User]
) -> None:
    failed = SynthesisBatchFactory(status="failed", error="the corpus is empty: load it first")
    cancelled = SynthesisBatchFactory(status="cancelled", error="cancelled by ada")
    _login(client, make_user("viewer"))
    page = client.get(f"/synthesis/{failed.pk}/").content.decode()
    assert "The batch failed: the corpus is empty: load it first" in page
    assert "No candidate matches." in page and 'data-figure="funnel"' in page
    assert 'data-figure="baseline"' not in page
    page = client.get(f"/synthesis/{cancelled.pk}/").content.decode()
    assert "Cancelled by ada; the candidates it wrote are kept." in page
    assert client.get("/synthesis/999999/").status_code == 404
    assert client.get("/synthesis/candidates/999999/").status_code == 404
