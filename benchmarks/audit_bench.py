"""Audit workflow speed: the audit page's server render time and query count, and how many
claims 50 annotators pressing "next" at once get through, with zero double assignments.

    [DATABASE_URL=postgresql://…] .venv/bin/python benchmarks/audit_bench.py \
        [--repeat R] [--tasks T] [--annotators A] [--export-tasks E]

Runs against a throwaway database (<name>_audit_bench on the server of DATABASE_URL, created,
migrated and dropped here). Claims need PostgreSQL's row locks: without a PostgreSQL
DATABASE_URL the local server postgresql://postgres@127.0.0.1:5432 is used, as live_bench.py
does. Export files go to a temporary directory; the export jobs are enqueued on REDIS_URL (by
default the machine's Redis, database 4, whose queued messages are removed at the end) and run
inline, so no worker is needed.

Page: a campaign over two tasks whose trees have exactly 50 and 300 nodes (branching 2-6, up to
7 levels, 30% of leaves critical, judge suggestions on a third of the leaves). Each page is
fetched through Django's test client (middleware, session, auth, template) R times after a
warm-up; the median is reported with the number of SQL queries one request makes. The baseline,
measured in the same run, is the task detail page (/tasks/<id>/) showing the same tree.

Claims: T one-leaf-group tasks, 2 annotators each. A threads (each with its own database
connection) start together behind a barrier; each presses "next", submits a verdict on every
node, and repeats until nothing is left. Reported: claim+submit cycles per second and the claim
call's median latency, against a baseline of one annotator doing all cycles alone in the same
run. Afterwards every item must hold exactly 2 submissions from 2 different people; the
benchmark exits non-zero otherwise.

Exports: 10,000 audited tasks (written in bulk). JSONL streamed chunk by chunk against a
baseline that builds the whole file in memory (time and tracemalloc peak for both, and the
time to the first chunk), then the parquet and Hugging Face `datasets` jobs run inline.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "questweb.settings")

GOAL_MS = 150.0
DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/qw_bench"
# The export jobs are enqueued as the app does, on the machine's Redis (a database of its own).
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/4"


def random_tree(rng: random.Random, size: int) -> dict[str, Any]:
    """A canonical QUEST tree with exactly `size` nodes."""
    nodes: list[dict[str, Any]] = [{"id": "n0", "description": "root", "critical": False}]
    depth = {0: 1}
    frontier = [0]
    while len(nodes) < size:
        parent = rng.choice([i for i in frontier if depth[i] < 7])
        frontier.remove(parent)
        kids = nodes[parent].setdefault("children", [])
        nodes[parent]["strategy"] = rng.choice(["parallel", "parallel", "sequential"])
        for _ in range(min(rng.randint(2, 6), size - len(nodes))):
            index = len(nodes)
            child = {
                "id": f"n{index}",
                "description": f"Criterion {index}: the answer states fact {index} with a source",
                "critical": False,
            }
            nodes.append(child)
            kids.append(child)
            depth[index] = depth[parent] + 1
            frontier.append(index)
    for node in nodes:
        if not node.get("children"):
            node["critical"] = rng.random() < 0.3
            node["check"] = {"kind": "mentions", "value": f"fact {node['id']}"}
    # A critical parent may only have critical children; keep groups non-critical.
    return {"format": "questweb.rubric/1", "scoring": "quest", "root": nodes[0]}


def median_ms(fn: Callable[[], Any], repeat: int) -> float:
    for _ in range(3):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def page_rows(rng: random.Random, repeat: int) -> None:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from apps.audit.services import assignment_claim_next, campaign_create
    from apps.audit.services.adjudication import judge_verdicts_record
    from apps.rubrics.services import task_prepare, tasks_write

    admin, annotator = make_user("bench-admin", "admin"), make_user("bench-ann", "annotator")
    tasks = tasks_write(
        user=None,
        prepared=[
            task_prepare(
                {
                    "question": f"A {size}-node task",
                    "rubric": random_tree(rng, size),
                    "provenance": {"batch": "page-bench"},
                }
            )
            for size in (50, 300)
        ],
        note="benchmark",
    )
    for task in tasks:
        leaves = [n for n in _leaf_ids(task.current_version.tree)][::3]
        judge_verdicts_record(
            user=admin,
            task_id=task.pk,
            version=1,
            verdicts={leaf: "pass" for leaf in leaves},
            judge="bench",
        )
    campaign = campaign_create(
        user=admin, name="page bench", filters={"batch": "page-bench"}, annotators_per_task=1
    )
    client = Client()
    client.force_login(annotator)
    print(
        f"{'tree':>10} {'audit page':>12} {'task page':>11} {'ratio':>7} {'queries':>8} {'goal':>8}"
    )
    for task in tasks:
        assignment = assignment_claim_next(user=annotator, campaign_id=campaign.pk)
        assert assignment is not None and assignment.item.task_id == task.pk
        audit_url, task_url = f"/audit/a/{assignment.pk}/", f"/tasks/{task.pk}/"
        assert client.get(audit_url).status_code == 200
        audit_ms = median_ms(lambda url=audit_url: client.get(url), repeat)
        task_ms = median_ms(lambda url=task_url: client.get(url), repeat)
        with CaptureQueriesContext(connection) as queries:
            client.get(audit_url)
        nodes = task.current_version.stats["nodes"]
        verdict = "ok" if audit_ms < GOAL_MS else "SLOW"
        print(
            f"{nodes:>5} nodes {audit_ms:>9.1f} ms {task_ms:>8.1f} ms {audit_ms / task_ms:>6.2f}x"
            f" {len(queries):>8} {verdict:>8}"
        )
        _release(assignment.pk, annotator)


def _leaf_ids(tree: dict[str, Any]) -> list[str]:
    out, stack = [], [tree["root"]]
    while stack:
        node = stack.pop()
        children = node.get("children") or []
        if not children:
            out.append(node["id"])
        stack.extend(children)
    return out


def _release(assignment_id: int, user: Any) -> None:
    from apps.audit.services import assignment_release

    assignment_release(user=user, assignment_id=assignment_id)


def make_user(name: str, role: str) -> Any:
    from django.contrib.auth.models import Group

    from apps.accounts.models import User

    user = User.objects.create(username=name)
    user.set_unusable_password()
    user.save()
    user.groups.set(Group.objects.filter(name=role))
    return user


VERDICTS = {"root": "correct", "capital": "correct", "cited": "correct"}


def claim_campaign(tasks: int, name: str) -> Any:
    from apps.audit.services import campaign_create
    from apps.rubrics.services import task_prepare, tasks_write

    tree = {
        "format": "questweb.rubric/1",
        "scoring": "quest",
        "root": {
            "id": "root",
            "description": "Capital",
            "critical": False,
            "strategy": "parallel",
            "children": [
                {
                    "id": "capital",
                    "description": "Names Canberra",
                    "critical": True,
                    "check": {"kind": "mentions", "value": "Canberra"},
                },
                {
                    "id": "cited",
                    "description": "Cites a source",
                    "critical": False,
                    "check": {"kind": "cites_url"},
                },
            ],
        },
    }
    prepared = [
        task_prepare({"question": f"q{i}", "rubric": tree, "provenance": {"batch": name}})
        for i in range(tasks)
    ]
    tasks_write(user=None, prepared=prepared, note="benchmark")
    admin = make_user(f"{name}-admin", "admin")
    return campaign_create(user=admin, name=name, filters={"batch": name}, annotators_per_task=2)


def work(user: Any, campaign_id: int, start: threading.Barrier | None) -> list[float]:
    """Claim and submit until the queue is empty; returns each claim's latency in ms."""
    from django.db import connection

    from apps.audit.services import assignment_claim_next, assignment_submit

    latencies = []
    try:
        if start is not None:
            start.wait()
        while True:
            began = time.perf_counter()
            assignment = assignment_claim_next(user=user, campaign_id=campaign_id)
            latencies.append((time.perf_counter() - began) * 1000)
            if assignment is None:
                return latencies
            assignment_submit(
                user=user,
                assignment_id=assignment.pk,
                version=1,
                decision="accept",
                verdicts=VERDICTS,
            )
    finally:
        connection.close()


def check_assignments(campaign: Any) -> int:
    """Items holding anything but exactly 2 submissions from 2 different people."""
    from django.db.models import Count

    from apps.audit.models import Assignment

    rows = (
        Assignment.objects.filter(campaign=campaign, status="submitted")
        .values("item_id")
        .annotate(n=Count("pk"), people=Count("annotator", distinct=True))
    )
    bad = sum(1 for r in rows if r["n"] != 2 or r["people"] != 2)
    return bad + (campaign.items.count() - len(rows))


def claim_rows(tasks: int, annotators: int) -> bool:
    solo_campaign = claim_campaign(tasks, "solo")
    solo = make_user("solo-0", "annotator"), make_user("solo-1", "annotator")
    began = time.perf_counter()
    solo_latency = [ms for user in solo for ms in work(user, solo_campaign.pk, None)]
    solo_rate = 2 * tasks / (time.perf_counter() - began)

    campaign = claim_campaign(tasks, "crowd")
    people = [make_user(f"crowd-{i}", "annotator") for i in range(annotators)]
    start = threading.Barrier(annotators)
    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=annotators) as pool:
        results = list(pool.map(lambda u: work(u, campaign.pk, start), people))
    crowd_rate = 2 * tasks / (time.perf_counter() - began)
    crowd_latency = [ms for got in results for ms in got]
    bad = check_assignments(campaign) + check_assignments(solo_campaign)
    print(f"{'annotators':>10} {'cycles/s':>9} {'claim p50':>10} {'claim p95':>10} {'ratio':>7}")
    for label, rate, lat in (
        ("1 (base)", solo_rate, solo_latency),
        (str(annotators), crowd_rate, crowd_latency),
    ):
        p95 = statistics.quantiles(lat, n=20)[-1]
        print(
            f"{label:>10} {rate:>9.1f} {statistics.median(lat):>7.1f} ms {p95:>7.1f} ms"
            f" {rate / solo_rate:>6.2f}x"
        )
    print(f"items: {2 * tasks} slots each run; items not holding exactly 2 different people: {bad}")
    return bad == 0


def decided_campaign(tasks: int) -> Any:
    """`tasks` tasks audited by one annotator and accepted, written in bulk."""
    from django.db.models import F
    from django.utils import timezone

    from apps.audit.models import Assignment, CampaignTask, NodeVerdict

    campaign = claim_campaign(tasks, "export")
    campaign.items.update(
        state="decided",
        decision="accept",
        final_version=F("start_version"),
        decided_at=timezone.now(),
        submitted=1,
    )
    annotator = make_user("export-ann", "annotator")
    now = timezone.now()
    assignments = Assignment.objects.bulk_create(
        [
            Assignment(
                item_id=item_id,
                campaign=campaign,
                annotator=annotator,
                status="submitted",
                lock_expires_at=now,
                submitted_at=now,
                version_id=version_id,
                decision="accept",
            )
            for item_id, version_id in CampaignTask.objects.filter(campaign=campaign).values_list(
                "pk", "start_version_id"
            )
        ],
        batch_size=2000,
    )
    NodeVerdict.objects.bulk_create(
        [
            NodeVerdict(
                assignment=a,
                node_id=node,
                verdict="correct",
                is_leaf=node != "root",
                critical=node == "capital",
            )
            for a in assignments
            for node in VERDICTS
        ],
        batch_size=5000,
    )
    return campaign


def peak_mb(fn: Callable[[], Any]) -> float:
    """Peak memory traced during one call (tracemalloc slows the call, so it is timed apart)."""
    import tracemalloc

    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return peak


def seconds(fn: Callable[[], Any]) -> float:
    began = time.perf_counter()
    fn()
    return time.perf_counter() - began


def export_rows(tasks: int) -> None:
    from apps.audit.selectors import audit_records, jsonl_chunks
    from apps.audit.services import export_enqueue, export_run

    campaign = decided_campaign(tasks)
    reviewer = make_user("export-rev", "reviewer")

    def stream() -> int:
        return sum(
            len(c) for c in jsonl_chunks(audit_records(user=reviewer, campaign_id=campaign.pk))
        )

    def whole() -> int:
        return len(b"".join(jsonl_chunks(audit_records(user=reviewer, campaign_id=campaign.pk))))

    first = seconds(
        lambda: next(jsonl_chunks(audit_records(user=reviewer, campaign_id=campaign.pk)))
    )
    size = whole()
    base_s, base_mb = seconds(whole), peak_mb(whole)
    stream_s, stream_mb = seconds(stream), peak_mb(stream)
    print(f"{'JSONL':>16} {'seconds':>8} {'peak MB':>8} {'MB out':>7}")
    print(f"{'in memory (base)':>16} {base_s:>8.2f} {base_mb:>8.1f} {size / 1e6:>7.1f}")
    print(
        f"{'streamed':>16} {stream_s:>8.2f} {stream_mb:>8.1f} {size / 1e6:>7.1f}   "
        f"{stream_s / base_s:.2f}x the time, {stream_mb / base_mb:.2f}x the memory"
    )
    print(f"first chunk after {first * 1000:.0f} ms")
    for fmt in ("parquet", "hf"):
        job = export_enqueue(user=reviewer, format=fmt, campaign_id=campaign.pk)
        began = time.perf_counter()
        job = export_run(job_id=job.pk)
        took = time.perf_counter() - began
        print(f"{fmt + ' job':>16} {took:>8.2f} s, {job.rows} rows, {job.status}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--export-tasks", type=int, default=10_000)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        os.environ["DATABASE_URL"] = DEFAULT_DATABASE_URL
    os.environ.setdefault("REDIS_URL", DEFAULT_REDIS_URL)
    import tempfile

    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    exports = tempfile.TemporaryDirectory(prefix="audit-bench-")
    settings.DATA_DIR = Path(exports.name)
    original = connection.settings_dict["NAME"]
    # Its own throwaway database, so a test run on the same server is left alone.
    connection.settings_dict["TEST"]["NAME"] = f"{original}_audit_bench"
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        print("== audit page render (median of", args.repeat, "requests)")
        page_rows(random.Random(args.seed), args.repeat)
        print(
            f"== claims: {args.annotators} annotators at once vs one alone, {args.tasks} tasks x 2"
        )
        ok = claim_rows(args.tasks, args.annotators)
        print(f"== exports of {args.export_tasks} audited tasks")
        export_rows(args.export_tasks)
    finally:
        connection.close()
        connection.creation.destroy_test_db(original, verbosity=0)
        exports.cleanup()
        _drop_queued_jobs(settings.REDIS_URL)
    return 0 if ok else 1


def _drop_queued_jobs(url: str) -> None:
    """The export messages no worker took: their jobs lived in the dropped database."""
    import redis

    from workers.queues import Queue

    client = redis.Redis.from_url(url)
    client.delete(*(queue.value for queue in Queue))
    client.close()


if __name__ == "__main__":
    sys.exit(main())
