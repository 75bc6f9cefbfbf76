from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.corpus.services import corpus_bootstrap, corpus_recover_interrupted


class Command(BaseCommand):
    help = "Queue the offline corpus (Wikipedia + geography) and its indexes when none exists."

    def handle(self, *args: Any, **options: Any) -> None:
        if settings.EMBEDDED:
            for job in corpus_recover_interrupted():
                self.stdout.write(f"Corpus: restarted the interrupted job {job.get_kind_display()}")
        jobs = corpus_bootstrap()
        if jobs:
            names = ", ".join(job.get_kind_display() for job in jobs)
            self.stdout.write(f"Corpus: queued {names}; follow progress on /corpus/")
        else:
            self.stdout.write("Corpus: already present or being built")
