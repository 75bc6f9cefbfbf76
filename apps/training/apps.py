from __future__ import annotations

from django.apps import AppConfig


class TrainingConfig(AppConfig):
    name = "apps.training"
    label = "training"
    verbose_name = "Training datasets, jobs and evaluations"
