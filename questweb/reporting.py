"""What Django's error reports may show of the settings (the debug page, error e-mails).

Django hides settings whose names look secret (KEY, TOKEN, PASS …); questweb's secrets also
live in connection strings and endpoint lists (`DATABASE_URL`, `REDIS_URL`, the LLM endpoints
with their keys), which those names do not match.
"""

from __future__ import annotations

import re

from django.views.debug import SafeExceptionReporterFilter


class SettingsFilter(SafeExceptionReporterFilter):
    hidden_settings = re.compile(
        "API|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|ENDPOINT|DATABASE|REDIS|BROKER|"
        "CHANNEL|CACHE|URL|DSN",
        flags=re.IGNORECASE,
    )
