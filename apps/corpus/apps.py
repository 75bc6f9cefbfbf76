from __future__ import annotations

from celery.signals import worker_ready
from django.apps import AppConfig


class CorpusConfig(AppConfig):
    name = "apps.corpus"
    label = "corpus"
    verbose_name = "Corpus and search"

    def ready(self) -> None:
        # A cpu worker warms the search engine once it is ready (workers/ sits below the apps,
        # so the app connects itself). Selectors import models, which load only after this.
        from apps.corpus.selectors import warm_search_on_worker  # noqa: PLC0415

        worker_ready.connect(warm_search_on_worker, weak=False, dispatch_uid="corpus.warm_search")
