from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from apps.accounts.models import User

pytestmark = pytest.mark.django_db


def test_migrations_create_one_group_per_role_with_cumulative_permissions() -> None:
    perms = {
        g.name: set(g.permissions.values_list("codename", flat=True)) for g in Group.objects.all()
    }
    assert perms == {
        "viewer": {"view_workbench"},
        "annotator": {"view_workbench", "annotate"},
        "reviewer": {"view_workbench", "annotate", "adjudicate"},
        "admin": {"view_workbench", "annotate", "adjudicate", "manage", "use_llm"},
    }


@pytest.mark.parametrize(
    ("role", "permissions", "capabilities"),
    [
        ("viewer", ["view_workbench"], ["view"]),
        ("annotator", ["annotate", "view_workbench"], ["view", "audit"]),
        ("reviewer", ["adjudicate", "annotate", "view_workbench"], ["view", "audit", "adjudicate"]),
        (
            "admin",
            ["adjudicate", "annotate", "manage", "use_llm", "view_workbench"],
            ["view", "audit", "adjudicate", "synthesize", "train", "run_llm", "admin"],
        ),
    ],
)
def test_api_me_returns_the_user_with_roles_permissions_and_capabilities(
    client: Client,
    make_user: Callable[..., User],
    bearer,
    role: str,
    permissions: list[str],
    capabilities: list[str],
) -> None:
    user = make_user(role)
    response = client.get("/api/me", headers=bearer(user))
    assert response.status_code == 200
    body = response.json()
    assert body["username"] == user.username
    assert body["roles"] == [role]
    assert body["permissions"] == permissions
    assert body["capabilities"] == capabilities


def test_api_me_lists_a_superuser_s_few_questweb_permissions_not_every_django_one(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    root = make_user(is_superuser=True)
    body = client.get("/api/me", headers=bearer(root)).json()
    assert body["permissions"] == ["adjudicate", "annotate", "manage", "use_llm", "view_workbench"]
    assert body["capabilities"] == [
        "view",
        "audit",
        "adjudicate",
        "synthesize",
        "train",
        "run_llm",
        "admin",
    ]


def test_a_granted_llm_permission_shows_as_the_run_llm_capability(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    from django.contrib.auth.models import Permission

    viewer = make_user("viewer")
    viewer.user_permissions.add(Permission.objects.get(codename="use_llm"))
    body = client.get("/api/me", headers=bearer(viewer)).json()
    assert body["capabilities"] == ["view", "run_llm"]


def test_a_viewer_calling_an_admin_endpoint_gets_403_with_a_reason(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    viewer = make_user("viewer")
    response = client.get("/api/users", headers=bearer(viewer))
    assert response.status_code == 403
    assert response.json() == {"detail": "this needs the admin role"}


def test_an_admin_sets_roles_and_the_user_gains_their_permissions(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    admin, someone = make_user("admin"), make_user("viewer")
    response = client.put(
        f"/api/users/{someone.pk}/roles",
        data={"roles": ["annotator"]},
        content_type="application/json",
        headers=bearer(admin),
    )
    assert response.status_code == 200
    assert response.json()["roles"] == ["annotator"]
    someone = User.objects.get(pk=someone.pk)
    assert someone.has_perm("accounts.annotate")
    assert not someone.has_perm("accounts.manage")


def test_an_unknown_role_is_rejected_and_nothing_changes(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    admin, someone = make_user("admin"), make_user("viewer")
    response = client.put(
        f"/api/users/{someone.pk}/roles",
        data={"roles": ["annotator", "overlord"]},
        content_type="application/json",
        headers=bearer(admin),
    )
    assert response.status_code == 422
    [error] = response.json()["errors"]  # the schema lists the roles there are
    assert error["loc"][-2:] == ["roles", 1] and "'admin'" in error["msg"]
    assert list(someone.groups.values_list("name", flat=True)) == ["viewer"]


def test_an_admin_cannot_remove_their_own_admin_role(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    admin = make_user("admin")
    response = client.put(
        f"/api/users/{admin.pk}/roles",
        data={"roles": ["viewer"]},
        content_type="application/json",
        headers=bearer(admin),
    )
    assert response.status_code == 422
    assert User.objects.get(pk=admin.pk).has_perm("accounts.manage")


def test_setting_roles_of_a_missing_user_is_404(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    response = client.put(
        "/api/users/999999/roles",
        data={"roles": []},
        content_type="application/json",
        headers=bearer(make_user("admin")),
    )
    assert response.status_code == 404


def test_the_admin_user_list_shows_everyones_roles(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    admin = make_user("admin", username="ada")
    make_user("annotator", username="bob")
    response = client.get("/api/users", headers=bearer(admin))
    assert [(u["username"], u["roles"]) for u in response.json()["results"]] == [
        ("ada", ["admin"]),
        ("bob", ["annotator"]),
    ]


def test_a_superuser_holds_every_role(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    root = make_user(is_superuser=True)
    assert client.get("/api/me", headers=bearer(root)).json()["roles"] == [
        "viewer",
        "annotator",
        "reviewer",
        "admin",
    ]
