"""What the app's websocket consumers share: the close codes they refuse with and reading
their `?after=` resume point."""

from __future__ import annotations

from urllib.parse import parse_qs

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_BAD_REQUEST = 4400


def after_param(query_string: bytes, *, default: int, lowest: int) -> int | None:
    """The `after` query parameter (the last item the viewer has), `default` when absent;
    None when it is not a whole number of at least `lowest`."""
    values = parse_qs(query_string.decode("latin-1")).get("after", [str(default)])
    try:
        after = int(values[-1])
    except ValueError:
        return None
    return after if after >= lowest else None
