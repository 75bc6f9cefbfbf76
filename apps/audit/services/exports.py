"""Parquet and Hugging Face `datasets` exports of audited tasks, built by a cpu-queue worker.

Nested fields (tree, solution, annotations, gold) are JSON strings: trees differ in shape from
task to task, and one string column keeps the schema fixed and the files loadable anywhere.
JSONL needs no job: the API and the page stream it directly.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from django.conf import settings
from django.db import transaction

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.audit.models import Campaign, ExportFormat, ExportJob
from apps.audit.selectors.exports import audit_records
from apps.common.errors import Invalid, NotFound
from apps.jobs.dispatch import job_enqueue, job_run
from apps.jobs.models import JobStatus

EXPORT = "export"  # the job kind (apps/audit/jobs.py)

NESTED = ("solution", "tree", "annotations", "gold")
INTEGERS = ("task_id", "campaign_id", "start_version", "final_version")
TEXTS = (
    "question",
    "type",
    "category",
    "subcategory",
    "complexity",
    "generator",
    "batch",
    "campaign",
    "decision",
    "decided_by",
    "decided_at",
)


def export_dir() -> Path:
    path = Path(settings.DATA_DIR) / "audit-exports"
    path.mkdir(parents=True, exist_ok=True)
    return path


def export_enqueue(*, user: User, format: str, campaign_id: int | None = None) -> ExportJob:
    require_role(user, Role.REVIEWER)
    if format not in ExportFormat.values:
        raise Invalid(f"format must be one of {', '.join(ExportFormat.values)} (or use JSONL)")
    if campaign_id is not None and not Campaign.objects.filter(pk=campaign_id).exists():
        raise NotFound(f"no campaign {campaign_id}")
    with transaction.atomic():
        job = ExportJob.objects.create(format=format, campaign_id=campaign_id, created_by=user)
        job_enqueue(EXPORT, job.pk)
    return job


def _schema() -> Any:
    import pyarrow as pa

    fields = [pa.field(name, pa.int64()) for name in INTEGERS]
    fields += [pa.field(name, pa.string()) for name in (*TEXTS, *NESTED)]
    return pa.schema(fields)


def _flat(record: dict[str, Any]) -> dict[str, Any]:
    return {
        **record,
        **{key: json.dumps(record[key], ensure_ascii=False) for key in NESTED},
    }


def write_parquet(chunks: Iterator[list[dict[str, Any]]], path: Path) -> int:
    """One row group per chunk, so memory stays bounded by the chunk size."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema, rows = _schema(), 0
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        for chunk in chunks:
            writer.write_table(pa.Table.from_pylist([_flat(r) for r in chunk], schema=schema))
            rows += len(chunk)
    return rows


def write_hf_zip(parquet: Path, target: Path, workdir: Path) -> None:
    """A `datasets.save_to_disk` directory of the parquet rows, zipped for download."""
    import datasets

    datasets.disable_progress_bars()  # a worker's log is no terminal
    dataset = datasets.Dataset.from_parquet(str(parquet), cache_dir=str(workdir / "cache"))
    dataset.save_to_disk(str(workdir / "dataset"))
    shutil.make_archive(str(target.with_suffix("")), "zip", workdir / "dataset")


def _build(job: ExportJob, user: User) -> tuple[str, int]:
    chunks = audit_records(user=user, campaign_id=job.campaign_id)
    with tempfile.TemporaryDirectory(dir=export_dir()) as tmp:
        workdir = Path(tmp)
        parquet = workdir / "audit.parquet"
        rows = write_parquet(chunks, parquet)
        name = f"audit-export-{job.pk}.{'parquet' if job.format == ExportFormat.PARQUET else 'zip'}"
        if job.format == ExportFormat.PARQUET:
            shutil.move(parquet, export_dir() / name)
        else:
            write_hf_zip(parquet, export_dir() / name, workdir)
    return name, rows


def _work(job: ExportJob) -> dict[str, Any]:
    if job.created_by is None:
        raise Invalid("the reviewer who asked for this export is gone: ask for it again")
    name, rows = _build(job, job.created_by)
    return {"filename": name, "rows": rows}


def export_run(*, job_id: int) -> ExportJob:
    # The kind's rows are of its model.
    return cast(ExportJob, job_run(EXPORT, job_id, _work))


def export_path(job: ExportJob) -> Path:
    if job.status != JobStatus.DONE or not job.filename:
        raise Invalid(f"export {job.pk} is not ready ({job.status})")
    path = export_dir() / job.filename
    if not path.exists():
        raise NotFound(f"the file of export {job.pk} is gone")
    return path
