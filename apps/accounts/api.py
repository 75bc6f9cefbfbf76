from __future__ import annotations

from typing import Any, cast

from django.http import HttpRequest
from ninja import Router, Status

from apps.accounts import selectors, services
from apps.accounts.models import ApiToken, User
from apps.accounts.roles import Capability, Role
from apps.accounts.schemas import MeOut, RolesIn, TokenCreatedOut, TokenIn, TokenOut, UserOut
from apps.common.pagination import WAS_A_BARE_LIST, Page, PageSize, paginate
from apps.common.schemas import Id, PageNumber, errors

router = Router(tags=["accounts"])


def _user_out(user: User) -> UserOut:
    return UserOut(
        id=user.pk,
        username=user.username,
        email=user.email,
        is_active=user.is_active,
        # The role names; the schema validates them into `Role`.
        roles=cast("list[Role]", selectors.user_roles(user=user)),
    )


def _token_out(token: ApiToken) -> TokenOut:
    return TokenOut.model_validate({**token.__dict__, "state": token.state})


@router.get(
    "/me",
    response={200: MeOut, **errors()},
    summary="The calling user with roles, capabilities and permissions",
)
def me(request: HttpRequest) -> MeOut:
    user: User = request.auth  # type: ignore[attr-defined]
    return MeOut(
        id=user.pk,
        username=user.username,
        email=user.email,
        # The names; the schema validates them into `Role` and `Capability`.
        roles=cast("list[Role]", selectors.user_roles(user=user)),
        capabilities=cast("list[Capability]", selectors.user_capabilities(user=user)),
        permissions=selectors.user_permissions(user=user),
    )


@router.get(
    "/tokens",
    response={200: Page[TokenOut], **errors(404, 422)},
    summary="Your API tokens (never the secrets)",
    description=WAS_A_BARE_LIST,
)
def tokens_list(
    request: HttpRequest, page: PageNumber = 1, page_size: PageSize = 100
) -> dict[str, Any]:
    tokens = selectors.token_list(user=request.auth)  # type: ignore[attr-defined]
    return paginate(request, tokens, page=page, page_size=page_size, out=_token_out)


@router.post(
    "/tokens",
    response={201: TokenCreatedOut, **errors(403, 422, body=True)},
    summary="Create an API token",
)
def tokens_create(request: HttpRequest, payload: TokenIn) -> Status[TokenCreatedOut]:
    issued = services.token_create(
        user=request.auth,  # type: ignore[attr-defined]
        name=payload.name,
        expires_in_days=payload.expires_in_days,
    )
    out = _token_out(issued.token)
    return Status(201, TokenCreatedOut(**out.model_dump(), token=issued.secret))


@router.delete(
    "/tokens/{token_id}",
    response={204: None, **errors(403, 404, 422)},
    summary="Revoke an API token",
)
def tokens_revoke(request: HttpRequest, token_id: Id) -> Status[None]:
    services.token_revoke(user=request.auth, token_id=token_id)  # type: ignore[attr-defined]
    return Status(204, None)


@router.get(
    "/users",
    response={200: Page[UserOut], **errors(403, 404, 422)},
    summary="All users with their roles (admin)",
    description=WAS_A_BARE_LIST,
)
def users_list(
    request: HttpRequest, page: PageNumber = 1, page_size: PageSize = 100
) -> dict[str, Any]:
    users = selectors.user_list(actor=request.auth)  # type: ignore[attr-defined]
    return paginate(request, users, page=page, page_size=page_size, out=_user_out)


@router.put(
    "/users/{user_id}/roles",
    response={200: UserOut, **errors(403, 404, 422, body=True)},
    summary="Set a user's roles (admin)",
)
def users_set_roles(request: HttpRequest, user_id: Id, payload: RolesIn) -> UserOut:
    user = services.user_set_roles(
        actor=request.auth,  # type: ignore[attr-defined]
        user_id=user_id,
        roles=payload.roles,
    )
    return _user_out(user)
