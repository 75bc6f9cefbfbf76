from __future__ import annotations

from datetime import datetime
from typing import Literal

from ninja import Field, Schema

from apps.accounts.roles import Capability, Role
from apps.accounts.services import MAX_TOKEN_DAYS
from apps.common.schemas import Text


class MeOut(Schema):
    id: int
    username: str
    email: str
    roles: list[Role]
    capabilities: list[Capability] = Field(
        description="What the user can do (view, audit, adjudicate, synthesize, train, run_llm, "
        "admin)"
    )
    permissions: list[str] = Field(description="questweb's permission codenames the user holds")


class TokenIn(Schema):
    name: Text = Field(min_length=1, max_length=100)
    expires_in_days: int | None = Field(default=None, ge=1, le=MAX_TOKEN_DAYS)


class TokenOut(Schema):
    id: int
    name: str
    prefix: str
    state: Literal["active", "expired", "revoked"]
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    revoked_at: datetime | None


class TokenCreatedOut(TokenOut):
    token: str = Field(description="The secret token. Shown only in this response.")


class UserOut(Schema):
    id: int
    username: str
    email: str
    is_active: bool
    roles: list[Role]


class RolesIn(Schema):
    roles: list[Role] = Field(description="Exactly the roles the user will hold")
