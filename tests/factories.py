from __future__ import annotations

from typing import Any

import factory
from django.contrib.auth.models import Group

from apps.accounts.models import User

PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def roles(self, create: bool, extracted: list[str] | None, **kwargs: Any) -> None:
        if create and extracted:
            self.groups.set(Group.objects.filter(name__in=extracted))
        if create:
            self.save()


class ProbeRunFactory(factory.django.DjangoModelFactory):
    """A finished probe run of `version`; sound unless told otherwise. Tests of the training gate
    use it: the probes themselves are tested against the real corpus in tests/rubrics."""

    class Meta:
        model = "rubrics.ProbeRun"

    version: Any = None
    task = factory.SelfAttribute("version.task")
    status = "done"
    verdict = "sound"


class SynthesisBatchFactory(factory.django.DjangoModelFactory):
    """A finished batch row; tests of the run itself use the real engine (tests/synthesis)."""

    class Meta:
        model = "synthesis.SynthesisBatch"

    spec = factory.LazyFunction(
        lambda: {
            "generator": "kg",
            "count": 2,
            "seed": 0,
            "categories": {},
            "classes": {},
            "baseline": False,
        }
    )
    status = "done"
    total = 2


class SynthesisCandidateFactory(factory.django.DjangoModelFactory):
    """A candidate of `batch` with `record` (a task in the import format); rejected by the funnel
    at the duplicate stage unless told otherwise, and with no task."""

    class Meta:
        model = "synthesis.SynthesisCandidate"

    batch = factory.SubFactory(SynthesisBatchFactory)
    index = factory.Sequence(lambda n: n)
    record: Any = factory.LazyFunction(dict)
    question = factory.LazyAttribute(lambda c: c.record.get("question", ""))
    target_class = "C1"
    complexity = "C1"
    accepted = False
    rejected_at = "duplicate"
    reason = "a near-duplicate of an earlier task"
    stages = factory.LazyFunction(
        lambda: [
            {"name": "schema", "passed": True, "reason": "valid", "detail": {}},
            {"name": "duplicate", "passed": False, "reason": "a near-duplicate", "detail": {}},
        ]
    )
