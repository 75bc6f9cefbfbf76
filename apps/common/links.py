"""Which user-supplied URLs may become links: http and https only.

Anything else (javascript:, data:, vbscript:, a relative path) is shown as text. A browser drops
leading and trailing spaces and control characters, and tabs and newlines anywhere (WHATWG URL
parsing), so " java\tscript:" runs as javascript: — the test is on the URL cleaned the same way,
and a link gets that cleaned form.
"""

from __future__ import annotations

import re
from typing import Any

_C0_AND_SPACE = "".join(chr(code) for code in range(0x21))
_TAB_OR_NEWLINE = re.compile(r"[\t\n\r]")
_LINKABLE = re.compile(r"https?://[^/?#\\\s]", re.IGNORECASE)


def http_url(value: Any) -> str | None:
    """`value` as a URL safe to put in href (http or https, with a host), or None."""
    if not isinstance(value, str):
        return None
    url = _TAB_OR_NEWLINE.sub("", value.strip(_C0_AND_SPACE))
    return url if _LINKABLE.match(url) else None
