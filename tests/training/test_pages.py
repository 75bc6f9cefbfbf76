"""The training pages for a viewer and an admin: the overview with its dataset form, a dataset's
loss-masked preview and files, the launch form with its YAML preview and presets, a job with its
curves, rollouts, log and checkpoints, an evaluation's results and jobs compared. Rows are made
directly; no worker runs (the tests' transaction never commits, so nothing is enqueued)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.training.models import (
    Evaluation,
    TrainingDataset,
    TrainingJob,
    TrainingMetric,
    TrainingPreset,
    TrainingRollout,
)
from quest.training.config import parse_config

pytestmark = pytest.mark.django_db
QUESTION = "Which city is the capital of Australia?"
HTMX = {"HX-Request": "true"}


def _login(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def _html(response: Any) -> str:
    assert response.status_code == 200, response.status_code
    return str(response.content.decode())


@pytest.fixture
def dataset(training_dirs: Path, admin: User) -> TrainingDataset:
    """A built RL dataset: its rows file, lengths and a two-row preview with a loss mask."""
    row = TrainingDataset.objects.create(
        name="capitals", kind="rl", status="done", rows=3, done=3, total=3, created_by=admin,
        params={"split": "train", "limit": 0},
        stats={"files": ["rl.jsonl"], "skipped_tasks": [{"task_id": "9", "reason": "no leaf"}],
               "tokens": {"trained": 12, "total": 90}},
    )  # fmt: skip
    row.directory = str(training_dirs / "datasets" / str(row.pk))
    row.save()
    folder = Path(row.directory)
    folder.mkdir(parents=True)
    (folder / "rl.jsonl").write_text('{"prompt": []}\n' * 3)
    (folder / "secret.txt").write_text("not listed")
    (folder / "lengths.json").write_text("[10, 30, 50]")
    preview = [
        {"row": 1, "meta": {"task_id": "4"},
         "segments": [["<|im_start|>user\nWhich city?", False], ["Canberra [1]", True]]},
        {"row": 2, "meta": {}, "segments": [["second row context", False], ["Paris", True]]},
    ]  # fmt: skip
    (folder / "preview.json").write_text(json.dumps(preview))
    return row


def _config(job: TrainingJob, dataset: TrainingDataset, **over: Any) -> dict[str, Any]:
    runs = Path(dataset.directory).parents[1] / "runs"
    data = {
        "kind": "grpo",
        "model": "tiny",
        "dataset": [f"{dataset.directory}/rl.jsonl"],
        "corpus": "/corpus",
        "output_dir": str(runs / str(job.pk)),
        "max_steps": 10,
        **over,
    }
    return dict(parse_config(data).model_dump(mode="json"))


@pytest.fixture
def make_job(dataset: TrainingDataset, admin: User) -> Callable[..., TrainingJob]:
    def make(status: str = "running", **config: Any) -> TrainingJob:
        job = TrainingJob.objects.create(
            name=f"grpo {status}", kind="grpo", dataset=dataset, config={}, status=status,
            step=2, max_steps=10, created_by=admin,
        )  # fmt: skip
        job.config = _config(job, dataset, **config)
        job.save()
        return job

    return make


@pytest.fixture
def job(make_job: Callable[..., TrainingJob]) -> TrainingJob:
    """A running GRPO job with two logged steps, three rollouts, a checkpoint and a log."""
    job = make_job()
    for line, step in enumerate((1, 2)):
        values = {"loss": 0.5 / step, "reward": 0.2 * step, "reward_std": 0.1,
                  "reward/base": 0.3, "kl": 0.0, "step_s": 4.0}  # fmt: skip
        TrainingMetric.objects.create(job=job, line=line, step=step, values=values)
    for line in range(3):
        TrainingRollout.objects.create(
            job=job, line=line, step=2, index=line, question=QUESTION,
            completion=f"The capital is Canberra, try {line}.", status="answered",
            reward=0.75, base=0.8, citation=0.5, leaves_passed=2, leaves_total=3,
        )  # fmt: skip
    checkpoint = Path(job.output_dir) / "checkpoint-2"
    checkpoint.mkdir(parents=True)
    (checkpoint / "trainer_state.json").write_text("{}")
    (checkpoint / "model.safetensors").write_bytes(b"0" * 3 * 1024 * 1024)
    (Path(job.output_dir) / "train.log").write_text("train: 3 rl rows\nstep 2 done\n")
    return job


@pytest.fixture
def evaluation(job: TrainingJob, admin: User) -> Evaluation:
    def scores(rewards: list[float | None]) -> list[dict[str, Any]]:
        return [{"task_id": str(n + 1), "reward": r, "status": "answered"}
                for n, r in enumerate(rewards)]  # fmt: skip

    results = {
        "models": {
            "checkpoint": {"model": "ckpt", "n": 3, "mean": 0.6, "ci95": [0.5, 0.7],
                           "answer_rate": 1.0, "valid_turn_rate": 0.9, "citation_validity": 0.8,
                           "dropped": 0, "scores": scores([0.5, 0.6, 0.7])},
            "base": {"model": "tiny", "n": 2, "mean": 0.25, "ci95": [0.2, 0.3], "dropped": 1,
                     "scores": scores([0.2, 0.3, None])},
        },
        "difference": {"n": 2, "mean": 0.3, "ci95": [0.25, 0.35], "wins": 2, "losses": 0,
                       "ties": 0},
        "tasks": 3,
    }  # fmt: skip
    return Evaluation.objects.create(
        job=job, checkpoint=f"{job.output_dir}/checkpoint-2", base_model="tiny",
        task_ids=["1", "2", "3"], status="done", done=6, total=6, results=results,
        created_by=admin,
    )  # fmt: skip


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
    assert figures["lengths"]["data"][0]["x"] == [10, 30, 50]
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


# ---- the launch form ----------------------------------------------------------------------------


def _launch_form(dataset: TrainingDataset, **fields: str) -> dict[str, str]:
    return {"kind": "grpo", "dataset": str(dataset.pk), "model": "tiny", "max_steps": "7",
            "grpo.epsilon": "0.2", "grpo.epsilon_high": "0.28", **fields}  # fmt: skip


def test_the_launch_form_is_prefilled_with_the_papers_grpo_defaults(
    client: Client, admin: User
) -> None:
    page = _html(_login(client, admin).get("/training/jobs/new/"))
    for name, value in (("grpo.num_generations", "8"), ("grpo.learning_rate", "1e-06"),
                        ("grpo.epsilon", "0.2"), ("grpo.epsilon_high", "0.28"),
                        ("grpo.beta", "0.0"), ("grpo.temperature", "1.0"),
                        ("rollout.max_turns", "50"), ("sft.learning_rate", "1e-05")):  # fmt: skip
        assert f'name="{name}" value="{value}"' in page, name
    assert "<option selected>dapo</option>" in page
    assert 'data-kinds="grpo"' in page and 'data-kinds="sft mid"' in page


def test_the_yaml_preview_shows_the_config_or_the_field_that_is_wrong(
    client: Client, admin: User, dataset: TrainingDataset
) -> None:
    _login(client, admin)
    good = _html(client.post("/training/jobs/new/preview/", _launch_form(dataset), headers=HTMX))
    assert 'data-testid="preview-yaml"' in good
    assert "kind: grpo" in good and "max_steps: 7" in good and "epsilon_high: 0.28" in good
    assert "<h1>" not in good, "the preview is a fragment"

    blank = _html(client.post("/training/jobs/new/preview/", {"kind": "grpo"}, headers=HTMX))
    assert "Pick a dataset" in blank and "error-text" not in blank

    clipped = _launch_form(dataset, **{"grpo.epsilon_high": "0.1"})
    bad = _html(client.post("/training/jobs/new/preview/", clipped, headers=HTMX))
    assert "grpo: epsilon_high must be at least epsilon" in bad
    assert 'data-testid="preview-yaml"' not in bad

    words = _launch_form(dataset, **{"grpo.learning_rate": "fast"})
    assert "grpo.learning_rate must be a number, not &#x27;fast&#x27;" in _html(
        client.post("/training/jobs/new/preview/", words, headers=HTMX)
    )


def test_an_admin_launches_a_job_and_an_empty_field_takes_the_default(
    client: Client, admin: User, dataset: TrainingDataset
) -> None:
    fields = {"grpo.num_generations": "4", "grpo.temperature": "", "sft.batch_size": "x",
              "lora.r": "8", "lora.target_modules": "q_proj, v_proj"}  # fmt: skip
    form = _launch_form(dataset, name="first run", **fields)
    response = _login(client, admin).post("/training/jobs/new/", form)
    job = TrainingJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/training/jobs/{job.pk}/"
    assert (job.name, job.kind, job.max_steps) == ("first run", "grpo", 7)
    assert job.config["grpo"]["num_generations"] == 4
    assert job.config["grpo"]["temperature"] == 1.0
    assert job.config["sft"]["batch_size"] == 1, "a grpo job ignores the SFT group"
    assert (job.config["lora"]["r"], job.config["lora"]["target_modules"]) == (8, "q_proj, v_proj")


def test_a_bad_launch_is_shown_again_naming_the_field(
    client: Client, admin: User, dataset: TrainingDataset
) -> None:
    form = _launch_form(dataset, **{"rollout.max_turns": "1.5"})
    response = _login(client, admin).post("/training/jobs/new/", form)
    assert response.status_code == 422
    html = response.content.decode()
    assert "rollout.max_turns must be a whole number" in html
    assert 'name="rollout.max_turns" value="1.5"' in html, "what was typed is kept"
    sft = _login(client, admin).post("/training/jobs/new/", _launch_form(dataset, kind="sft"))
    assert "a sft job trains on a sft dataset, not rl" in sft.content.decode()
    assert not TrainingJob.objects.exists()


def test_a_preset_is_saved_loaded_into_the_form_and_deleted(
    client: Client, admin: User, dataset: TrainingDataset
) -> None:
    _login(client, admin)
    form = _launch_form(dataset, preset_name="small groups", **{"grpo.num_generations": "4"})
    saved = client.post("/training/jobs/presets/", form)
    preset = TrainingPreset.objects.get()
    assert saved.status_code == 302
    assert saved["Location"] == f"/training/jobs/new/?preset={preset.pk}"
    assert preset.config["grpo"]["num_generations"] == 4

    loaded = _html(client.get(saved["Location"]))
    assert 'name="grpo.num_generations" value="4"' in loaded
    assert 'name="max_steps" step="1" value="7"' in loaded
    assert f'<option value="{preset.pk}" selected>small groups</option>' in loaded

    deleted = client.post(f"/training/jobs/presets/{preset.pk}/delete/")
    assert deleted.status_code == 302 and not TrainingPreset.objects.exists()


# ---- a job --------------------------------------------------------------------------------------


def test_a_job_page_shows_its_curves_rollouts_checkpoints_and_log(
    client: Client, viewer: User, job: TrainingJob
) -> None:
    page = _html(_login(client, viewer).get(f"/training/jobs/{job.pk}/"))
    assert "vendor/plotly/plotly-4.1.1.min.js" in page and "js/training.js" in page
    live = json.loads(page.split('id="training-live" type="application/json">')[1]
                      .split("</script>")[0])  # fmt: skip
    assert [p["step"] for p in live["points"]] == [1, 2]
    assert (live["after"], live["ws"], live["active"]) == (1, f"/ws/training/{job.pk}/", True)
    shown = {chart["name"] for chart in live["charts"] if chart["shown"]}
    assert shown == {"loss", "reward", "components", "kl", "step_time"}
    assert '<figure class="chart-box" data-chart="entropy" hidden>' in page

    assert page.count('<tr data-rollout="') == 3
    assert QUESTION in page and "The capital is Canberra, try 0." in page
    assert "2 / 3" in page, "leaves passed of total"
    assert '<tr data-checkpoint="checkpoint-2">' in page and "3.0 MB" in page
    assert "step 2 done" in page
    assert "kind: grpo" in page, "the config as YAML"
    assert f'hx-get="/training/jobs/{job.pk}/rollouts/?seen=3' in page


def test_a_poll_of_a_running_job_gets_nothing_until_something_changed(
    client: Client, viewer: User, job: TrainingJob
) -> None:
    _login(client, viewer)
    url = f"/training/jobs/{job.pk}/"
    assert client.get(url + "rollouts/?seen=3", headers=HTMX).status_code == 204
    TrainingRollout.objects.create(job=job, line=3, step=3, index=0, question="Q", completion="")
    fresh = _html(client.get(url + "rollouts/?seen=3", headers=HTMX))
    assert fresh.count('<tr data-rollout="') == 4 and "seen=4" in fresh
    assert client.get(url + "checkpoints/?seen=checkpoint-2", headers=HTMX).status_code == 204
    assert client.get(url + "log/?seen=0", headers=HTMX).status_code == 200

    step = _html(client.get(url + "rollouts/?step=3", headers=HTMX))
    assert step.count('<tr data-rollout="') == 1 and '<option value="3" selected>' in step


def test_an_ended_job_offers_resume_and_evaluate_from_its_checkpoints(
    client: Client, admin: User, job: TrainingJob
) -> None:
    TrainingJob.objects.filter(pk=job.pk).update(status="done", step=10)
    _login(client, admin)
    page = _html(client.get(f"/training/jobs/{job.pk}/"))
    assert 'data-testid="cancel-job"' in page and " hidden>" in page.split('data-role="cancel"')[1]
    assert 'name="max_steps" min="3" value="20"' in page, "a finished job resumes for as long again"
    assert 'hx-trigger="every' not in page, "an ended job is not polled"

    resumed = client.post(f"/training/jobs/{job.pk}/resume/",
                          {"checkpoint": "checkpoint-2", "max_steps": "20"})  # fmt: skip
    child = TrainingJob.objects.get(resumed_from=job)
    assert resumed["Location"] == f"/training/jobs/{child.pk}/"
    assert child.config["resume_from"].endswith("checkpoint-2") and child.max_steps == 20
    assert f'href="/training/jobs/{job.pk}/" data-testid="resumed-from"' in _html(
        client.get(resumed["Location"])
    )

    refused = client.post(f"/training/jobs/{job.pk}/evaluate/",
                          {"checkpoint": "checkpoint-2", "limit": "5", "compare_base": "on"},
                          follow=True)  # fmt: skip
    assert "no held-out gated task to evaluate on" in refused.content.decode()
    assert not Evaluation.objects.exists()


def test_an_admin_stops_a_running_job(client: Client, admin: User, job: TrainingJob) -> None:
    response = _login(client, admin).post(f"/training/jobs/{job.pk}/cancel/", follow=True)
    assert "the run saves a checkpoint at the end of its step" in response.content.decode()
    assert TrainingJob.objects.get(pk=job.pk).cancel_requested is True


def test_a_failed_job_shows_its_error(
    client: Client, viewer: User, make_job: Callable[..., TrainingJob]
) -> None:
    job = make_job(status="failed")
    TrainingJob.objects.filter(pk=job.pk).update(error="Traceback\n  CUDA out of memory")
    page = _html(_login(client, viewer).get(f"/training/jobs/{job.pk}/"))
    assert '<pre class="train-error" role="alert" data-role="error">Traceback\n  CUDA' in page


# ---- evaluations and comparisons ----------------------------------------------------------------


def test_an_evaluation_shows_each_model_the_difference_and_every_task(
    client: Client, viewer: User, evaluation: Evaluation
) -> None:
    page = _html(_login(client, viewer).get(f"/training/evaluations/{evaluation.pk}/"))
    assert '<tr data-model="checkpoint">' in page and '<tr data-model="base">' in page
    assert "[0.500, 0.700]" in page and "[0.200, 0.300]" in page
    assert "95% CI [0.250, 0.350]" in page and "2 wins, 0 losses, 0 ties" in page
    assert "The 95% interval excludes 0: the checkpoint scores higher" in page
    assert page.count('<tr data-task="') == 3 and 'href="/tasks/3/"' in page
    figures = json.loads(page.split('id="training-figures" type="application/json">')[1]
                         .split("</script>")[0])  # fmt: skip
    assert [t["type"] for t in figures["evaluation"]["data"]] == ["box", "scatter"] * 2


def test_a_running_evaluation_shows_what_it_has_measured_so_far(
    client: Client, admin: User, evaluation: Evaluation
) -> None:
    scores = [{"task_id": "1", "reward": 0.5}, {"task_id": "2", "reward": None}]
    partial = {"models": {"checkpoint": {"model": "ckpt", "scores": scores}}}
    Evaluation.objects.filter(pk=evaluation.pk).update(status="running", done=1, results=partial)
    page = _html(_login(client, admin).get(f"/training/evaluations/{evaluation.pk}/"))
    assert 'data-testid="cancel-evaluation"' in page
    assert f'hx-get="/training/evaluations/{evaluation.pk}/progress/"' in page
    assert '<tr data-model="checkpoint">' in page and 'data-testid="difference"' not in page
    assert "<td>1</td>" in page, "n counts the tasks scored so far"


def test_compared_jobs_show_where_their_configs_differ(
    client: Client, viewer: User, job: TrainingJob, make_job: Callable[..., TrainingJob]
) -> None:
    other = make_job(status="done", grpo={"learning_rate": 2e-6})
    page = _html(_login(client, viewer).get(f"/training/compare/?jobs={job.pk}&jobs={other.pk}"))
    assert '<tr class="differs" data-key="grpo.learning_rate">' in page
    assert 'data-key="grpo.epsilon"' in page.split('data-testid="config-same"')[1]
    figures = json.loads(page.split('id="training-figures" type="application/json">')[1]
                         .split("</script>")[0])  # fmt: skip
    assert "loss" in figures and len(figures["loss"]["data"]) == 2

    alone = client.get(f"/training/compare/?jobs={job.pk}", follow=True)
    assert "Tick 2 to 6 jobs to compare." in alone.content.decode()
    assert client.get(f"/training/compare/?jobs={job.pk}&jobs=999").status_code == 404
