"""Issue an API token for a user from the shell (scripts, CI, a first admin without a browser).

Only the secret is printed, on stdout, so `TOKEN=$(python manage.py token_issue admin)` works;
the token is listed and revocable on the user's settings page like any other.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.accounts.models import User
from apps.accounts.services import token_create
from apps.common.errors import Invalid


class Command(BaseCommand):
    help = "Issue an API token for USERNAME and print its secret (shown only this once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="cli", help="the token's label (default: cli)")
        parser.add_argument("--days", type=int, default=None, help="expire after this many days")

    def handle(self, *args: Any, **options: Any) -> None:
        user = User.objects.filter(username=options["username"], is_active=True).first()
        if user is None:
            raise CommandError(f"no active user named {options['username']!r}")
        try:
            issued = token_create(user=user, name=options["name"], expires_in_days=options["days"])
        except Invalid as error:
            raise CommandError(str(error)) from error
        self.stdout.write(issued.secret)
