from __future__ import annotations

from django.apps import AppConfig


class SynthesisConfig(AppConfig):
    name = "apps.synthesis"
    label = "synthesis"
    verbose_name = "Task synthesis batches"
