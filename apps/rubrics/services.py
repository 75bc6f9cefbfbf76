from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.common import llm
from apps.common.errors import Conflict, Forbidden, Invalid, NotFound
from apps.common.storable import ensure_storable
from apps.corpus.selectors import corpus_distractors, corpus_store
from apps.jobs.dispatch import job_enqueue, job_run, job_send
from apps.rubrics import engine, selectors
from apps.rubrics.models import AuditState, Complexity, ProbeRun, RubricVersion, Task, TaskType
from apps.rubrics.records import open_records
from apps.rubrics.solutions import probe_text
from quest.rubric import probe_tree

PROBE = "probe"  # the job kind (apps/rubrics/jobs.py)
BATCH = 500
QUESTION_MAX = 20_000
TEXT_FIELDS = {"category": 64, "subcategory": 64, "reference_answer": 50_000}


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
        raise Invalid(f"{key} is longer than {limit:,} characters")
    return value.strip()


def _choice(record: Mapping[str, Any], key: str, choices: type[Any], default: str) -> str:
    value = record.get(key) or default
    if value not in choices.values:
        raise Invalid(f"{key} must be one of {', '.join(v for v in choices.values if v)}")
    return str(value)


def task_prepare(record: Mapping[str, Any]) -> PreparedTask:
    """Check one task record (any supported shape) and turn it into canonical data."""
    # First, so no value PostgreSQL would refuse reaches the engine, a message or the database.
    ensure_storable(record, field="")
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
def task_discard_untouched(*, task_id: int) -> bool:
    """Delete a task nobody has worked on yet (still unaudited, its first version only, in no
    audit campaign, never probed or researched in a live session); False, and nothing deleted,
    otherwise. Callers authorize: the synthesis services when a person rejects a candidate."""
    task = Task.objects.select_for_update().filter(pk=task_id).first()
    if task is None:
        return False
    touched = (
        task.audit_state != AuditState.UNAUDITED
        or task.versions.count() > 1
        or task.audit_items.exists()
        or task.probe_runs.exists()
        or task.sessions.exists()
    )
    if touched:
        return False
    # The current version protects itself from deletion; the task goes first, then its versions.
    Task.objects.filter(pk=task.pk).update(current_version=None)
    task.delete()
    return True


@transaction.atomic
def version_create(
    *, user: User, task_id: int, tree: Any, note: str = "", base_number: int | None = None
) -> RubricVersion:
    """A new immutable version that becomes current. `base_number` guards against lost edits:
    when given, it must be the current version's number. Callers authorize: version_edit for
    people's own edits, the audit services for edits made in an assignment."""
    require_role(user, Role.ANNOTATOR)
    ensure_storable(note, field="note")  # the tree is checked with everything else, below
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


def version_edit(
    *, user: User, task_id: int, tree: Any, note: str = "", base_number: int | None
) -> RubricVersion:
    """A person's edit of a task's tree (REST): reviewers and admins may edit any task, an
    annotator only one they hold an open audit assignment on; always on top of a named version,
    so nobody overwrites an edit they never saw."""
    require_role(user, Role.ANNOTATOR)
    if not selectors.task_editable(user=user, task_id=task_id):
        raise Forbidden(
            f"annotators may save versions of task {task_id} only while they hold an open "
            "audit assignment on it; claim it in an audit campaign or ask a reviewer"
        )
    if base_number is None:
        raise Invalid(
            "base_version is required: the number of the version you edited (the save is "
            "refused if it is no longer the current one)"
        )
    return version_create(user=user, task_id=task_id, tree=tree, note=note, base_number=base_number)


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


def probe_enqueue(*, user: User, task_id: int, version: int | None = None) -> ProbeRun:
    """Queue a probe of one version of a task's tree (the current one unless `version`, a
    version number, names another) on the cpu queue."""
    require_role(user, Role.ANNOTATOR)
    task = Task.objects.select_related("current_version").filter(pk=task_id).first()
    if task is None:
        raise NotFound(f"no task {task_id}")
    target = (
        task.current_version if version is None else task.versions.filter(number=version).first()
    )
    if target is None:
        raise NotFound(
            f"task {task_id} has no version {version}"
            if version
            else f"task {task_id} has no rubric tree"
        )
    if not probe_text(task):
        raise Invalid(
            f"task {task_id} has no reference answer or solution to probe with: "
            "add a reference_answer (Markdown citing its sources) to the task"
        )
    with transaction.atomic():
        run = ProbeRun.objects.create(task=task, version=target, created_by=user)
        job_enqueue(PROBE, run.pk)
    return run


@dataclass(frozen=True)
class ProbesQueued:
    queued: int  # probes queued now
    already: int  # versions probed or being probed already
    skipped: list[dict[str, Any]]  # {task_id, reason}: nothing to probe with


def probes_ensure(
    *, user: User | None, targets: Sequence[tuple[Task, RubricVersion]]
) -> ProbesQueued:
    """A probe queued for each (task, version) that has none run or queued yet: how an accepted
    tree becomes trainable whichever route accepted it (a recipe, a campaign, "probe all")."""
    probed = set(
        ProbeRun.objects.filter(version_id__in=[v.pk for _, v in targets]).values_list(
            "version_id", flat=True
        )
    )
    queued, already, skipped = [], 0, []
    for task, version in targets:
        if version.pk in probed:
            already += 1
        elif not probe_text(task):
            skipped.append({"task_id": task.pk, "reason": "no reference answer or solution"})
        else:
            probed.add(version.pk)
            queued.append(ProbeRun(task=task, version=version, created_by=user))
    with transaction.atomic():
        runs = ProbeRun.objects.bulk_create(queued)
        ids = [run.pk for run in runs]
        transaction.on_commit(lambda: _send_probes(ids))
    return ProbesQueued(len(runs), already, skipped)


def _send_probes(run_ids: Sequence[int]) -> None:
    for run_id in run_ids:
        job_send(PROBE, run_id)


def _judge_client() -> Any:
    """The configured judge (QUESTWEB_JUDGE_MODEL), or None: judge leaves then stay undecided."""
    if not settings.LLM_JUDGE_MODEL:
        return None

    try:
        return llm.client_for(settings.LLM_JUDGE_MODEL)
    except ValueError as exc:
        raise Invalid(
            f"the judge model {settings.LLM_JUDGE_MODEL!r} cannot be used: {exc}"
        ) from exc


def _probe(run: ProbeRun, judge: Any) -> dict[str, Any]:
    text = probe_text(run.task)
    if not text:
        raise Invalid("the task has no reference answer or solution to probe with")
    report = probe_tree(
        engine.load(run.version.tree),
        text,
        corpus_store(),
        judge,
        distractors=corpus_distractors(),
        question=run.task.question,
    )
    return {
        "verdict": report.verdict,
        "report": report.to_dict(),
        "judge": report.judge[:200],
    }


def probe_run(*, run_id: int, judge: Any = None) -> ProbeRun:
    """Score the reference answer and the adversarial battery against the run's version; `judge`
    (a ChatClient) overrides the configured judge model."""

    def work(run: ProbeRun) -> dict[str, Any]:
        return _probe(run, judge if judge is not None else _judge_client())

    job_run(PROBE, run_id, work)
    return ProbeRun.objects.select_related("task", "version").get(pk=run_id)
