"""The training pages for a viewer and an admin: who sees which forms, the overview with its
dataset form, and a dataset's loss-masked preview, files and progress. Rows are made directly;
no worker runs (the tests' transaction never commits, so nothing is enqueued)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.training.models import (
    Evaluation,
    TrainingDataset,
    TrainingJob,
)
from tests.training.page_fixtures import (
    HTMX,
    _html,
    _login,
    dataset,
    evaluation,
    job,
    make_job,
)

__all__ = ["dataset", "evaluation", "job", "make_job"]

pytestmark = pytest.mark.django_db


# ---- who sees what ------------------------------------------------------------------------------


def test_a_viewer_reads_every_training_page_without_a_form(
    client: Client, viewer: User, dataset: TrainingDataset, job: TrainingJob, evaluation: Evaluation
) -> None:
    _login(client, viewer)
    overview = _html(client.get("/training/"))
    assert 'href="/training/" aria-current="page"' in overview
    assert f'href="/training/datasets/{dataset.pk}/"' in overview
    assert f'href="/training/jobs/{job.pk}/"' in overview
    assert "A fixed fifth of gated tasks is held out of every dataset" in overview
    assert 'data-testid="dataset-form"' not in overview
    assert 'data-testid="launch"' not in overview

    page = _html(client.get(f"/training/datasets/{dataset.pk}/"))
    assert 'data-testid="preview"' in page and 'data-testid="cancel-dataset"' not in page

    page = _html(client.get(f"/training/jobs/{job.pk}/"))
    assert 'data-testid="rollouts"' in page
    for form in ("cancel-job", "resume-form", "evaluate-form"):
        assert f'data-testid="{form}"' not in page

    launch = _html(client.get("/training/jobs/new/"))
    assert "Only admins launch jobs." in launch and 'data-testid="launch-form"' not in launch
    assert 'data-testid="cancel-evaluation"' not in _html(
        client.get(f"/training/evaluations/{evaluation.pk}/")
    )


def test_a_viewer_cannot_build_launch_preview_or_cancel(
    client: Client, viewer: User, dataset: TrainingDataset, job: TrainingJob
) -> None:
    _login(client, viewer)
    assert client.post("/training/", {"kind": "rl"}).status_code == 403
    form = {"kind": "grpo", "dataset": str(dataset.pk), "model": "tiny"}
    assert client.post("/training/jobs/new/", form).status_code == 403
    assert client.post("/training/jobs/new/preview/", form).status_code == 403
    assert client.post(f"/training/jobs/{job.pk}/cancel/").status_code == 403
    assert not TrainingDataset.objects.exclude(pk=dataset.pk).exists()
    assert TrainingJob.objects.get(pk=job.pk).cancel_requested is False


def test_an_admin_sees_the_forms(
    client: Client, admin: User, dataset: TrainingDataset, job: TrainingJob
) -> None:
    _login(client, admin)
    overview = _html(client.get("/training/"))
    assert 'data-testid="dataset-form"' in overview and 'data-testid="launch"' in overview
    page = _html(client.get(f"/training/jobs/{job.pk}/"))
    assert 'data-testid="cancel-job"' in page and 'data-testid="evaluate-form"' in page
    assert 'data-testid="resume-form"' not in page, "a running job is resumed once it has ended"
    launch = _html(client.get("/training/jobs/new/"))
    assert 'data-testid="launch-form"' in launch
    assert f'<option value="{dataset.pk}" data-kind="rl"' in launch


@pytest.mark.parametrize(
    "path",
    ["/training/", "/training/jobs/new/", "/training/jobs/1/", "/training/datasets/1/",
     "/training/evaluations/1/", "/training/compare/?jobs=1&jobs=2"],
)  # fmt: skip
def test_anonymous_visitors_are_sent_to_log_in(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


@pytest.mark.parametrize(
    "path",
    ["/training/jobs/999/", "/training/datasets/999/", "/training/evaluations/999/",
     "/training/jobs/999/rollouts/", "/training/datasets/999/files/rl.jsonl",
     "/training/jobs/new/?preset=999"],
)  # fmt: skip
def test_an_unknown_id_is_a_404(client: Client, viewer: User, path: str) -> None:
    assert _login(client, viewer).get(path).status_code == 404


# ---- the overview and datasets ------------------------------------------------------------------


def test_an_admin_builds_a_dataset_from_the_form(client: Client, admin: User) -> None:
    form = {
        "kind": "sft",
        "name": "  sessions ",
        "split": "all",
        "limit": "5",
        "policy": "scripted",
        "attempts": "3",
        "min_reward": "0.4",
        "hint_retry": "on",
    }
    response = _login(client, admin).post("/training/", form)
    dataset = TrainingDataset.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/training/datasets/{dataset.pk}/"
    assert (dataset.name, dataset.kind, dataset.status) == ("sessions", "sft", "queued")
    assert dataset.params == {"split": "all", "limit": 5, "policy": "scripted", "attempts": 3,
                              "min_reward": 0.4, "hint_retry": True}  # fmt: skip
    page = _html(client.get(response["Location"]))
    assert f"Dataset {dataset.pk} queued." in page
    assert f'hx-get="/training/datasets/{dataset.pk}/progress/" hx-trigger="every 2s"' in page
    assert 'data-testid="cancel-dataset"' in page


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"kind": "rl", "limit": "many"}, "limit must be a whole number"),
        ({"kind": "sft", "min_reward": "high"}, "min_reward must be a number"),
        ({"kind": "sft", "min_reward": "2"}, "min_reward must be between 0 and 1"),
        ({"kind": "mid"}, "source_dataset must be the id of a built SFT dataset"),
    ],
)
def test_a_bad_dataset_form_is_shown_again_with_the_reason(
    client: Client, admin: User, form: dict[str, str], message: str
) -> None:
    response = _login(client, admin).post("/training/", form)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert not TrainingDataset.objects.exists()


def test_a_dataset_shows_its_lengths_and_a_preview_with_the_loss_mask(
    client: Client, viewer: User, dataset: TrainingDataset
) -> None:
    page = _html(_login(client, viewer).get(f"/training/datasets/{dataset.pk}/"))
    assert "3 rows · median 30 · p95 50 · max 50 tokens · 12 of 90 tokens trained" in page
    figures = json.loads(page.split('id="training-figures" type="application/json">')[1]
                         .split("</script>")[0])  # fmt: skip
    lengths = figures["lengths"]
    assert lengths["data"][0]["y"] == [1, 1, 1]  # one row in each bin of 10..50 tokens
    assert lengths["layout"]["yaxis"]["dtick"] == 1  # whole rows
    assert '<span class="seg-trained">Canberra [1]</span>' in page
    assert '<span class="seg-context">&lt;|im_start|&gt;user\nWhich city?</span>' in page
    assert "trained (loss)" in page and "context (no loss)" in page
    assert "no leaf" in page, "a skipped task is listed with its reason"
    assert f'href="/training/datasets/{dataset.pk}/files/rl.jsonl"' in page
    assert "hx-trigger" not in page, "a built dataset is not polled"

    second = _html(client.get(f"/training/datasets/{dataset.pk}/?row=2"))
    assert '<span class="seg-trained">Paris</span>' in second
    assert "Canberra [1]" not in second


def test_a_dataset_file_is_served_only_when_the_build_listed_it(
    client: Client, viewer: User, dataset: TrainingDataset
) -> None:
    _login(client, viewer)
    url = f"/training/datasets/{dataset.pk}/files/"
    listed = client.get(url + "rl.jsonl")
    assert listed.status_code == 200
    assert "attachment" in listed["Content-Disposition"]
    assert b"".join(listed.streaming_content).count(b"\n") == 3
    for name in ("secret.txt", "preview.json", "..%2F..%2Fsecret.txt"):
        assert client.get(url + name).status_code == 404, name


def test_the_progress_poll_reloads_the_page_once_the_build_has_ended(
    client: Client, admin: User, dataset: TrainingDataset
) -> None:
    TrainingDataset.objects.filter(pk=dataset.pk).update(status="running", done=1)
    _login(client, admin)
    running = client.get(f"/training/datasets/{dataset.pk}/progress/", headers=HTMX)
    assert "HX-Refresh" not in running
    assert '<progress max="3" value="1"' in running.content.decode()
    TrainingDataset.objects.filter(pk=dataset.pk).update(status="done", done=3)
    ended = client.get(f"/training/datasets/{dataset.pk}/progress/", headers=HTMX)
    assert ended["HX-Refresh"] == "true"
