"""The training job pages: the launch form with its YAML preview and presets, a job with its
curves, rollouts, log and checkpoints, an evaluation's results and jobs compared. Rows are made
directly; no worker runs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.training.models import (
    Evaluation,
    TrainingDataset,
    TrainingJob,
    TrainingPreset,
    TrainingRollout,
)
from tests.training.page_fixtures import (
    HTMX,
    QUESTION,
    _html,
    _login,
    dataset,
    evaluation,
    job,
    make_job,
)

__all__ = ["dataset", "evaluation", "job", "make_job"]

pytestmark = pytest.mark.django_db


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
    # The random-reward control is one choice away, off by default.
    assert "<option selected>rubric</option>" in page and "<option>shuffled</option>" in page
    assert 'data-kinds="grpo"' in page and 'data-kinds="sft mid"' in page


def test_the_yaml_preview_shows_the_config_or_the_field_that_is_wrong(
    client: Client, admin: User, dataset: TrainingDataset
) -> None:
    _login(client, admin)
    good = _html(client.post("/training/jobs/new/preview/", _launch_form(dataset), headers=HTMX))
    assert 'data-testid="preview-yaml"' in good
    assert "kind: grpo" in good and "max_steps: 7" in good and "epsilon_high: 0.28" in good
    control = client.post(
        "/training/jobs/new/preview/",
        _launch_form(dataset, **{"grpo.reward": "shuffled"}),
        headers=HTMX,
    )
    assert "reward: shuffled" in _html(control)
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


def test_an_sft_step_is_sized_for_the_base_model_unless_a_size_is_typed(
    client: Client, admin: User, dataset: TrainingDataset
) -> None:
    """The engine sizes gradient accumulation and max length per model (MODEL_SFT) when a
    config leaves them out; the form leaves them empty so that SmolLM2 trains 2 rows of 4,096
    tokens a step on a CPU, not the paper's 8 of 16,384 (hours a step on two cores)."""
    page = _html(_login(client, admin).get("/training/jobs/new/"))
    for name in ("sft.gradient_accumulation_steps", "sft.max_length"):
        assert f'name="{name}" value=""' in page, name
    assert 'placeholder="by model (tiny 2048, smollm2 4096; else 16384)"' in page
    assert "smollm2 2 rows of up to 4,096 tokens; any other model 8 rows of up to 16,384" in page
    dataset.kind = "sft"
    dataset.save()
    form = _launch_form(dataset, kind="sft", model="smollm2")
    preview = _html(client.post("/training/jobs/new/preview/", form, headers=HTMX))
    assert "gradient_accumulation_steps: 2" in preview and "max_length: 4096" in preview
    client.post("/training/jobs/new/", form)
    sized = TrainingJob.objects.get()
    assert sized.config["sft"]["gradient_accumulation_steps"] == 2
    assert sized.config["sft"]["max_length"] == 4096
    # A typed size wins, and a model the engine does not size keeps the paper's defaults.
    typed = {"sft.max_length": "1024", "model": "", "model_path": "/models/qwen"}
    client.post("/training/jobs/new/", _launch_form(dataset, kind="sft", name="b", **typed))
    other = TrainingJob.objects.get(name="b")
    assert other.config["sft"]["max_length"] == 1024
    assert other.config["sft"]["gradient_accumulation_steps"] == 8


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


def test_the_launch_form_chooses_whether_the_job_can_be_resumed(
    client: Client, admin: User, dataset: TrainingDataset
) -> None:
    page = _html(_login(client, admin).get("/training/jobs/new/"))
    choice = page.split('<select name="resumable">')[1].split("</select>")[0]
    assert choice == "<option selected>false</option><option>true</option>"
    client.post("/training/jobs/new/", _launch_form(dataset, resumable="true"))
    assert TrainingJob.objects.get().config["resumable"] is True


def test_a_checkpoint_with_the_weights_only_offers_no_resume(
    client: Client, admin: User, job: TrainingJob
) -> None:
    TrainingJob.objects.filter(pk=job.pk).update(status="stopped")
    (Path(job.output_dir) / "checkpoint-2" / "optimizer.pt").unlink()
    page = _html(_login(client, admin).get(f"/training/jobs/{job.pk}/"))
    assert '<tr data-checkpoint="checkpoint-2">' in page
    assert 'data-testid="resume-form"' not in page and 'data-testid="evaluate-form"' in page


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
    charts = {chart["name"]: chart for chart in live["charts"]}
    loss = charts["loss"]["figure"]["data"][0]
    assert (loss["x"], loss["y"], loss["meta"]["key"]) == ([1, 2], [0.5, 0.25], "loss")
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

    # Each checkpoint links to the benchmarks page with itself chosen as the model.
    link = re.search(r'href="(/benchmarks/\?model=[^"]+)" data-testid="benchmark-link"', page)
    assert link is not None
    form = _html(client.get(link.group(1).replace("&amp;", "&")))
    assert '<details class="panel" open>' in form
    assert re.search(r'<option value="runs/\d+/checkpoint-2" selected>training job', form)

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

    control = make_job(status="done", grpo={"reward": "shuffled"})
    page = _html(client.get(f"/training/compare/?jobs={job.pk}&jobs={control.pk}"))
    figures = json.loads(page.split('id="training-figures" type="application/json">')[1]
                         .split("</script>")[0])  # fmt: skip
    real, shuffled = figures["loss"]["data"]
    assert shuffled["name"].endswith("(shuffled-reward control)")
    assert shuffled["line"]["dash"] == "dash" and real["line"]["dash"] == "solid"
    assert "control" not in real["name"]

    alone = client.get(f"/training/compare/?jobs={job.pk}", follow=True)
    assert "Tick 2 to 6 jobs to compare." in alone.content.decode()
    assert client.get(f"/training/compare/?jobs={job.pk}&jobs=999").status_code == 404


def test_before_its_first_step_the_page_says_what_the_run_is_doing(
    client: Client, admin: User, make_job: Callable[..., TrainingJob]
) -> None:
    from pathlib import Path

    job = make_job()  # running, no step logged
    log = Path(job.output_dir) / "train.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("train: loading smollm2\nsome warning\ntrain: tokenising the dataset\n")
    page = _html(_login(client, admin).get(f"/training/jobs/{job.pk}/"))
    assert (
        'No step logged yet: curves appear as the run logs. Now: <span data-testid="phase">' in page
    )
    assert ">tokenising the dataset</span>" in page
