"""Streaming a large download under WSGI and ASGI alike.

Django's ASGI handler buffers a synchronous iterator whole before sending it (and warns), and
its WSGI handler does the same with an asynchronous one; a 10,000-task export must do neither.
So the response gets the iterator its server can consume piece by piece, and under ASGI each
chunk's database reads run in Django's sync thread.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, StreamingHttpResponse

_DONE = b""


def _next(chunks: Iterator[bytes]) -> bytes:
    return next(chunks, _DONE)


async def _async_chunks(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    while True:
        chunk = await sync_to_async(_next, thread_sensitive=True)(chunks)
        if chunk is _DONE:
            return
        yield chunk


def stream_response(
    request: HttpRequest, chunks: Iterator[bytes], filename: str
) -> StreamingHttpResponse:
    content = _async_chunks(chunks) if isinstance(request, ASGIRequest) else chunks
    response = StreamingHttpResponse(content, content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Accel-Buffering"] = "no"
    return response
