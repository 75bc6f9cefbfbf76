"""A session written out: Markdown for people, JSON (every event, streamed) for programs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from apps.live.models import Event, Session, Trajectory

EXPORT_BATCH = 500


def _events(session: Session) -> Iterator[Event]:
    return Event.objects.filter(session=session).order_by("seq").iterator(chunk_size=EXPORT_BATCH)


def session_fields(session: Session) -> dict[str, Any]:
    """What a session was asked and how it stands: the same in the API and in an export."""
    fields = ("question", "task_id", "policy", "model", "budgets", "status")
    return {field: getattr(session, field) for field in fields}


def json_chunks(session: Session) -> Iterator[str]:
    """`{"session": {...}, "events": [...]}` in pieces, so a long session never sits in memory."""
    header = {
        "id": str(session.public_id),
        **session_fields(session),
        "answer": session.answer,
        "result": session.result,
        "created_at": session.created_at.isoformat(),
        "finished_at": session.finished_at.isoformat() if session.finished_at else None,
    }
    yield '{"session": ' + json.dumps(header) + ', "events": ['
    for index, event in enumerate(_events(session)):
        record = {k: v for k, v in event.to_message(header["id"]).items() if k != "session"}
        yield ("," if index else "") + "\n" + json.dumps(record)
    yield "\n]}\n"


def _state_lines(state: dict[str, Any]) -> list[str]:
    info = state.get("information_state") or {}
    lines: list[str] = []
    for key, title in (
        ("trusted", "Trusted"),
        ("untrusted", "Contradicted"),
        ("uncertain", "Open"),
    ):
        items = info.get(key) or []
        if not items:
            continue
        lines += ["", f"### {title}"]
        for item in items:
            sources = ", ".join(item.get("sources") or [])
            need = f" — next: {item['need']}" if item.get("need") else ""
            lines.append(f"- {item.get('claim', '')} ({sources}){need}")
    return lines


def _shown(value: Any) -> str:
    """A value as a person reads it: scores to 3 decimals, a (passed, total) pair as "p of t"."""
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return f"{value[0]} of {value[1]}"
    return str(value)


def _score_lines(score: dict[str, Any]) -> list[str]:
    """The root score and the reward's fields, leaving out the empty ones (and `dropped` unless
    the reward was dropped); the citations that did not hold are listed with why."""
    reward = dict(score.get("reward") or {})
    invalid = reward.pop("invalid", None) or []
    fields = {"root score": score.get("root_score"), **reward}
    if not fields.get("dropped"):
        fields.pop("dropped", None)
    lines = [
        f"- {key.replace('_', ' ')}: {_shown(value)}"
        for key, value in fields.items()
        if value not in (None, "", [], {})
    ]
    if invalid:
        lines.append("- citations that did not hold:")
        lines += [
            f"  - {c.get('url', '')} ({c.get('label', '')}): {c.get('reason', '')}" for c in invalid
        ]
    return lines


def markdown(session: Session) -> str:
    lines = [f"# {session.question}", ""]
    lines.append(
        f"- status: {session.status}\n- policy: {session.policy}"
        + (f" ({session.model})" if session.model else "")
        + f"\n- started: {session.created_at:%Y-%m-%d %H:%M UTC}"
    )
    if session.checkpoint:
        reward = session.held_out_reward
        held_out = "not evaluated" if reward is None else f"held-out reward {reward:.3f}"
        lines.append(f"- checkpoint: {session.checkpoint_label} ({session.checkpoint}, {held_out})")
    failure = session.result.get("failure")
    if failure:
        lines.append(f"- ended: {failure.get('reason', '')}")
    state: dict[str, Any] | None = None
    steps: list[str] = []
    sources: dict[str, str] = {}
    for event in _events(session):
        payload = event.payload
        if event.type == "tool_call":
            args = json.dumps(payload.get("arguments", {}), ensure_ascii=False)
            steps.append(f"{len(steps) + 1}. `{payload.get('name')}` {args[:300]}")
        elif event.type == "tool_result":
            for source in payload.get("sources") or []:
                sources.setdefault(source.get("url", ""), source.get("title", ""))
        elif event.type == "state":
            state = payload.get("state")
    lines += ["", "## Report", "", session.answer or "_no answer_"]
    score = session.result.get("score")
    if score:
        lines += ["", "## Rubric score", "", *_score_lines(score)]
    if state:
        lines += ["", "## Research state", *_state_lines(state)]
    if sources:
        lines += ["", "## Sources read", ""]
        lines += [f"- [{title or url}]({url})" for url, title in sources.items()]
    if steps:
        lines += ["", "## Tool calls", "", *steps]
    return "\n".join(lines) + "\n"


def trajectory_lines(session: Session) -> Iterator[str]:
    """The run's training records as JSON lines (empty while it runs or when it failed early)."""
    stored = Trajectory.objects.filter(session=session).first()
    for record in stored.records if stored is not None else []:
        yield json.dumps(record, ensure_ascii=False) + "\n"
