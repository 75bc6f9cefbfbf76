from __future__ import annotations

from django.apps import AppConfig

from apps.live.checkpoints import checkpoint_source_set


class TrainingConfig(AppConfig):
    name = "apps.training"
    label = "training"
    verbose_name = "Training datasets, jobs and evaluations"

    def ready(self) -> None:
        # A live session may run an ended run's checkpoint; apps.live sits below this app, so
        # the checkpoints are handed down through this source. Selectors import the models,
        # which the registry loads only after this module.
        from apps.training.selectors import live_checkpoints  # noqa: PLC0415

        checkpoint_source_set("training.TrainingJob", live_checkpoints)
