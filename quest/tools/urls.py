"""The shape a URL must have before any tool fetches or looks it up: http(s), a host, no path
traversal, no credentials, no control characters, not absurdly long. Where the host points is
the network guard's business (quest/tools/netguard.py)."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from quest.protocol.results import ToolError

MAX_URL_CHARS = 2_048
ALLOWED_SCHEMES = frozenset({"http", "https"})
_HOST = re.compile(r"^(?:[\w-]+(?:\.[\w-]+)*\.?|[0-9a-f:.]+)$")


def check_url(url: str, max_chars: int = MAX_URL_CHARS) -> str:
    """`url` stripped of surrounding whitespace, or ToolError saying why it is refused."""
    url = url.strip()
    if not url:
        raise ToolError("the URL is empty")
    if len(url) > max_chars:
        raise ToolError(f"the URL is {len(url):,} characters long; the limit is {max_chars:,}")
    if any(ord(char) < 0x21 or ord(char) == 0x7F for char in url):
        raise ToolError("the URL contains spaces or control characters")
    if "\\" in url:
        raise ToolError("the URL contains a backslash (path traversal is refused)")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (urlsplit checks the port only when it is read)
    except ValueError as error:
        raise ToolError(f"the URL cannot be parsed ({error})") from None
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        shown = f"'{scheme}:'" if scheme else "no scheme"
        raise ToolError(f"the URL has {shown}; only http:// and https:// URLs can be visited")
    if not parts.hostname:
        raise ToolError("the URL has no host")
    if not _HOST.match(parts.hostname):
        raise ToolError("the URL's host name has characters a host name cannot have")
    if parts.username is not None or parts.password is not None:
        raise ToolError("URLs with a user name or password are not visited")
    if _traverses(parts.path):
        raise ToolError("the URL's path contains '..' (path traversal)")
    return url


def _traverses(path: str) -> bool:
    """True when any path segment is `..`, however many times it was percent-encoded."""
    for _ in range(4):
        segments = path.replace("\\", "/").split("/")
        if ".." in segments:
            return True
        decoded = unquote(path)
        if decoded == path:
            return False
        path = decoded
    return True
