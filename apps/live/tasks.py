from __future__ import annotations

from celery import shared_task

from apps.live.runner import session_run
from apps.live.services import sessions_mark_stalled


@shared_task(acks_late=False)
def cpu_session_run(session_id: int) -> None:
    """The scripted policy, HTTP LLM endpoints and in-process SmolLM2 run on the cpu queue. Not
    acks_late: a redelivered half-run session would start over and duplicate its events."""
    session_run(session_id=session_id)


@shared_task(acks_late=False)
def gpu_session_run(session_id: int) -> None:
    """In-process vLLM models run on the gpu queue (a solo-pool worker)."""
    session_run(session_id=session_id)


@shared_task(ignore_result=True)
def live_watchdog() -> int:
    return sessions_mark_stalled()
