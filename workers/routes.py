"""Which queue each task goes to. GPU tasks must only ever land on Queue.GPU."""

from __future__ import annotations

from workers.queues import Queue

ROUTES: dict[str, dict[str, str]] = {
    "workers.*": {"queue": Queue.DEFAULT.value},
    "*.gpu_*": {"queue": Queue.GPU.value},
    "*.cpu_*": {"queue": Queue.CPU.value},
}
