from __future__ import annotations

from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "apps.audit"
    label = "audit"
    verbose_name = "Audit of rubric trees"

    def ready(self) -> None:
        # rubrics sits below audit: an annotator's right to edit a task they hold comes from here.
        # Selectors and rubrics' selectors import models, which load only after this module.
        from apps.audit.selectors.progress import task_held  # noqa: PLC0415
        from apps.rubrics.selectors import task_edit_grant_add  # noqa: PLC0415

        task_edit_grant_add("audit.assignment", task_held)
