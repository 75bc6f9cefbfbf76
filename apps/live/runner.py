"""A live session's run inside a worker: the agent loop, with a sink that persists and
broadcasts every event it emits, and the task's rubric scored as the research goes."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.common import llm
from apps.common.errors import DomainError, Invalid
from apps.corpus.selectors import research_toolbox
from apps.live.broadcast import event_append
from apps.live.checkpoints import checkpoint_find, is_checkpoint
from apps.live.models import PACE_SECONDS, Pace, Policy, Session, SessionStatus, Trajectory
from apps.live.progress import TurnWatch
from apps.live.scoring import TaskScorer
from quest.agent import Budgets, LLMCondenser, LLMPolicy, RuleCondenser, ScriptedPolicy, run_agent
from quest.llm.config import client_from_config
from quest.llm.types import context_window

log = logging.getLogger(__name__)


class SessionSink:
    """The agent's EventSink. `finished` is held back: the runner sends it last, after the final
    rubric score, together with the session's terminal status."""

    def __init__(self, session_id: int, scorer: TaskScorer | None) -> None:
        self.session_id = session_id
        self.scorer = scorer
        self.finished: dict[str, Any] = {}
        # What a failure line says: the invalid turns in a row (the last one's text) and the
        # last error the run reported.
        self.invalid_in_row = 0
        self.last_invalid = ""
        self.last_error = ""

    def emit(self, type: str, payload: dict[str, Any]) -> None:
        if type == "finished":
            self.finished = dict(payload)
            return
        self._note(type, payload)
        fields: dict[str, Any] = {}
        if type == "answer":
            fields["answer"] = str(payload.get("text", ""))
        event_append(session_id=self.session_id, type=type, payload=payload, **fields)
        if type == "state" and self.scorer is not None:
            self._score_state(payload)

    def _note(self, type: str, payload: dict[str, Any]) -> None:
        if type == "reminder":
            self.invalid_in_row += 1
            self.last_invalid = str(payload.get("reply", ""))
        elif type == "tool_call":
            self.invalid_in_row = 0
        elif type == "error":
            self.last_error = str(payload.get("message", ""))

    def failure(self) -> dict[str, str] | None:
        """Why the run ended without its research done, in one line, with the last invalid
        turn: None when it answered, ran out of budget or was stopped."""
        status = self.finished.get("status")
        if status == "invalid":
            turns = self.invalid_in_row
            reason = f"The model broke the protocol {turns} turn{'s' * (turns != 1)} in a row"
        elif status == "failed":
            reason = f"The run failed: {self.last_error or 'the policy failed'}"
        else:
            return None
        return {"status": str(status), "reason": reason, "last_invalid_turn": self.last_invalid}

    def _score_state(self, payload: dict[str, Any]) -> None:
        try:
            scored = self.scorer.on_state(payload.get("state") or {})  # type: ignore[union-attr]
        except Exception:  # scoring is a view of the run; it must never end it
            log.exception("scoring a state of session %s failed", self.session_id)
            return
        for kind, body in scored:
            event_append(session_id=self.session_id, type=kind, payload=body)


def _claim(session_id: int) -> Session | None:
    """Mark a queued session running; None when it already ran, was stopped or is unknown."""
    with transaction.atomic():
        session = (
            Session.objects.select_for_update(of=("self",))
            .select_related("task")
            .filter(pk=session_id)
            .first()
        )
        if session is None or session.status != SessionStatus.QUEUED:
            return None
        session.status = SessionStatus.RUNNING
        session.started_at = session.active_at = timezone.now()
        session.save(update_fields=["status", "started_at", "active_at"])
        return session


def _judge_for(session: Session) -> Any:
    """The configured judge model's client, or None. A policy never grades its own answers: an
    llm session whose model is the judge model gets no judge (its judge leaves stay undecided)."""
    model = settings.LLM_JUDGE_MODEL
    if not model or (session.policy == Policy.LLM and model == session.model):
        return None
    return llm.client_for(model)


def _agent_parts(
    session: Session, budgets: Budgets, watch: TurnWatch
) -> tuple[Any, Any, Any, Budgets]:
    """(policy, condenser, judge client, budgets) for the session; the policy's turns are
    watched. An llm session's budgets follow its model's window: the history condenses before
    a small model overflows."""
    judge = _judge_for(session)
    if session.policy == Policy.SCRIPTED:
        return watch.policy(ScriptedPolicy()), RuleCondenser(), judge, budgets
    client = _client(session, watch)
    _load(client, session.checkpoint_label or session.model, watch)
    budgets = budgets.within(context_window(client))
    policy = LLMPolicy(client, max_turn_tokens=budgets.max_turn_tokens)
    return watch.policy(policy), LLMCondenser(client), judge, budgets


def _client(session: Session, watch: TurnWatch) -> Any:
    if not is_checkpoint(session.model):
        return llm.client_for(session.model, watch=watch.client_watch())
    checkpoint = checkpoint_find(session.model)
    if checkpoint is None:
        raise Invalid(
            f"the checkpoint {session.checkpoint} is gone: its run was deleted or its files "
            "were removed"
        )
    client = client_from_config(checkpoint.directory)
    # A checkpoint is an in-process model, which reports each token to the page as it comes.
    client.watch = watch.client_watch()  # type: ignore[attr-defined]
    return client


def _load(client: Any, model: str, watch: TurnWatch) -> None:
    """An in-process model not loaded in this worker yet is loaded now, with viewers told so:
    otherwise its first turn sits on "waiting for the model" for as long as loading takes."""
    if getattr(client, "loaded", True):
        return
    watch.loading(model, done=False)
    client.load()
    watch.loading(model, done=True)


def _budgets(session: Session) -> Budgets:
    return replace(
        Budgets.rl(),
        max_turns=int(session.budgets.get("max_turns", 30)),
        condense_at_tokens=int(session.budgets.get("condense_at_tokens", 16_384)),
        max_turn_tokens=int(session.budgets.get("max_turn_tokens", 1_024)),
    )


def session_run(
    *,
    session_id: int,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Run a claimed session to its end. `clock` and `sleep` pace its turns (tests pass their
    own, so a paced run needs no waiting)."""
    session = _claim(session_id)
    if session is None:
        log.info("session %s is not queued; nothing to run", session_id)
        return
    scorer = TaskScorer(session.task) if session.task and session.task.current_version else None
    sink = SessionSink(session.pk, scorer)
    status = SessionStatus.FINISHED
    try:
        watch = TurnWatch(
            session,
            pace_s=PACE_SECONDS.get(Pace(session.pace), 0.0),
            announce=session.policy == Policy.LLM,
            clock=clock,
            sleep=sleep,
        )
        policy, condenser, judge, budgets = _agent_parts(session, _budgets(session), watch)
        if scorer is not None:
            scorer.judge = judge

        result = run_agent(
            session.question,
            rollout_id=str(session.public_id),
            policy=policy,
            toolbox=research_toolbox(),
            condenser=condenser,
            budgets=budgets,
            sink=sink,
            should_stop=watch.stopped,
        )
        # The board shows the state the run ended with, also when the context never grew past
        # the condensation threshold (short runs never condense).
        sink.emit(
            "state",
            {"turn": result.turns, "state": result.final_state.to_json(), "recovered": False,
             "final": True},
        )  # fmt: skip
        trajectory = result.trajectory
        Trajectory.objects.create(
            session_id=session.pk,
            rollout_id=str(session.public_id),
            records=trajectory.segment_records() + trajectory.condensation_records(),
        )
    except Exception as exc:
        log.exception("session %s failed", session_id)
        status = SessionStatus.FAILED
        sink.emit("error", {"message": _reason(exc)})
        sink.finished = {**sink.finished, "status": "failed"}
    _finish(session, sink, status)


def _reason(exc: Exception) -> str:
    if isinstance(exc, DomainError):
        return exc.message
    return f"the run failed: {type(exc).__name__}: {str(exc)[:300]}"


def _finish(session: Session, sink: SessionSink, status: str) -> None:
    result: dict[str, Any] = {"usage": sink.finished}
    if sink.scorer is not None:
        answer = Session.objects.filter(pk=session.pk).values_list("answer", flat=True).get()
        if answer.strip():
            try:
                events, result["score"] = sink.scorer.final(answer)
                for kind, body in events:
                    event_append(session_id=session.pk, type=kind, payload=body)
            except Exception:
                log.exception("final scoring of session %s failed", session.pk)
    if sink.finished.get("status") == "failed":
        status = SessionStatus.FAILED
    failure = sink.failure()
    if failure is not None:
        result["failure"] = failure
    event_append(
        session_id=session.pk,
        type="finished",
        payload={**sink.finished, "session_status": str(status), "failure": failure},
        status=status,
        finished_at=timezone.now(),
        result=result,
    )
