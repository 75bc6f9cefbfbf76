"""/healthz's details for an admin calling with an API token, as a monitor does; any other token,
a revoked one or a forged one reads what an anonymous caller reads, and never an error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis
from django.test import Client

DETAILS = {"version", "mode", "busy_with"}


@pytest.mark.django_db
def test_an_admin_token_reads_the_details_and_other_tokens_read_states_only(
    client: Client,
    make_user: Callable[..., Any],
    bearer: Callable[[Any], dict[str, str]],
    redis_client: redis.Redis,
) -> None:
    admin = bearer(make_user("admin"))
    viewer = bearer(make_user("viewer"))
    as_admin = client.get("/healthz", headers=admin).json()
    assert set(as_admin) >= DETAILS
    anonymous = set(client.get("/healthz").json())
    assert not DETAILS & anonymous
    for headers in (
        viewer,
        {"Authorization": "Bearer qw_forged-token"},
        {"Authorization": "Bearer " + "x" * 5000},
        {"Authorization": "Basic YWRtaW46YWRtaW4="},
        {"Authorization": admin["Authorization"].replace("Bearer ", "Bearer  ")[:-1]},
    ):
        response = client.get("/healthz", headers=headers)
        assert response.status_code in (200, 503)
        assert set(response.json()) == anonymous, headers
