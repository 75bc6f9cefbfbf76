"""Every thread of a web process sends tasks through questweb's Celery app, even when something
asked Celery for its current app before the app existed (then Celery makes a fallback app that
publishes to amqp://localhost, and the task silently never reaches a worker)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import json, threading
import celery
celery.current_app.main  # Celery's fallback app is made here, before questweb's exists
import django
django.setup()
from apps.live.tasks import cpu_session_run
seen = {}
def look(name):
    seen[name] = [cpu_session_run.app.main, cpu_session_run.app.conf.broker_url]
thread = threading.Thread(target=look, args=("thread",))
thread.start()
thread.join()
look("main")
print(json.dumps(seen))
"""


def test_tasks_sent_from_any_thread_use_the_projects_broker() -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "questweb.settings",
        "REDIS_URL": "redis://127.0.0.1:6379/9",
    }
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    expected = ["questweb", "redis://127.0.0.1:6379/9"]
    assert seen == {"thread": expected, "main": expected}
