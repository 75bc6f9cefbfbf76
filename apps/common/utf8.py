"""Text from outside must be UTF-8: a query parameter, a form field or a JSON body holding
bytes that are not is refused with the field that holds them.

Django decodes query strings and form fields with errors="replace", so such bytes used to be
stored as U+FFFD, silently. Here they are decoded with a codec that keeps each bad byte as a
lone surrogate (Python's "surrogateescape"): text that was valid UTF-8 can never hold one, so
finding one names the field. File parts of a multipart body are bytes, not text, and are left
to the importers that read them.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterable
from typing import Any

from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest, QueryDict
from django.http.multipartparser import MultiPartParser

from apps.common.storable import printable

MARKED = "questweb_marked_utf8"
_BAD_BYTE = re.compile("[\udc80-\udcff]")
NAME_SHOWN = 100


def _decode(data: Any, errors: str = "strict") -> tuple[str, int]:
    # `errors` is ignored on purpose: Django asks for "replace", which would hide the bad bytes.
    return codecs.utf_8_decode(data, "surrogateescape", True)


def _encode(text: str, errors: str = "strict") -> tuple[bytes, int]:
    return codecs.utf_8_encode(text, "surrogateescape")


def _search(name: str) -> codecs.CodecInfo | None:
    return codecs.CodecInfo(_encode, _decode, name=MARKED) if name == MARKED else None


def register_codec() -> None:
    """Make the marking codec known to Python (idempotent)."""
    try:
        codecs.lookup(MARKED)
    except LookupError:
        codecs.register(_search)


class MarkedMultipartHandler(FileUploadHandler):
    """The first upload handler of a request: it parses the multipart body with the other
    handlers, as Django would, but decodes field values with the marking codec. Files go to
    the other handlers byte for byte."""

    def __init__(self, request: HttpRequest) -> None:
        super().__init__(request)
        self.others = list(request.upload_handlers)

    def handle_raw_input(
        self,
        input_data: Any,
        META: dict[str, Any],
        content_length: int,
        boundary: bytes,  # type: ignore[override]  # Django passes bytes; the stub says str
        encoding: str | None = None,
    ) -> tuple[QueryDict, Any]:
        parser = MultiPartParser(META, input_data, self.others, MARKED)
        post, files = parser.parse()
        return post, files

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        return raw_data  # never called: handle_raw_input parsed everything

    def file_complete(self, file_size: int) -> None:
        return None


def mark_multipart(request: HttpRequest) -> None:
    """Parse this request's multipart form, when it is read, with MarkedMultipartHandler (only
    a POST's is: Django parses no other)."""
    if request.method == "POST" and request.content_type == "multipart/form-data":
        request.upload_handlers = [MarkedMultipartHandler(request)]


def _shown(name: str) -> str:
    return f"'{printable(name)[:NAME_SHOWN]}'"


def invalid_field(kind: str, pairs: Iterable[tuple[str, list[str]]]) -> str | None:
    """Why the first of (name, values) decoded with the marking codec is not UTF-8, or None."""
    for name, values in pairs:
        if _BAD_BYTE.search(name):
            return f"a {kind}'s name is not valid UTF-8"
        if any(_BAD_BYTE.search(value) for value in values):
            return f"{kind} {_shown(name)} is not valid UTF-8"
    return None


def invalid_urlencoded(kind: str, raw: bytes) -> str | None:
    """Why a query string or urlencoded body holds a field that is not UTF-8, or None."""
    if raw.isascii() and b"%" not in raw:
        return None  # the common case: nothing that could decode badly
    return invalid_field(kind, QueryDict(raw, encoding=MARKED).lists())


def invalid_json(raw: bytes) -> str | None:
    """Why a JSON body is not UTF-8, naming the field whose string holds the bad bytes where
    the rest parses; None when it is UTF-8."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return None
    try:
        document = json.loads(raw.decode(MARKED))
    except (ValueError, RecursionError):
        document = None
    return _json_problem(document)


def _json_problem(document: Any) -> str:
    """Where the first marked byte of a parsed body is (iterative: JSON may nest as deep as
    the parser allows)."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str) and _BAD_BYTE.search(value) and path:
            return f"field {_shown(path)} is not valid UTF-8"
        children: list[tuple[str, Any]] = []
        if isinstance(value, dict):
            if any(_BAD_BYTE.search(key) for key in value):
                where = f"field {_shown(path)}" if path else "the JSON body"
                return f"a key in {where} is not valid UTF-8"
            children = [(f"{path}.{key}" if path else key, v) for key, v in value.items()]
        elif isinstance(value, list):
            children = [(f"{path}[{index}]", v) for index, v in enumerate(value)]
        stack.extend(reversed(children))
    return "the JSON body is not valid UTF-8"
