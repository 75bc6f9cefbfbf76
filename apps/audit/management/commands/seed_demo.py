"""Create the demo admin and one user per role, so a fresh `make run` can be explored at once.

It lives in audit, the app it ends with (the demo campaign), because it also loads the demo tasks
(rubrics): accounts, where the users are made, sits below both.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from apps.accounts.roles import Role
from apps.accounts.services import user_create
from apps.audit.services import demo_campaign_ensure
from apps.rubrics.services import demo_tasks_load

DEMO_FIXTURES = Path(settings.BASE_DIR) / "fixtures" / "demo"


def _password(name: str) -> str:
    """A demo password, generated once into the data directory and reused on later runs."""
    path = Path(settings.DATA_DIR) / f"demo-{name}-password"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(12))
        path.chmod(0o600)
    return path.read_text().strip()


class Command(BaseCommand):
    help = "Create the demo admin (QUESTWEB_ADMIN_USER / QUESTWEB_ADMIN_PASSWORD) and role users."

    def handle(self, *args: Any, **options: Any) -> None:
        admin_name = os.environ.get("QUESTWEB_ADMIN_USER", "admin")
        admin_password = os.environ.get("QUESTWEB_ADMIN_PASSWORD") or _password("admin")
        admin = user_create(username=admin_name, password=admin_password, roles=[Role.ADMIN])
        admin.is_superuser = True
        admin.save(update_fields=["is_superuser"])
        lines = [f"  {admin_name:<10} {admin_password:<20} admin"]
        for role in (Role.VIEWER, Role.ANNOTATOR, Role.REVIEWER):
            password = _password(role.value)
            user_create(username=role.value, password=password, roles=[role.value])
            lines.append(f"  {role.value:<10} {password:<20} {role.value}")
        for fixture in sorted(DEMO_FIXTURES.glob("*.json")):
            call_command("loaddata", str(fixture), verbosity=0)
        added = sum(demo_tasks_load(path=path) for path in sorted(DEMO_FIXTURES.glob("*.jsonl")))
        self.stdout.write("Demo accounts (user, password, role):\n" + "\n".join(lines))
        self.stdout.write(f"Demo tasks added: {added}")
        campaign = demo_campaign_ensure(admin=admin)
        if campaign is not None:
            self.stdout.write(
                f"Demo audit campaign: {campaign.name} ({campaign.items.count()} tasks)"
            )
