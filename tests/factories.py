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
