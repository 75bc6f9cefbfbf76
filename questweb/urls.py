from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from questweb import views
from questweb.api import api

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("api/", api.urls),
    path("accounts/", include("apps.accounts.urls")),
    path("tasks/", include("apps.rubrics.urls")),
    path("admin/", admin.site.urls),
    path("<slug:slug>/", views.section, name="section"),
]

handler400 = "questweb.views.bad_request"
handler403 = "questweb.views.forbidden"
handler404 = "questweb.views.not_found"
handler500 = "questweb.views.server_error"
