"""The benchmark run's job kind (apps/jobs): the gpu task when the model loads inside the
worker, the cpu one otherwise; the default cancel (the engine stops after the question it is
on); its worker reports at least every BENCHMARK_STALL_SECONDS, or the watchdog ends it."""

from __future__ import annotations

from django.conf import settings

from apps.accounts.roles import Role
from apps.benchmarks import api
from apps.benchmarks.models import BenchmarkRun
from apps.benchmarks.paths import shown
from apps.benchmarks.selectors import KIND
from apps.jobs.registry import JobKind, queue_tasks, register, stall_setting
from workers.queues import Queue


def _stalled() -> str:
    return (
        f"the worker stopped reporting for over {settings.BENCHMARK_STALL_SECONDS} s "
        "(it died or lost its database); queue the run again to continue"
    )


register(
    JobKind(
        name=KIND,
        label="benchmark run",
        model=BenchmarkRun,
        tasks=queue_tasks("apps.benchmarks.tasks", "benchmark_run", Queue.GPU, Queue.CPU),
        out=api.run_out,
        view_role=Role.VIEWER,
        cancel_role=Role.ADMIN,
        stall=stall_setting("BENCHMARK_STALL_SECONDS", "seconds"),
        stalled_error=_stalled,
        shown_error=shown,
    )
)
