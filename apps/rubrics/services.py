from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.common.errors import Conflict, Invalid, NotFound
from apps.rubrics import engine
from apps.rubrics.models import Complexity, ImportStatus, RubricVersion, Task, TaskImport, TaskType
from apps.rubrics.records import open_records

log = logging.getLogger(__name__)

MAX_UPLOAD_BYTES = 200 * 1024 * 1024
MAX_REJECTS_KEPT = 200
PROGRESS_EVERY = 100
BATCH = 500
QUESTION_MAX = 20_000
TEXT_FIELDS = {"category": 64, "subcategory": 64}


@dataclass(frozen=True)
class PreparedTask:
    """A task record that passed every check, ready to be written."""

    fields: dict[str, Any]
    tree: dict[str, Any]
    stats: dict[str, Any]


def _text(record: Mapping[str, Any], key: str, limit: int) -> str:
    value = record.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise Invalid(f"{key} must be a string")
    if len(value) > limit:
        raise Invalid(f"{key} is longer than {limit} characters")
    return value.strip()


def _choice(record: Mapping[str, Any], key: str, choices: type[Any], default: str) -> str:
    value = record.get(key) or default
    if value not in choices.values:
        raise Invalid(f"{key} must be one of {', '.join(v for v in choices.values if v)}")
    return str(value)


def task_prepare(record: Mapping[str, Any]) -> PreparedTask:
    """Check one task record (any supported shape) and turn it into canonical data."""
    raw_tree = record.get("rubric", record.get("rubric_tree", record.get("tree")))
    if raw_tree is None:
        raise Invalid("no rubric tree (expected one of: rubric, rubric_tree, tree)")
    # Shape C keeps the question beside the tree; hand the engine the whole task file then.
    if "rubric_tree" in record and "task_description" in record:
        raw_tree = {"task_description": record["task_description"], "rubric_tree": raw_tree}
    tree = engine.import_tree(raw_tree)
    question = ""
    for key in ("question", "proposed_question", "task_description"):
        question = _text(record, key, QUESTION_MAX)
        if question:
            break
    question = question or str(tree.get("task_description", "")).strip()
    if not question:
        raise Invalid("no question (expected question, proposed_question or task_description)")
    solution = record.get("solution", {})
    if isinstance(solution, str):
        solution = {"text": solution}
    if not isinstance(solution, dict):
        raise Invalid("solution must be an object or a string")
    provenance = record.get("provenance", {})
    if not isinstance(provenance, dict):
        raise Invalid("provenance must be an object")
    stats = engine.tree_stats(tree)
    fields = {
        "question": question,
        "type": _choice(record, "type", TaskType, TaskType.OBJECTIVE),
        "complexity": _choice(record, "complexity", Complexity, stats["complexity"]),
        "solution": solution,
        "provenance": provenance,
        **{key: _text(record, key, limit) for key, limit in TEXT_FIELDS.items()},
    }
    return PreparedTask(fields=fields, tree=tree, stats=stats)


@transaction.atomic
def tasks_write(*, user: User | None, prepared: list[PreparedTask], note: str) -> list[Task]:
    tasks = Task.objects.bulk_create(
        [Task(created_by=user, **p.fields) for p in prepared], batch_size=BATCH
    )
    versions = RubricVersion.objects.bulk_create(
        [
            RubricVersion(task=task, number=1, tree=p.tree, stats=p.stats, author=user, note=note)
            for task, p in zip(tasks, prepared, strict=True)
        ],
        batch_size=BATCH,
    )
    for task, version in zip(tasks, versions, strict=True):
        task.current_version = version
    Task.objects.bulk_update(tasks, ["current_version"], batch_size=BATCH)
    return tasks


def task_create(*, user: User, record: Mapping[str, Any]) -> Task:
    require_role(user, Role.ADMIN)
    prepared = task_prepare(record)
    [task] = tasks_write(user=user, prepared=[prepared], note="created")
    return task


@transaction.atomic
def version_create(
    *, user: User, task_id: int, tree: Any, note: str = "", base_number: int | None = None
) -> RubricVersion:
    """A new immutable version that becomes current. `base_number` guards against lost edits:
    when given, it must be the current version's number."""
    require_role(user, Role.ANNOTATOR)
    task = Task.objects.select_for_update().filter(pk=task_id).first()
    if task is None:
        raise NotFound(f"no task {task_id}")
    current = task.current_version
    if base_number is not None and current is not None and current.number != base_number:
        raise Conflict(
            f"the tree changed since version {base_number} (now version {current.number}); "
            "reload and apply your edit again"
        )
    canonical = engine.import_tree(tree)
    number = (current.number if current else 0) + 1
    version = RubricVersion.objects.create(
        task=task,
        number=number,
        tree=canonical,
        stats=engine.tree_stats(canonical),
        parent=current,
        author=user,
        note=note[:500],
    )
    task.current_version = version
    task.save(update_fields=["current_version"])
    return version


def task_import_enqueue(*, user: User, filename: str, payload: bytes) -> TaskImport:
    require_role(user, Role.ADMIN)
    if not payload.strip():
        raise Invalid("the file is empty")
    if len(payload) > MAX_UPLOAD_BYTES:
        raise Invalid(f"the file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB")
    from apps.rubrics.tasks import cpu_import_tasks

    with transaction.atomic():
        job = TaskImport.objects.create(filename=filename[:255], payload=payload, created_by=user)
        transaction.on_commit(lambda: cpu_import_tasks.delay(job.pk))
    return job


def _progress(job_id: int, **fields: Any) -> None:
    TaskImport.objects.filter(pk=job_id).update(**fields)


def task_import_run(*, import_id: int) -> TaskImport:
    """Check every record, then write all of them in one transaction, or none."""
    job = TaskImport.objects.filter(pk=import_id).first()
    if job is None:
        raise NotFound(f"no import {import_id}")
    if job.status not in (ImportStatus.QUEUED, ImportStatus.RUNNING):
        return job  # a redelivered message for a finished import
    try:
        source = open_records(bytes(job.payload), job.filename)
    except ValueError as exc:
        _progress(job.pk, status=ImportStatus.FAILED, error=str(exc), finished_at=timezone.now())
        return TaskImport.objects.get(pk=job.pk)
    _progress(job.pk, status=ImportStatus.RUNNING, total=source.total, processed=0)
    prepared: list[PreparedTask] = []
    rejected: list[dict[str, str]] = []
    rejected_count = 0
    for processed, record in enumerate(source.records, start=1):
        error = record.error
        if not error and record.data is not None:
            try:
                prepared.append(task_prepare(record.data))
            except Invalid as exc:
                error = exc.message
        if error:
            rejected_count += 1
            if len(rejected) < MAX_REJECTS_KEPT:
                rejected.append({"record": record.where, "error": error})
        if processed % PROGRESS_EVERY == 0:
            _progress(job.pk, processed=processed)
    done = {"processed": source.total, "finished_at": timezone.now(), "payload": b""}
    if rejected_count or not prepared:
        if not prepared and not rejected:
            rejected.append({"record": "file", "error": "the file holds no tasks"})
        _progress(job.pk, status=ImportStatus.REJECTED, rejected=rejected, **done)
    else:
        tasks_write(user=job.created_by, prepared=prepared, note=f"imported from {job.filename}")
        _progress(job.pk, status=ImportStatus.DONE, imported=len(prepared), **done)
    return TaskImport.objects.get(pk=job.pk)


def demo_tasks_load(*, path: Path) -> int:
    """Import the demo tasks of a JSONL file once; tasks are matched by provenance.demo_id."""
    present = set(
        Task.objects.filter(provenance__has_key="demo_id").values_list(
            "provenance__demo_id", flat=True
        )
    )
    source = open_records(path.read_bytes(), path.name)
    prepared = []
    for record in source.records:
        if record.data is None:
            raise Invalid(f"{path.name} {record.where}: {record.error}")
        if record.data.get("provenance", {}).get("demo_id") not in present:
            prepared.append(task_prepare(record.data))
    tasks_write(user=None, prepared=prepared, note="demo data")
    return len(prepared)
