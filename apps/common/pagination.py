"""One envelope for every list the API returns (issue 38):
`{count, page, pages, next, previous, results}`.

`next` and `previous` are relative URLs, the request's own path and query with only the page
changed (as DRF's pagination writes them), or null: a client pages by following them and never
builds a URL. A page past the end is a 404 that says how many pages there are. Django's
`Paginator.get_page` would answer the last page again, and a client asking for page 99 of 3 would
take page 3 for it. Page 1 of an empty list is a 200 with count 0: "nothing yet" is an answer.

`/api/audit/training-tasks` pages by offset and limit since before the envelope; `paginate_offset`
keeps those parameters working for one release, with links in the same terms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Generic, TypeAlias, TypeVar

from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Field, Schema

from apps.common.errors import NotFound
from apps.common.schemas import INTEGER_MAX

T = TypeVar("T")

# The offset and limit of the deprecated offset paging (training-tasks only).
Offset = Annotated[int, Field(ge=0, le=INTEGER_MAX)]
Limit = Annotated[int, Field(ge=1, le=1000)]
# The same as optional query parameters, marked deprecated in their schema (json_schema_extra,
# not pydantic's `deprecated`, which would warn on every read); questweb/api.py lifts the mark
# onto the parameter.
OldOffset = Annotated[
    Offset | None,
    Field(
        description="Deprecated (issue 38): send page; kept for one release",
        json_schema_extra={"deprecated": True},
    ),
]
OldLimit = Annotated[
    Limit | None,
    Field(
        description="Deprecated (issue 38): send page_size; kept for one release",
        json_schema_extra={"deprecated": True},
    ),
]
# How many items a page holds, for a list whose app sets no bound of its own.
PageSize = Annotated[int, Field(ge=1, le=1000)]

Items: TypeAlias = QuerySet[Any] | Sequence[Any]

# The description of an operation that answered a bare JSON array before the envelope.
WAS_A_BARE_LIST = (
    "One page of the list envelope (count, page, pages, next, previous, results). Changed by "
    "issue 38: this operation answered a bare JSON array before; read `results`, and follow "
    "`next` for the rest of the list."
)


class Page(Schema, Generic[T]):
    """A page of a list; `Page[ItemOut]` is the response of every list operation."""

    count: int = Field(description="How many items the whole list holds, on every page")
    page: int = Field(description="This page's number, from 1")
    pages: int = Field(description="How many pages there are (1 for an empty list)")
    next: str | None = Field(
        description="The next page: this request's path and query with the page changed; "
        "null on the last page"
    )
    previous: str | None = Field(description="The page before, the same way; null on the first")
    results: list[T]


def _count(items: Items) -> int:
    return items.count() if isinstance(items, QuerySet) else len(items)


def _link(request: HttpRequest, **changes: int) -> str:
    query = request.GET.copy()
    for name, value in changes.items():
        query[name] = str(value)
    return f"{request.path}?{query.urlencode()}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _envelope(
    items: Items, count: int, start: int, size: int, out: Callable[[Any], Any]
) -> dict[str, Any]:
    return {
        "count": count,
        "page": start // size + 1,
        "pages": max(1, -(-count // size)),
        "results": [out(item) for item in items[start : start + size]],
    }


def paginate(
    request: HttpRequest,
    items: Items,
    *,
    page: int,
    page_size: int,
    out: Callable[[Any], Any] = lambda item: item,
) -> dict[str, Any]:
    """Page `page` of `items` (ordered), each item passed through `out`, in the envelope."""
    count = _count(items)
    pages = max(1, -(-count // page_size))
    if page > pages:
        raise NotFound(
            f"page {page} is past the end: there {'is' if pages == 1 else 'are'} "
            f"{_plural(pages, 'page')} ({_plural(count, 'item')}, {page_size} a page)"
        )
    found = _envelope(items, count, (page - 1) * page_size, page_size, out)
    found["next"] = _link(request, page=page + 1) if page < pages else None
    found["previous"] = _link(request, page=page - 1) if page > 1 else None
    return found


def paginate_offset(
    request: HttpRequest,
    items: Items,
    *,
    offset: int,
    limit: int,
    out: Callable[[Any], Any] = lambda item: item,
) -> dict[str, Any]:
    """The deprecated offset paging: `limit` items from `offset`, in the same envelope, with
    links that move the offset."""
    count = _count(items)
    if offset and offset >= count:
        raise NotFound(
            f"offset {offset} is past the end: there {'is' if count == 1 else 'are'} "
            f"{_plural(count, 'item')}"
        )
    found = _envelope(items, count, offset, limit, out)
    after, before = offset + limit, max(offset - limit, 0)
    found["next"] = _link(request, offset=after, limit=limit) if after < count else None
    found["previous"] = _link(request, offset=before, limit=limit) if offset else None
    return found
