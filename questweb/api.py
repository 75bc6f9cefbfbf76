"""The one NinjaAPI: routers from each app, errors mapped to HTTP in one place."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI, Swagger
from ninja.errors import ValidationError

from apps.accounts.api import router as accounts_router
from apps.accounts.auth import API_AUTH
from apps.audit.api import router as audit_router
from apps.benchmarks.api import router as benchmarks_router
from apps.common.errors import DomainError
from apps.corpus.api import router as corpus_router
from apps.jobs.api import router as jobs_router
from apps.live.api import router as live_router
from apps.recipes.api import router as recipes_router
from apps.rubrics.api import router as rubrics_router
from apps.synthesis.api import router as synthesis_router
from apps.training.api import router as training_router
from questweb import __version__


def _deprecated(schema: Any) -> bool:
    """Whether a parameter's schema, or one of its `anyOf` branches, says it is deprecated."""
    if not isinstance(schema, dict):
        return False
    return schema.get("deprecated") is True or any(map(_deprecated, schema.get("anyOf", ())))


class QuestwebAPI(NinjaAPI):
    """NinjaAPI whose OpenAPI marks a parameter deprecated on the parameter itself, where client
    generators read it, when its schema says so (`json_schema_extra={"deprecated": True}`)."""

    def get_openapi_schema(self, *args: Any, **kwargs: Any) -> Any:
        schema = super().get_openapi_schema(*args, **kwargs)
        for operations in schema["paths"].values():
            for operation in operations.values():
                for parameter in operation.get("parameters", ()):
                    if _deprecated(parameter.get("schema")):
                        parameter["deprecated"] = True
        return schema


api = QuestwebAPI(
    title="questweb API",
    version=__version__,
    description=(
        "Everything questweb does, over HTTP. Authenticate with `Authorization: Bearer <token>` "
        "(create tokens on your settings page or with POST /api/tokens) or with the browser "
        "session plus the X-CSRFToken header."
    ),
    auth=API_AUTH,
    urls_namespace="api",
    # Swagger UI from the app's own static files ("ninja" is an installed app); no validator
    # badge, which Swagger UI would fetch from swagger.io.
    docs=Swagger(settings={"validatorUrl": None}),
)


@api.exception_handler(DomainError)
def on_domain_error(request: HttpRequest, exc: DomainError) -> HttpResponse:
    return api.create_response(request, {"detail": exc.message}, status=exc.status)


@api.exception_handler(ValidationError)
def on_validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    errors = [
        {"loc": list(err.get("loc", ())), "msg": err.get("msg", "invalid")} for err in exc.errors
    ]
    return api.create_response(
        request, {"detail": "request is not valid", "errors": errors}, status=422
    )


api.add_router("/", accounts_router)
api.add_router("/", rubrics_router)
api.add_router("/", corpus_router)
api.add_router("/", live_router)
api.add_router("/", audit_router)
api.add_router("/", synthesis_router)
api.add_router("/", training_router)
api.add_router("/", recipes_router)
api.add_router("/", benchmarks_router)
api.add_router("/", jobs_router)
