"""Keeps API tokens out of every log line, whatever logged them."""

from __future__ import annotations

import logging
import re

# Our tokens (qw_…) anywhere, and any bearer credential after an Authorization scheme.
_SECRET = re.compile(r"qw_[A-Za-z0-9_\-]{8,}|(?i:bearer)\s+[A-Za-z0-9._~+/=\-]+")


def redact(text: str) -> str:
    return _SECRET.sub("[redacted]", text)


class RedactTokensFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
