"""A recipe's YAML config nested past the bound (issue 29) is a 422 that says so, over REST and
on the form, and nothing is saved: it used to be a RecursionError, a 500."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.recipes.models import Recipe
from apps.synthesis.models import SynthesisBatch

pytestmark = pytest.mark.django_db

DEEP = {
    "a list": "[" * 5000 + "]" * 5000,
    "a mapping": "synth: " + "{a: " * 3000 + "1" + "}" * 3000,
    "block sequences": "- " * 3000 + "1",
}


@pytest.mark.parametrize("config", DEEP.values(), ids=DEEP.keys())
def test_a_config_nested_too_deep_is_a_422_over_rest(
    client: Client, admin: User, bearer: Callable[[User], dict[str, str]], config: str
) -> None:
    response = client.post(
        "/api/recipes",
        json.dumps({"name": "deep", "config": config}),
        content_type="application/json",
        headers=bearer(admin),
    )
    assert response.status_code == 422
    assert response.json()["detail"].startswith("config: nested deeper than 64 levels (line ")
    assert not Recipe.objects.exists() and not SynthesisBatch.objects.exists()


@pytest.mark.parametrize("config", DEEP.values(), ids=DEEP.keys())
def test_a_config_nested_too_deep_comes_back_on_the_form_saying_why(
    client: Client, admin: User, config: str
) -> None:
    client.force_login(admin)
    response = client.post("/recipes/", {"name": "kept", "config": config})
    html = response.content.decode()
    assert response.status_code == 422
    assert "config: nested deeper than 64 levels" in html and 'value="kept"' in html
    assert not Recipe.objects.exists() and not SynthesisBatch.objects.exists()
