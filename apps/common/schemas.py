"""What every API operation shares: bounded integers, storable text and the bodies of its error
responses.

An integer the API reads goes into a query, and PostgreSQL's bigint stops at 2**63 - 1: past it
a lookup is a 500 (SQLite's driver refuses the value outright). So every id, count and number is
bounded here, at the door, and a value out of range is a 422 naming the parameter. Text is the
same: PostgreSQL stores no NUL character in a text column and neither NUL nor a lone surrogate
in jsonb, so every string and JSON object a request schema reads is `Text` or `JsonObject` (or
checked by its service, as task records and rubric trees are), and one that holds them is a 422
naming the field (tests/test_storable_input.py checks every schema).
"""

from __future__ import annotations

from typing import Annotated, Any

from ninja import Field, Schema
from pydantic import AfterValidator, TypeAdapter
from pydantic_core import PydanticCustomError

from apps.common.storable import unstorable

BIGINT_MAX = 2**63 - 1
# PositiveIntegerField is PostgreSQL's integer: version numbers, revisions, sequence numbers.
INTEGER_MAX = 2**31 - 1

# A row's primary key (BigAutoField).
Id = Annotated[int, Field(ge=1, le=BIGINT_MAX)]
# A page of a list, a version number, a draft revision or an event's sequence number.
PageNumber = Annotated[int, Field(ge=1, le=INTEGER_MAX)]
VersionNumber = Annotated[int, Field(ge=1, le=INTEGER_MAX)]
Revision = Annotated[int, Field(ge=0, le=INTEGER_MAX, strict=True)]
Seq = Annotated[int, Field(ge=0, le=INTEGER_MAX)]


def _storable(value: Any) -> Any:
    problem = unstorable(value, field="")
    if problem is not None:
        raise PydanticCustomError("unstorable", "{problem}", {"problem": problem.strip()})
    return value


# Refuses a value PostgreSQL cannot store, anywhere inside it (apps/common/storable.py).
Storable = AfterValidator(_storable)
# A string a request sends: no NUL character (a str is valid Unicode already).
Text = Annotated[str, Storable]
# A JSON object a request sends, checked all the way down, keys included.
JsonObject = Annotated[dict[str, Any], Storable]


class ErrorOut(Schema):
    detail: str = Field(description="What went wrong, in words")


class FieldErrorOut(Schema):
    loc: list[str | int] = Field(description='Where: e.g. ["body", "payload", "name"]')
    msg: str


class InvalidOut(ErrorOut):
    errors: list[FieldErrorOut] = Field(
        default_factory=list,
        description="Present when the request failed validation: one entry per bad field",
    )


def errors(*codes: int, body: bool = False) -> dict[int, Any]:
    """The error responses of an operation, each with the body questweb/api.py's handlers write.
    401 always: every operation needs a token or a session. `codes`: what its services raise
    (403 for a missing role or a failed CSRF check, 404, 409) and 422 wherever a parameter or
    the service can refuse the input. body=True: an operation that reads a request body, which
    may be 400 (not parseable) or 413 (over the size limit)."""
    wanted = {401, *codes, *((400, 413) if body else ())}
    return {code: InvalidOut if code == 422 else ErrorOut for code in sorted(wanted)}


def read_body_as(shape: Any, *, description: str) -> dict[str, Any]:
    """openapi_extra for an operation that reads its JSON body itself (with rules of its own
    that a schema would pre-empt): `shape`'s schema is published as the request body, with its
    definitions written in place, since ninja lists only the models it validates."""
    schema = TypeAdapter(shape).json_schema()
    definitions = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            here = {key: inline(value) for key, value in node.items() if key != "$ref"}
            if "$ref" in node:
                return {**inline(definitions[node["$ref"].rsplit("/", 1)[-1]]), **here}
            return here
        if isinstance(node, list):
            return [inline(value) for value in node]
        return node

    content = {"application/json": {"schema": inline(schema)}}
    return {"requestBody": {"content": content, "required": True, "description": description}}
