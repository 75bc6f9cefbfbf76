"""No absolute server path reaches a reader of the training pages or REST (issue 38): a job's
config, log, error and model, its checkpoints, an evaluation's checkpoint and results, and the
runs compared name their files relative to the training directory (runs/3/checkpoint-2), and
other server directories by name (<corpus>, <python>). The stored configs keep the absolute
paths the gpu worker needs. Rows are made directly; no worker runs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from apps.accounts.models import User
from apps.common.errors import Invalid
from apps.training import services
from apps.training.models import Evaluation, TrainingDataset, TrainingJob, TrainingPreset
from apps.training.paths import shown_paths
from tests.training.page_fixtures import HTMX, dataset, evaluation, job, make_job

__all__ = ["dataset", "evaluation", "job", "make_job"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def paths_everywhere(
    job: TrainingJob, evaluation: Evaluation, make_job: Callable[..., TrainingJob], admin: User
) -> dict[str, Any]:
    """A job trained from another job's final model, with a log, an error and an evaluation
    that name server paths the way the runner and the worker write them."""
    parent = Path(job.output_dir)
    (parent / "final").mkdir()
    (parent / "final" / "config.json").write_text("{}")
    child = make_job(status="failed", model=str(parent / "final"), corpus=str(settings.CORPUS_DIR))
    out = Path(child.output_dir)
    out.mkdir(parents=True)
    (out / "train.log").write_text(
        f"[questweb] job {child.pk}: {sys.executable} -m quest train {out}/config.yaml\n"
        f"train: loading {parent}/final\n"
        f'  File "{settings.BASE_DIR}/quest/training/trainers.py", line 3, in run\n'
        f"error: no space left in {out}\n"
    )
    child.error = f"error: no space left in {out}"
    child.save()
    evaluation.results["models"]["checkpoint"]["model"] = evaluation.checkpoint
    evaluation.save()
    TrainingPreset.objects.create(name="from final", config={"model": str(parent / "final")})
    return {"parent": job, "child": child, "evaluation": evaluation}


def _pages(client: Client, found: dict[str, Any]) -> dict[str, str]:
    parent, child, evaluation = found["parent"], found["child"], found["evaluation"]
    dataset_id = child.dataset_id
    paths = {
        "job": f"/training/jobs/{child.pk}/",
        "parent job": f"/training/jobs/{parent.pk}/",
        "log": f"/training/jobs/{child.pk}/log/",
        "overview": "/training/",
        "dataset": f"/training/datasets/{dataset_id}/",
        "evaluation": f"/training/evaluations/{evaluation.pk}/",
        "compare": f"/training/compare/?jobs={parent.pk}&jobs={child.pk}",
        "api job": f"/api/training/jobs/{child.pk}",
        "api jobs": "/api/training/jobs",
        "api log": f"/api/training/jobs/{child.pk}/log",
        "api checkpoints": f"/api/training/jobs/{parent.pk}/checkpoints",
        "api evaluation": f"/api/training/evaluations/{evaluation.pk}",
        "api evaluations": "/api/training/evaluations",
        "api dataset": f"/api/training/datasets/{dataset_id}",
        "api presets": "/api/training/presets",
        "api compare": f"/api/training/compare?jobs={parent.pk}&jobs={child.pk}",
    }
    said = {}
    for name, path in paths.items():
        response = client.get(path, headers=HTMX if name == "log" else {})
        assert response.status_code == 200, (name, response.status_code)
        said[name] = response.content.decode()
    return said


def test_a_viewer_reads_no_absolute_server_path_on_any_training_page_or_endpoint(
    client: Client, viewer: User, paths_everywhere: dict[str, Any], tmp_path: Path
) -> None:
    client.force_login(viewer)
    server = [str(tmp_path), str(settings.CORPUS_DIR), str(settings.BASE_DIR), sys.prefix]
    for name, text in _pages(client, paths_everywhere).items():
        for path in server:
            assert path not in text, (name, path)


def test_the_job_page_and_rest_name_files_relative_to_the_training_directory(
    client: Client, viewer: User, paths_everywhere: dict[str, Any]
) -> None:
    client.force_login(viewer)
    parent, child = paths_everywhere["parent"], paths_everywhere["child"]
    said = _pages(client, paths_everywhere)
    log = client.get(f"/api/training/jobs/{child.pk}/log").json()["text"]
    assert log.splitlines() == [
        f"[questweb] job {child.pk}: {shown_paths(sys.executable)} -m quest train "
        f"runs/{child.pk}/config.yaml",
        f"train: loading runs/{parent.pk}/final",
        '  File "<questweb>/quest/training/trainers.py", line 3, in run',
        f"error: no space left in runs/{child.pk}",
    ]
    assert shown_paths(sys.executable).startswith("<python>/")
    job = client.get(f"/api/training/jobs/{child.pk}").json()
    assert (job["model"], job["config"]["output_dir"], job["config"]["corpus"]) == (
        f"runs/{parent.pk}/final",
        f"runs/{child.pk}",
        "<corpus>",
    )
    assert job["error"] == f"error: no space left in runs/{child.pk}"
    assert f"output_dir: runs/{child.pk}" in said["job"]
    assert f"model runs/{parent.pk}/final" in said["job"]
    found = client.get(f"/api/training/jobs/{parent.pk}/checkpoints").json()["results"]
    assert [c["path"] for c in found] == [
        f"runs/{parent.pk}/final",
        f"runs/{parent.pk}/checkpoint-2",
    ]


def test_an_evaluation_names_its_checkpoint_relative_to_the_training_directory(
    client: Client, viewer: User, paths_everywhere: dict[str, Any]
) -> None:
    client.force_login(viewer)
    evaluation, parent = paths_everywhere["evaluation"], paths_everywhere["parent"]
    body = client.get(f"/api/training/evaluations/{evaluation.pk}").json()
    assert body["checkpoint"] == f"runs/{parent.pk}/checkpoint-2"
    assert body["results"]["models"]["checkpoint"]["model"] == f"runs/{parent.pk}/checkpoint-2"
    page = client.get(f"/training/evaluations/{evaluation.pk}/").content.decode()
    assert f"checkpoint runs/{parent.pk}/checkpoint-2" in page


def test_the_stored_config_keeps_the_absolute_paths_the_worker_needs(
    paths_everywhere: dict[str, Any], training_dirs: Path
) -> None:
    child = paths_everywhere["child"]
    assert child.config["output_dir"] == str(training_dirs / "runs" / str(child.pk))


def test_a_job_starts_from_a_checkpoint_named_as_rest_shows_it(
    admin: User, job: TrainingJob, dataset: TrainingDataset, training_dirs: Path
) -> None:
    final = Path(job.output_dir) / "final"
    final.mkdir()
    (final / "config.json").write_text("{}")
    relative = shown_paths(str(final))
    assert relative == f"runs/{job.pk}/final"
    started = services.job_create(user=admin, kind="grpo", dataset_id=dataset.pk, model=relative)
    assert started.config["model"] == str(final)  # the worker gets the absolute path
    with pytest.raises(Invalid, match="not a model directory under the training directory"):
        services.job_create(user=admin, kind="grpo", dataset_id=dataset.pk, model="runs/404/final")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("{t}", "."),
        ("{t}/runs/3", "runs/3"),
        ("see {t}/runs/3/train.log.", "see runs/3/train.log."),
        ("{t}-old/runs/3", "{t}-old/runs/3"),  # another directory beside it
        ("/mnt{t}/runs/3", "/mnt{t}/runs/3"),  # another directory that ends like it
        ("{c}/corpus.json", "<corpus>/corpus.json"),
    ],
)
def test_a_path_is_shown_relative_only_when_it_is_inside_a_server_directory(
    training_dirs: Path, text: str, shown: str
) -> None:
    values = {"t": str(training_dirs), "c": str(settings.CORPUS_DIR)}
    assert shown_paths(text.format(**values)) == shown.format(**values)
