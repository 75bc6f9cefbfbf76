from __future__ import annotations

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic.base import RedirectView

from apps.corpus import tools_service
from questweb import views
from questweb.api import api

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    # Browsers ask for /favicon.ico whatever the page says.
    path("favicon.ico", RedirectView.as_view(url=static("img/favicon.svg"), permanent=True)),
    path("api/", api.urls),
    path("accounts/", include("apps.accounts.urls")),
    path("tasks/", include("apps.rubrics.urls")),
    path("corpus/", include("apps.corpus.urls")),
    path("live/", include("apps.live.urls")),
    path("audit/", include("apps.audit.urls")),
    path("synthesis/", include("apps.synthesis.urls")),
    path("training/", include("apps.training.urls")),
    path("recipes/", include("apps.recipes.urls")),
    path("benchmarks/", include("apps.benchmarks.urls")),
    path("tools/search", tools_service.tools_search, name="tools-search"),
    path("tools/scholar", tools_service.tools_scholar, name="tools-scholar"),
    path("tools/health", tools_service.tools_health, name="tools-health"),
    path("admin/", admin.site.urls),
    path("<slug:slug>/", views.section, name="section"),
]

handler400 = "questweb.views.bad_request"
handler403 = "questweb.views.forbidden"
handler404 = "questweb.views.not_found"
handler500 = "questweb.views.server_error"
