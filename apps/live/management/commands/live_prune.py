from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from apps.live.models import ACTIVE_STATUSES, Session
from apps.live.services import events_prune

DEFAULT_TYPES = "thought,tool_result"


class Command(BaseCommand):
    help = (
        "Delete bulky events (by default thoughts and tool results) of sessions that ended more "
        "than N days ago. Viewers and replays of those sessions are told about the gaps."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--older-than-days", type=int, required=True)
        parser.add_argument("--types", default=DEFAULT_TYPES, help=f"default {DEFAULT_TYPES}")

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["older_than_days"]
        if days < 0:
            raise CommandError("--older-than-days must be 0 or more")
        types = tuple(t.strip() for t in options["types"].split(",") if t.strip())
        if not types or {"finished", "answer", "started"} & set(types):
            raise CommandError("--types must name event types other than started/answer/finished")
        cutoff = timezone.now() - timedelta(days=days)
        sessions = Session.objects.exclude(status__in=ACTIVE_STATUSES).filter(
            finished_at__lt=cutoff
        )
        deleted = sum(
            events_prune(session_id=pk, types=types) for pk in sessions.values_list("pk", flat=True)
        )
        self.stdout.write(f"deleted {deleted} events from {sessions.count()} sessions")
