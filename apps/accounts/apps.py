from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_roles(sender: AppConfig, **kwargs: Any) -> None:
    # Services import the models, which the app registry loads only after this module.
    from apps.accounts.services import roles_sync  # noqa: PLC0415

    roles_sync()


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        # After auth's own post_migrate handler has created this app's permissions.
        post_migrate.connect(_sync_roles, sender=self, dispatch_uid="accounts.sync_roles")
