"""Synthesis batches end to end below the interfaces: the real engine over a real GeoNames and
countryinfo corpus, run the way the cpu worker runs it, and people's calls on its candidates."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from apps.accounts.models import User
from apps.audit.services import campaign_create
from apps.common.errors import Conflict, Forbidden, Invalid, NotAuthenticated
from apps.jobs.dispatch import jobs_expire
from apps.jobs.models import JobStatus
from apps.rubrics.models import AuditState, RubricVersion, Task
from apps.synthesis import runner, services
from apps.synthesis.models import Decision, SynthesisBatch, SynthesisCandidate
from apps.synthesis.runner import batch_run
from apps.synthesis.services import (
    batch_campaign_create,
    batch_cancel,
    batch_create,
    batch_status,
    candidate_accept,
    candidate_reject,
)
from apps.synthesis.tasks import cpu_synthesis_batch
from quest.synthesis.model import STAGES

pytestmark = pytest.mark.django_db


def test_a_batch_runs_the_real_engine_and_each_accepted_candidate_becomes_a_task_to_audit(
    admin: User, run_batch: Callable[..., SynthesisBatch]
) -> None:
    batch = run_batch(admin, count=4, seed=3, baseline=True)

    assert (batch.status, batch.proposed, batch.total, batch.error) == ("done", 4, 4, "")
    assert batch.started_at and batch.finished_at
    candidates = list(batch.candidates.select_related("task"))
    assert [c.index for c in candidates] == [0, 1, 2, 3]
    accepted = [c for c in candidates if c.accepted]
    assert accepted and batch.accepted == len(accepted)
    for candidate in accepted:
        task = candidate.task
        assert task is not None and task.audit_state == AuditState.UNAUDITED
        assert (task.question, task.created_by) == (candidate.question, admin)
        assert task.current_version.number == 1
        assert task.complexity == candidate.complexity == candidate.target_class
        assert task.provenance["generator"] == "questweb kg synthesizer"
        assert task.provenance["batch"] == f"synthesis-{batch.pk}"
        assert task.provenance["synthesis_batch_id"] == batch.pk
        assert (task.provenance["seed"], task.provenance["candidate"]) == (3, candidate.index)
        assert [s["name"] for s in task.provenance["funnel"]] == list(STAGES)
        baseline = candidate.stage("baseline")
        assert baseline is not None and isinstance(baseline["detail"]["reward"], float)
    for candidate in candidates:
        if not candidate.accepted:
            assert candidate.task is None and candidate.rejected_at in STAGES
    assert Task.objects.count() == len(accepted)


def test_a_batch_is_queued_for_a_worker_only_after_it_is_committed(
    admin: User, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks() as callbacks:
        batch = batch_create(user=admin, spec={"count": 5})
    assert len(callbacks) == 1
    assert (batch.status, batch.total, batch.created_by) == ("queued", 5, admin)
    assert batch.spec == {"generator": "kg", "count": 5, "seed": 0, "categories": {},
                          "classes": {}, "baseline": True, "open_ended": False,
                          "proposer_turns": 30, "until_accepted": False}  # fmt: skip


def test_the_celery_task_runs_a_batch_and_is_routed_to_the_cpu_queue(
    admin: User, geo_corpus: Any
) -> None:
    from workers.app import app

    route = app.amqp.router.route({}, cpu_synthesis_batch.name, (), {})
    assert route["queue"].name == "cpu"
    batch = batch_create(user=admin, spec={"count": 2, "seed": 1, "baseline": False})
    cpu_synthesis_batch.apply(args=[batch.pk]).get()  # eagerly, in this process
    batch.refresh_from_db()
    assert (batch.status, batch.proposed) == ("done", 2)


@pytest.mark.parametrize("role", ["viewer", "annotator", "reviewer"])
def test_only_admins_who_may_create_tasks_can_start_a_batch(
    make_user: Callable[..., User], role: str
) -> None:
    with pytest.raises(Forbidden, match="this needs the admin role"):
        batch_create(user=make_user(role), spec={"count": 2})
    with pytest.raises(NotAuthenticated):
        batch_create(user=None, spec={"count": 2})  # type: ignore[arg-type]
    assert not SynthesisBatch.objects.exists()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"count": 0}, "count must be from 1 to 20000"),
        ({"count": 20001}, "count must be from 1 to 20000"),
        ({"seed": -1}, "seed must be from 0 to 2147483647"),
        ({"generator": "gpt"}, "generator must be one of kg, llm"),
        ({"categories": {"Knitting": 1}}, "categories: unknown Knitting"),
        ({"classes": {"C10": 1, "C1": 1}}, "classes: unknown C10"),
        ({"classes": {"C1": -1}}, "classes: weights must be numbers of at least 0"),
        ({"classes": {"C1": 0, "C2": 0}}, "classes: at least one weight must be above 0"),
        ({"categories": {"News": float("inf")}}, "categories.News is Infinity"),
        ({"categories": {"Music": 1}}, "categories: the kg generator writes no tasks for Music"),
        ({"count": "ten"}, "count must be a whole number"),
        ({"baseline": "yes"}, "baseline must be true or false"),
        ({"colour": "blue"}, "unknown field 'colour'"),
        ({"count": 0, "seed": -1}, "count must be from 1 to 20000; seed must be from 0"),
    ],
)
def test_a_bad_spec_is_refused_saying_what_is_wrong_and_nothing_is_written(
    admin: User, spec: dict[str, Any], message: str
) -> None:
    with pytest.raises(Invalid) as refused:
        batch_create(user=admin, spec=spec)
    assert refused.value.message.startswith(message)
    assert not SynthesisBatch.objects.exists() and not Task.objects.exists()


def test_one_person_may_have_three_batches_queued_or_running(
    admin: User, make_user: Callable[..., User]
) -> None:
    for _ in range(3):
        batch_create(user=admin, spec={"count": 1})
    with pytest.raises(Conflict, match="already have 3 batches queued or running"):
        batch_create(user=admin, spec={"count": 1})
    batch_create(user=make_user("admin"), spec={"count": 1})  # someone else's are their own
    batch_cancel(user=admin, batch_id=SynthesisBatch.objects.filter(created_by=admin)[0].pk)
    batch_create(user=admin, spec={"count": 1})


def test_a_batch_without_a_corpus_ends_failed_saying_so(admin: User) -> None:
    batch = batch_run(batch_id=batch_create(user=admin, spec={"count": 2}).pk)
    assert batch.status == JobStatus.FAILED
    assert batch.error == "the corpus is empty: load it on the corpus page first"
    assert batch.finished_at is not None and not batch.candidates.exists()


def _engine_that_breaks_after(count: int) -> Callable[..., Iterator[Any]]:
    from quest.synthesis.runner import synthesize

    def broken(spec: Any, **kwargs: Any) -> Iterator[Any]:
        for candidate in synthesize(spec, **kwargs):
            if candidate.index == count:
                raise RuntimeError("the knowledge graph broke")
            yield candidate

    return broken


def test_an_engine_failure_ends_the_batch_failed_keeping_the_candidates_before_it(
    admin: User, run_batch: Callable[..., SynthesisBatch], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("quest.synthesis.runner.synthesize", _engine_that_breaks_after(2))
    batch = run_batch(admin, count=4)
    assert batch.status == JobStatus.FAILED
    assert batch.error == "the batch failed: RuntimeError: the knowledge graph broke"
    assert batch.proposed == batch.candidates.count() == 2
    assert Task.objects.count() == batch.accepted == batch.candidates.filter(accepted=True).count()


def test_a_candidate_that_fails_while_written_leaves_nothing_half_written(
    admin: User, run_batch: Callable[..., SynthesisBatch], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = runner.candidate_task_write

    def task_then_fault(candidate: SynthesisCandidate, **kwargs: Any) -> Task:
        task = real(candidate, **kwargs)
        if candidate.index == 1:
            raise RuntimeError("the database went away")  # after its task row was inserted
        return task

    monkeypatch.setattr(runner, "candidate_task_write", task_then_fault)
    batch = run_batch(admin, count=3, seed=2)
    assert batch.status == JobStatus.FAILED
    assert batch.error == "the batch failed: RuntimeError: the database went away"
    [written] = batch.candidates.all()
    assert written.index == 0 and written.accepted
    assert list(Task.objects.all()) == [written.task]
    assert RubricVersion.objects.count() == 1 and batch.proposed == batch.accepted == 1


def test_a_queued_batch_cancelled_never_runs(admin: User, geo_corpus: Any) -> None:
    batch = batch_create(user=admin, spec={"count": 2})
    cancelled = batch_cancel(user=admin, batch_id=batch.pk)
    assert (cancelled.status, cancelled.error) == ("cancelled", "cancelled by ada")
    assert batch_run(batch_id=batch.pk).status == "cancelled"  # the message arrives later
    assert not batch.candidates.exists()
    with pytest.raises(Conflict, match="has already ended \\(cancelled\\): there is nothing"):
        batch_cancel(user=admin, batch_id=batch.pk)


def test_a_batch_cancelled_while_it_runs_stops_after_the_candidate_it_is_writing(
    admin: User, run_batch: Callable[..., SynthesisBatch], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = runner.candidate_write

    def write_then_cancel(batch: SynthesisBatch, proposed: Any) -> None:
        real(batch, proposed)
        if proposed.index == 1:
            batch_cancel(user=admin, batch_id=batch.pk)  # a person presses cancel meanwhile

    monkeypatch.setattr(runner, "candidate_write", write_then_cancel)
    batch = run_batch(admin, count=5)
    assert (batch.status, batch.proposed) == ("cancelled", 2)
    assert list(batch.candidates.values_list("index", flat=True)) == [0, 1]
    assert Task.objects.count() == batch.accepted


def test_a_running_batch_whose_worker_went_silent_reads_as_failed(admin: User) -> None:
    batch = batch_create(user=admin, spec={"count": 2})
    an_hour_ago = timezone.now() - timedelta(hours=1)
    SynthesisBatch.objects.filter(pk=batch.pk).update(status="running", active_at=an_hour_ago)
    read = batch_status(user=admin, batch_id=batch.pk)
    assert read.status == JobStatus.FAILED
    assert read.error.startswith("no candidate for 30 minutes: the worker may have died")
    assert jobs_expire(kind="synthesis") == 0


def test_a_person_accepts_a_rejected_candidate_and_its_task_is_written_pending_audit(
    admin: User, rejected_candidate: SynthesisCandidate, make_user: Callable[..., User]
) -> None:
    with pytest.raises(Forbidden):
        candidate_accept(user=make_user("reviewer"), candidate_id=rejected_candidate.pk)
    candidate = candidate_accept(user=admin, candidate_id=rejected_candidate.pk, note=" fine ")
    assert (candidate.accepted, candidate.decision, candidate.decided_by) == (
        True,
        Decision.ACCEPTED_BY_HAND,
        admin,
    )
    assert candidate.decision_note == "fine" and candidate.decided_at is not None
    assert candidate.rejected_at == "duplicate", "what the funnel measured stays"
    task = Task.objects.get()
    assert candidate.task == task and task.audit_state == AuditState.UNAUDITED
    assert task.provenance["batch"] == f"synthesis-{candidate.batch_id}"
    assert task.provenance["candidate"] == candidate.index
    assert SynthesisBatch.objects.get().accepted == 1
    with pytest.raises(Conflict, match="is accepted"):
        candidate_accept(user=admin, candidate_id=candidate.pk)


def test_a_candidate_whose_record_is_no_task_cannot_be_accepted(admin: User) -> None:
    from tests.factories import SynthesisCandidateFactory

    candidate = SynthesisCandidateFactory(
        index=4, record={"question": "Which?", "subcategory": "Music"}, rejected_at="schema"
    )
    with pytest.raises(Invalid, match="candidate 4 cannot become a task: no rubric tree"):
        candidate_accept(user=admin, candidate_id=candidate.pk)
    candidate.refresh_from_db()
    assert not candidate.accepted and candidate.decision == Decision.AUTO
    assert not Task.objects.exists()


def test_rejecting_an_accepted_candidate_removes_a_task_nobody_touched(
    admin: User, run_batch: Callable[..., SynthesisBatch]
) -> None:
    batch = run_batch(admin, count=2, seed=4)
    candidate = batch.candidates.filter(accepted=True).first()
    assert candidate is not None
    before = batch.accepted
    rejected = candidate_reject(user=admin, candidate_id=candidate.pk, note="too easy")
    assert (rejected.accepted, rejected.decision, rejected.task) == (
        False,
        Decision.REJECTED_BY_HAND,
        None,
    )
    assert not Task.objects.filter(provenance__candidate=candidate.index).exists()
    assert SynthesisBatch.objects.get().accepted == before - 1
    with pytest.raises(Conflict, match="is rejected"):
        candidate_reject(user=admin, candidate_id=candidate.pk)


def test_rejecting_a_candidate_whose_task_is_being_audited_leaves_it_to_the_audit(
    admin: User, rejected_candidate: SynthesisCandidate
) -> None:
    candidate = candidate_accept(user=admin, candidate_id=rejected_candidate.pk)
    batch = candidate.task.provenance["batch"]
    campaign_create(user=admin, name="Round 1", filters={"batch": batch})
    candidate = candidate_reject(user=admin, candidate_id=candidate.pk)
    assert not candidate.accepted and candidate.task is not None
    assert Task.objects.filter(pk=candidate.task.pk).exists()
    again = candidate_accept(user=admin, candidate_id=candidate.pk)
    assert again.task == candidate.task and Task.objects.count() == 1, "linked, not written twice"


def test_an_audit_campaign_is_created_from_a_finished_batch_in_one_call(
    admin: User, run_batch: Callable[..., SynthesisBatch]
) -> None:
    batch = run_batch(admin, count=3, seed=5)
    result = batch_campaign_create(user=admin, batch_id=batch.pk, annotators_per_task=1)
    campaign = result.campaign
    assert campaign.name == f"Synthesis batch {batch.pk}"
    assert campaign.filters == {"batch": f"synthesis-{batch.pk}", "audit_state": "unaudited"}
    assert (result.created, result.added) == (True, batch.accepted)
    tasks = set(batch.candidates.filter(accepted=True).values_list("task_id", flat=True))
    assert set(campaign.items.values_list("task_id", flat=True)) == tasks
    assert campaign.annotators_per_task == 1


def test_a_campaign_needs_a_batch_that_ended_with_accepted_candidates(admin: User) -> None:
    from tests.factories import SynthesisBatchFactory

    running = SynthesisBatchFactory(status="running", created_by=admin)
    with pytest.raises(Conflict, match="is still running"):
        batch_campaign_create(user=admin, batch_id=running.pk)
    empty = SynthesisBatchFactory(created_by=admin)
    with pytest.raises(Invalid, match="has no accepted candidate, so no task to audit"):
        batch_campaign_create(user=admin, batch_id=empty.pk)


def test_spec_parsing_keeps_weights_and_the_engine_reads_them_back() -> None:
    spec = services.spec_parse(
        {"count": 3, "categories": {"General Info.": 2}, "classes": {"C2": 1}}
    )
    assert services.spec_load(services.spec_json(spec)) == spec


def test_the_category_and_class_mix_steer_what_the_batch_proposes(
    admin: User, run_batch: Callable[..., SynthesisBatch]
) -> None:
    # The category follows the task's domains: this corpus has countries only.
    batch = run_batch(admin, count=4, seed=8, categories={"General Info.": 1}, classes={"C2": 1})
    candidates = list(batch.candidates.all())
    assert {(c.category, c.subcategory) for c in candidates} == {("Misc.", "General Info.")}
    assert {c.target_class for c in candidates} == {"C2"}


def test_text_that_cannot_be_stored_is_refused_or_escaped_never_a_crash(
    admin: User, rejected_candidate: SynthesisCandidate
) -> None:
    with pytest.raises(Invalid, match="name holds a NUL character"):
        batch_campaign_create(user=admin, batch_id=rejected_candidate.batch_id, name="Geo\x00")
    candidate = candidate_accept(user=admin, candidate_id=rejected_candidate.pk, note="ok\ud800")
    assert candidate.decision_note == "ok\\ud800"


def test_an_open_ended_batch_writes_open_ended_tasks_with_their_criteria(
    admin: User, run_batch: Callable[..., SynthesisBatch], client: Any
) -> None:
    batch = run_batch(admin, count=2, seed=5, open_ended=True)

    assert batch.status == "done" and batch.spec["open_ended"] is True
    accepted = [c for c in batch.candidates.select_related("task") if c.accepted]
    assert accepted
    task = accepted[0].task
    assert task is not None and task.type == "open_ended"
    meta = task.provenance["open_ended"]
    assert meta["scorer"] == "deterministic coverage-and-citation scorer"
    assert len(meta["dimension_weights"]) == 4
    client.force_login(admin)
    page = client.get(f"/synthesis/candidates/{accepted[0].pk}/").content.decode()
    assert 'data-testid="open-ended"' in page
    assert "deterministic coverage-and-citation scorer" in page


def test_open_ended_is_refused_for_the_llm_generator(admin: User) -> None:
    from apps.synthesis.services import batch_create

    with pytest.raises(Invalid, match="open-ended tasks come from the kg generator"):
        batch_create(user=admin, spec={"generator": "llm", "open_ended": True})
    assert not SynthesisBatch.objects.exists()
