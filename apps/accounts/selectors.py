from __future__ import annotations

from django.db.models import QuerySet

from apps.accounts.models import ApiToken, User
from apps.accounts.permissions import require_role
from apps.accounts.roles import CAPABILITY_PERMISSIONS, PERMISSIONS, Role


def user_roles(*, user: User) -> list[str]:
    """The user's roles, lowest first; a superuser holds every role."""
    if user.is_superuser:
        return [role.value for role in Role]
    names = {group.name for group in user.groups.all()}  # uses a prefetch when there is one
    return [role.value for role in Role if role.value in names]


def user_permissions(*, user: User) -> list[str]:
    """questweb's own permission codenames the user holds (not Django's per-model ones)."""
    return [code for code in sorted(PERMISSIONS) if user.has_perm(f"accounts.{code}")]


def user_capabilities(*, user: User) -> list[str]:
    """What the user can do (`view`, `audit`, … `admin`), in the order of `Capability`."""
    held = set(user_permissions(user=user))
    return [cap.value for cap, code in CAPABILITY_PERMISSIONS.items() if code in held]


def token_list(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-pk")


def user_list(*, actor: User) -> QuerySet[User]:
    require_role(actor, Role.ADMIN)
    return User.objects.order_by("username").prefetch_related("groups")
