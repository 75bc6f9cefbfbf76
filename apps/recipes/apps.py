from __future__ import annotations

from django.apps import AppConfig


class RecipesConfig(AppConfig):
    name = "apps.recipes"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A stage's work ending moves its recipe on at once, not at the next beat. The tasks
        # import the models, which the app registry loads only after this module.
        from apps.recipes import tasks  # noqa: PLC0415

        tasks.connect_stage_hooks()
