from __future__ import annotations

import hashlib
import secrets
from collections.abc import Collection
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import ApiToken, User
from apps.accounts.permissions import require_role
from apps.accounts.roles import ROLE_PERMISSIONS, Role
from apps.common.errors import Invalid, NotAuthenticated, NotFound

MAX_TOKEN_DAYS = 3650
MAX_ACTIVE_TOKENS = 50
# Writing last_used_at on every request would turn every API read into a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def _digest(raw: str) -> str:
    # Tokens carry 256 bits of randomness, so a fast hash is enough (no password stretching).
    return hashlib.sha256(raw.encode()).hexdigest()


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    secret: str


def token_create(*, user: User, name: str, expires_in_days: int | None = None) -> IssuedToken:
    name = name.strip()
    if not name or len(name) > 100:
        raise Invalid("token name must be 1 to 100 characters")
    if expires_in_days is not None and not 1 <= expires_in_days <= MAX_TOKEN_DAYS:
        raise Invalid(f"expires_in_days must be between 1 and {MAX_TOKEN_DAYS}")
    active = ApiToken.objects.filter(user=user, revoked_at__isnull=True).count()
    if active >= MAX_ACTIVE_TOKENS:
        raise Invalid(f"at most {MAX_ACTIVE_TOKENS} active tokens; revoke one first")
    secret = settings.API_TOKEN_PREFIX + secrets.token_urlsafe(32)
    expires_at = timezone.now() + timedelta(days=expires_in_days) if expires_in_days else None
    token = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=secret[:11],
        digest=_digest(secret),
        expires_at=expires_at,
    )
    return IssuedToken(token=token, secret=secret)


def token_revoke(*, user: User, token_id: int) -> ApiToken:
    token = ApiToken.objects.filter(user=user, pk=token_id).first()
    if token is None:
        raise NotFound(f"no token {token_id} for this user")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def token_authenticate(*, secret: str) -> User:
    """The active user behind an API token; NotAuthenticated says why a token is refused."""
    if not secret.startswith(settings.API_TOKEN_PREFIX) or len(secret) > 200:
        raise NotAuthenticated("malformed API token")
    token = ApiToken.objects.select_related("user").filter(digest=_digest(secret)).first()
    if token is None:
        raise NotAuthenticated("unknown API token")
    if token.state != "active":
        raise NotAuthenticated(f"API token {token.state}")
    if not token.user.is_active:
        raise NotAuthenticated("user is inactive")
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


@transaction.atomic
def roles_sync() -> None:
    """Create the role groups and give each exactly its permissions (idempotent)."""
    for role, codenames in ROLE_PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=role.value)
        perms = Permission.objects.filter(
            content_type__app_label="accounts", codename__in=codenames
        )
        group.permissions.set(perms)


@transaction.atomic
def user_set_roles(*, actor: User, user_id: int, roles: Collection[str]) -> User:
    require_role(actor, Role.ADMIN)
    unknown = sorted(set(roles) - {role.value for role in Role})
    if unknown:
        raise Invalid(f"unknown roles: {', '.join(unknown)} (known: {', '.join(Role)})")
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        raise NotFound(f"no user {user_id}")
    if user.pk == actor.pk and Role.ADMIN.value not in roles and not actor.is_superuser:
        raise Invalid("you cannot remove your own admin role")
    user.groups.set(Group.objects.filter(name__in=roles))
    return user


@transaction.atomic
def user_create(*, username: str, password: str, roles: list[str], email: str = "") -> User:
    """Create or update a user with exactly these roles (used by the demo seed and admins)."""
    user, _ = User.objects.get_or_create(username=username, defaults={"email": email})
    user.set_password(password)
    user.is_staff = Role.ADMIN.value in roles
    user.save()
    user.groups.set(Group.objects.filter(name__in=roles))
    return user
