from __future__ import annotations

from django.apps import AppConfig

from apps.common import llm


class LiveConfig(AppConfig):
    name = "apps.live"
    label = "live"
    verbose_name = "Live agent sessions"

    def ready(self) -> None:
        # The endpoints admins edit are this app's table; apps.common.llm, below every app that
        # asks for a model, reads them through this source. Selectors import the models, which
        # the registry loads only after this module.
        from apps.live.selectors import llm_endpoints  # noqa: PLC0415

        llm.endpoint_source_add("live.LLMEndpoint", llm_endpoints)
