from __future__ import annotations

from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules


class JobsConfig(AppConfig):
    name = "apps.jobs"
    label = "jobs"
    verbose_name = "Jobs"

    def ready(self) -> None:
        # Each app declares its job kinds in its own `jobs.py` (as Django's admin does with
        # admin.py): the registry knows every kind before the first request or task.
        autodiscover_modules("jobs")
