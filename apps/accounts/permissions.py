from __future__ import annotations

from typing import Any

from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.common.errors import Forbidden, NotAuthenticated


def require_role(user: Any, role: Role) -> None:
    """Raise unless `user` holds `role` or a role above it."""
    if user is None or not user.is_authenticated:
        raise NotAuthenticated("authentication required")
    if not user.is_active or not user.has_perm(ROLE_REQUIREMENT[role]):
        raise Forbidden(f"this needs the {role.value} role")
