from __future__ import annotations

from django.urls import include, path

from apps.live import views

app_name = "live"

session = [
    path("", views.session_detail, name="detail"),
    path("stop/", views.session_stop, name="stop"),
    path("export/", views.session_export, name="export"),
]

urlpatterns = [
    path("", views.session_list, name="list"),
    path("new/", views.session_create, name="create"),
    path("compare/<uuid:a>/<uuid:b>/", views.session_compare, name="compare"),
    path("<uuid:public_id>/", include(session)),
]
