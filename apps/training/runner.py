"""Training work inside a worker: a job's `python -m quest train` subprocess supervised, a
dataset built, a checkpoint evaluated.

A job runs in a subprocess of the gpu queue's solo worker: CUDA does not survive fork, a run
must be stoppable without killing the worker, and a crash of the run (out of memory, say) must
leave the worker alive to report it. The supervisor ingests the run's metrics.jsonl and
rollouts.jsonl as they grow (stored, then broadcast), reports every POLL_SECONDS (the watchdog
fails a job whose worker stops reporting), and turns a cancel into the run's stop file: the run
saves a checkpoint at the end of its step and ends "stopped", resumable. The subprocess dies
with the worker (PDEATHSIG), so a killed worker leaves no orphan training.
"""

from __future__ import annotations

import ctypes
import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.jobs.models import JobStatus
from apps.training import broadcast, datasets, evaluations
from apps.training.models import (
    Evaluation,
    TrainingDataset,
    TrainingJob,
    TrainingMetric,
    TrainingRollout,
)
from apps.training.selectors import file_tail
from quest.training.callbacks import METRICS_FILE
from quest.training.config import parse_config, render_yaml
from quest.training.trainers import ROLLOUTS

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
# After the stop file: time for the current step to end and the checkpoint to be written. A
# GRPO step of a 135M model on a CPU takes tens of seconds; a long step on a big model more.
STOP_GRACE_SECONDS = 900
KILL_GRACE_SECONDS = 60
LOG_FILE = "train.log"
RESULT_FILE = "result.json"
ERROR_LINES = 12
PR_SET_PDEATHSIG = 1


def _claim(model: type[Any], pk: int, **fields: Any) -> bool:
    now = timezone.now()
    return bool(
        model.objects.filter(pk=pk, status=JobStatus.QUEUED).update(
            status=JobStatus.RUNNING, started_at=now, active_at=now, **fields
        )
    )


def job_run(*, job_id: int, hostname: str = "") -> None:
    if not _claim(TrainingJob, job_id, worker=hostname[:200]):
        return  # cancelled while queued, or already taken
    job = TrainingJob.objects.get(pk=job_id)
    broadcast.job_status(job)
    out = Path(job.output_dir)
    try:
        process = _start(job, out)
    except (OSError, ValueError) as error:
        _end_job(job, JobStatus.FAILED, f"the run could not start: {error}")
        return
    TrainingJob.objects.filter(pk=job_id).update(pid=process.pid)
    _supervise(job, process, out)


def _start(job: TrainingJob, out: Path) -> subprocess.Popen[bytes]:
    out.mkdir(parents=True, exist_ok=True)
    config = out / "config.yaml"
    config.write_text(render_yaml(parse_config(job.config)), encoding="utf-8")
    argv = [sys.executable, "-m", "quest", "train", str(config)]
    # transformers' deprecation notices (gradient_checkpointing → activation_checkpointing, on
    # every step) would bury the run's own lines in the log a person reads.
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONUNBUFFERED": "1", "PYTHONWARNINGS": "ignore::FutureWarning"}  # fmt: skip
    with (out / LOG_FILE).open("ab") as logfile, (out / RESULT_FILE).open("wb") as result:
        logfile.write(f"[questweb] job {job.pk}: {' '.join(argv)}\n".encode())
        logfile.flush()
        return subprocess.Popen(
            argv,
            stdout=result,
            stderr=logfile,
            env=env,
            cwd=str(settings.BASE_DIR),
            preexec_fn=_die_with_worker,  # noqa: PLW1509 - the solo worker is single-threaded
        )


def _die_with_worker() -> None:
    if sys.platform.startswith("linux"):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class _Tail:
    """New complete lines of a file that grows, numbered from 0."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.line = path, 0, 0

    def read(self) -> list[tuple[int, dict[str, Any]]]:
        try:
            with self.path.open("rb") as handle:
                handle.seek(self.offset)
                data = handle.read()
        except FileNotFoundError:
            return []
        end = data.rfind(b"\n") + 1
        self.offset += end
        records = []
        for raw in data[:end].splitlines():
            try:
                record = json.loads(raw)
            except ValueError:
                record = None
            if isinstance(record, dict):
                records.append((self.line, record))
            self.line += 1
        return records


def _supervise(job: TrainingJob, process: subprocess.Popen[bytes], out: Path) -> None:
    metrics, rollouts = _Tail(out / METRICS_FILE), _Tail(out / ROLLOUTS)
    stop = _Stopper(job, process, out)
    while process.poll() is None:
        _ingest(job, metrics, rollouts)
        stop.check()
        time.sleep(POLL_SECONDS)
    _ingest(job, metrics, rollouts)
    _finish(job, process.returncode, out, stop.asked)


class _Stopper:
    """Turns a cancel into the run's stop file, then SIGTERM, then SIGKILL, each after a
    grace period."""

    def __init__(self, job: TrainingJob, process: subprocess.Popen[bytes], out: Path) -> None:
        self.job, self.process = job, process
        self.stop_file = Path(job.config.get("stop_file") or out / "STOP")
        self.asked: float | None = None

    def check(self) -> None:
        row = TrainingJob.objects.filter(pk=self.job.pk).values("cancel_requested", "status")
        state = row.first() or {"cancel_requested": True, "status": JobStatus.FAILED}
        TrainingJob.objects.filter(pk=self.job.pk, status=JobStatus.RUNNING).update(
            active_at=timezone.now()
        )
        wanted = state["cancel_requested"] or state["status"] != JobStatus.RUNNING
        if wanted and self.asked is None:
            self.stop_file.touch()
            self.asked = time.monotonic()
        if self.asked is None:
            return
        waited = time.monotonic() - self.asked
        if waited > STOP_GRACE_SECONDS + KILL_GRACE_SECONDS:
            self.process.kill()
        elif waited > STOP_GRACE_SECONDS:
            self.process.terminate()


def _ingest(job: TrainingJob, metrics: _Tail, rollouts: _Tail) -> None:
    new = [
        TrainingMetric(
            job_id=job.pk,
            line=line,
            step=int(record.get("step") or 0),
            kind="summary" if record.get("kind") == "summary" else "step",
            values={k: v for k, v in record.items() if k not in ("kind", "step")},
        )
        for line, record in metrics.read()
    ]
    broadcast.metrics_append(job, new)
    rows = [_rollout(job, line, record) for line, record in rollouts.read()]
    if rows:
        TrainingRollout.objects.bulk_create(rows, ignore_conflicts=True)


def _rollout(job: TrainingJob, line: int, record: dict[str, Any]) -> TrainingRollout:
    leaves = record.get("leaves") or [None, None]
    return TrainingRollout(
        job_id=job.pk,
        line=line,
        step=int(record.get("step") or 0),
        index=int(record.get("index") or 0),
        question=str(record.get("question") or ""),
        completion=str(record.get("completion") or ""),
        status=str(record.get("status") or "")[:16],
        reward=_number(record.get("reward")),
        base=_number(record.get("base")),
        citation=_number(record.get("citation")),
        valid_rate=_number(record.get("valid_rate")),
        leaves_passed=leaves[0],
        leaves_total=leaves[1],
        reason=str(record.get("reason") or ""),
    )


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _finish(job: TrainingJob, code: int, out: Path, asked: float | None) -> None:
    summary = _result(out / RESULT_FILE)
    if code == 0 and summary.get("status") in ("finished", "stopped"):
        status = JobStatus.DONE if summary["status"] == "finished" else JobStatus.STOPPED
        _end_job(job, status, "", summary)
    elif asked is not None:
        _end_job(job, JobStatus.CANCELLED, f"stopped by signal before a checkpoint (exit {code})")
    else:
        _end_job(job, JobStatus.FAILED, _failure(out / LOG_FILE, code))


def _result(path: Path) -> dict[str, Any]:
    """The run's summary: the JSON document `python -m quest train` prints to stdout."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _failure(path: Path, code: int) -> str:
    """The run's exit code and the last lines of its log: what a person reads first."""
    lines = [line for line in file_tail(path, max_bytes=16_000).splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    shown = errors[-1:] if errors else lines[-ERROR_LINES:]
    return f"the run exited with code {code}:\n" + "\n".join(shown)


def _end_job(
    job: TrainingJob, status: str, error: str, summary: dict[str, Any] | None = None
) -> None:
    with transaction.atomic():
        row = TrainingJob.objects.select_for_update().get(pk=job.pk)
        if row.status != JobStatus.RUNNING:  # the watchdog ended it already; keep its reason
            return
        row.status, row.error, row.finished_at = status, error[:20_000], timezone.now()
        row.summary = summary or {}
        row.save(update_fields=["status", "error", "finished_at", "summary"])
        broadcast.job_status(row)


# ---- datasets and evaluations -----------------------------------------------------------------


def dataset_run(*, dataset_id: int) -> None:
    if not _claim(TrainingDataset, dataset_id):
        return
    datasets.build(dataset_id, _heartbeat(TrainingDataset, dataset_id))


def evaluation_run(*, evaluation_id: int) -> None:
    if not _claim(Evaluation, evaluation_id):
        return
    evaluations.run(evaluation_id, _heartbeat(Evaluation, evaluation_id))


def _heartbeat(model: type[Any], pk: int) -> Callable[..., bool]:
    """Records progress (and that the worker is alive) and says whether to go on: False once
    the row was cancelled, asked to stop, or ended by the watchdog."""

    def beat(**fields: Any) -> bool:
        model.objects.filter(pk=pk, status=JobStatus.RUNNING).update(
            active_at=timezone.now(), **fields
        )
        row = model.objects.filter(pk=pk).values().first() or {}
        return row.get("status") == JobStatus.RUNNING and not row.get("cancel_requested", False)

    return beat
