"""Live sessions: websocket fan-out latency, loss and duplication under reconnects, and the
agent's per-step overhead.

    .venv/bin/python benchmarks/live_bench.py [--viewers 200] [--events 300] [--reconnects 20]

What runs, each against a baseline measured in the same run:

- fan-out: one session, N concurrent websocket viewers on loopback (default 200; 10 events/s)
  against the real ASGI app under uvicorn (one process per core, BENCH_WEB_WORKERS), PostgreSQL
  and Redis; the viewers live in 2 client processes (--processes). A writer thread appends events
  through the same `event_append` the worker uses; latency is from the moment the event's
  transaction commits to its receipt by each viewer (p50/p95/max over every viewer and event).
  Baseline: one viewer.
  Goal p95 < 100 ms.
- reconnects: during the 200-viewer run, viewers are dropped 20 times in all and reconnect with
  `?after=<last seq seen>`; at the end every viewer's seqs must be exactly 1..N: lost and
  duplicated events are counted (goal 0 and 0).
- agent step: the scripted policy's overhead per step, tools excluded, at 10 / 100 / 400 turns of
  history (benchmarks/agent_bench.py); ratio against the 10-turn baseline (goal < 5 ms, flat).

Needs PostgreSQL and Redis (the machine's, as in `make test`); uses its own database
(`qw_bench` unless BENCH_DATABASE_URL says otherwise) and Redis db 3.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATABASE_URL = os.environ.get("BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/qw_bench")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/3")
# One uvicorn process per core, as a deployment would run it; each fans an event out to its own
# viewers (the channel layer is Redis pub/sub).
WEB_WORKERS = int(os.environ.get("BENCH_WEB_WORKERS", os.cpu_count() or 1))


def setup_django() -> None:
    import psycopg

    name = DATABASE_URL.rsplit("/", 1)[1]
    with psycopg.connect(DATABASE_URL.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    os.environ.update(
        DJANGO_SETTINGS_MODULE="questweb.settings", DATABASE_URL=DATABASE_URL, REDIS_URL=REDIS_URL
    )
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "DATABASE_URL": DATABASE_URL, "REDIS_URL": REDIS_URL}
    argv = [sys.executable, "-m", "uvicorn", "questweb.asgi:application", "--host", "127.0.0.1",
            "--port", str(port), "--log-level", "warning",
            "--ws", os.environ.get("BENCH_WS", "auto"),
            "--workers", str(WEB_WORKERS)]  # fmt: skip
    server = subprocess.Popen(argv, cwd=ROOT, env=env)
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, f"127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("uvicorn did not start")


def make_session() -> tuple[Any, str]:
    from django.contrib.auth.models import Group
    from django.test import Client

    from apps.accounts.models import User
    from apps.live.models import Session

    user, _ = User.objects.get_or_create(username="live-bench")
    user.groups.set(Group.objects.filter(name="viewer"))
    session = Session.objects.create(owner=user, question="benchmark", status="running")
    client = Client()
    client.force_login(user)
    return session, f"sessionid={client.cookies['sessionid'].value}"


def write_events(session_id: int, count: int, interval: float, commits: dict[int, float]) -> None:
    """Append events like the worker does, recording each one's commit time."""
    from django.db import connection, transaction

    from apps.live.broadcast import event_append

    for n in range(count):
        with transaction.atomic():
            box: dict[str, int] = {}
            # Registered before event_append's broadcast, so it runs first, right after COMMIT.
            transaction.on_commit(lambda box=box: commits.__setitem__(box["seq"], time.time()))
            event = event_append(
                session_id=session_id, type="thought", payload={"turn": n, "text": "x" * 200}
            )
            box["seq"] = event.seq
        time.sleep(interval)
    connection.close()


class Viewer:
    def __init__(self, server: str, public_id: str, cookie: str) -> None:
        self.url = f"ws://{server}/ws/live/{public_id}/"
        self.headers = {"Origin": f"http://{server}", "Cookie": cookie}
        self.seqs: list[int] = []
        self.received: dict[int, float] = {}
        self.socket: Any = None
        self.reconnects = 0

    async def run(self, last_seq: int, ready: asyncio.Event) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        while not self.seqs or self.seqs[-1] < last_seq:
            after = self.seqs[-1] if self.seqs else 0
            async with connect(f"{self.url}?after={after}", additional_headers=self.headers) as ws:
                self.socket = ws
                ready.set()
                try:
                    await self._receive(ws, last_seq)
                except ConnectionClosed:
                    self.reconnects += 1  # dropped by drop(); reconnect with ?after=

    async def _receive(self, ws: Any, last_seq: int) -> None:
        while not self.seqs or self.seqs[-1] < last_seq:
            raw = await ws.recv()
            now = time.time()
            seq = int(json.loads(raw)["seq"])
            self.seqs.append(seq)
            self.received.setdefault(seq, now)

    async def drop(self) -> None:
        if self.socket is not None:
            await self.socket.close()


async def crowd_run(
    server: str, public_id: str, cookie: str, viewers: int, events: int, drops: int,
    interval: float, ready: Any,
) -> list[Viewer]:  # fmt: skip
    crowd = [Viewer(server, public_id, cookie) for _ in range(viewers)]
    readies = [asyncio.Event() for _ in crowd]
    tasks = [asyncio.create_task(v.run(events, r)) for v, r in zip(crowd, readies, strict=True)]
    await asyncio.gather(*(r.wait() for r in readies))
    ready.put(True)
    rng = random.Random(7 + os.getpid())
    for _ in range(drops):
        await asyncio.sleep(events * interval / (drops + 1))
        await rng.choice(crowd).drop()
    await asyncio.gather(*tasks)
    return crowd


def crowd_process(args: tuple[Any, ...], ready: Any, results: Any) -> None:
    """One client process: its viewers' receipts travel back as plain lists."""
    crowd = asyncio.run(crowd_run(*args, ready))
    results.put([(v.seqs, v.received, v.reconnects) for v in crowd])


def fan_out(
    server: str, cookie: str, viewers: int, events: int, reconnects: int, interval: float,
    processes: int,
) -> dict[str, Any]:  # fmt: skip
    """Viewers run in `processes` client processes, so one client's GIL does not queue 200
    receipts behind each other (browsers would be on other machines)."""
    import multiprocessing

    session, _ = make_session()
    context = multiprocessing.get_context("spawn")
    ready, results = context.Queue(), context.Queue()
    shares = [viewers // processes + (i < viewers % processes) for i in range(processes)]
    drops = [reconnects // processes + (i < reconnects % processes) for i in range(processes)]
    children = [
        context.Process(
            target=crowd_process,
            args=((server, str(session.public_id), cookie, n, events, d, interval), ready, results),
        )
        for n, d in zip(shares, drops, strict=True)
        if n
    ]
    for child in children:
        child.start()
    for _ in children:
        ready.get(timeout=120)
    commits: dict[int, float] = {}
    write_events(session.pk, events, interval, commits)
    crowd = [row for _ in children for row in results.get(timeout=300)]
    for child in children:
        child.join(30)
    return summarise(crowd, commits, events)


def summarise(
    crowd: list[tuple[list[int], dict[int, float], int]], commits: dict[int, float], events: int
) -> dict[str, Any]:
    latencies = [
        (received[seq] - commits[seq]) * 1000
        for _, received, _ in crowd
        for seq in received
        if seq in commits
    ]
    latencies.sort()
    expected = set(range(1, events + 1))
    lost = sum(len(expected - set(seqs)) for seqs, _, _ in crowd)
    duplicated = sum(len(seqs) - len(set(seqs)) for seqs, _, _ in crowd)
    return {
        "p50": statistics.median(latencies),
        "p95": latencies[int(0.95 * (len(latencies) - 1))],
        "max": latencies[-1],
        "lost": lost,
        "duplicated": duplicated,
        "reconnects": sum(reconnects for _, _, reconnects in crowd),
        "deliveries": len(latencies),
    }


def agent_rows() -> list[tuple[int, float]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from agent_bench import step_overhead

    return [(turns, step_overhead(turns)) for turns in (10, 100, 400)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--reconnects", type=int, default=20)
    parser.add_argument("--processes", type=int, default=2, help="client processes")
    # An agent emits a few events per step and a step takes seconds (a search, an LLM turn);
    # 10 events/s to 200 viewers (2,000 deliveries/s) is several times a real session's rate.
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between events")
    args = parser.parse_args()
    setup_django()
    server, address = start_server()
    try:
        _, cookie = make_session()
        base = fan_out(address, cookie, 1, args.events, 0, args.interval, 1)
        crowd = fan_out(
            address, cookie, args.viewers, args.events, args.reconnects, args.interval,
            args.processes,
        )  # fmt: skip
    finally:
        server.terminate()
        server.wait(30)
    print(f"fan-out, {args.events} events every {args.interval * 1000:.0f} ms (commit -> receipt)")
    print(f"{'viewers':>8} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'p95 ratio':>10} "
          f"{'reconnects':>10} {'lost':>5} {'dup':>5}")  # fmt: skip
    for viewers, row in ((1, base), (args.viewers, crowd)):
        print(f"{viewers:>8} {row['p50']:>8.1f} {row['p95']:>8.1f} {row['max']:>8.1f} "
              f"{row['p95'] / base['p95']:>9.1f}x {row['reconnects']:>10} {row['lost']:>5} "
              f"{row['duplicated']:>5}")  # fmt: skip
    rows = agent_rows()
    print("\nscripted agent step overhead (tools excluded)")
    print(f"{'history':>8} {'ms/step':>8} {'ratio':>7}")
    for turns, ms in rows:
        print(f"{turns:>8} {ms:>8.3f} {ms / rows[0][1]:>6.2f}x")


if __name__ == "__main__":
    main()
