from __future__ import annotations

from django.urls import path

from apps.live import views

app_name = "live"

urlpatterns = [
    path("", views.session_list, name="list"),
    path("new/", views.session_create, name="create"),
    path("<uuid:public_id>/", views.session_detail, name="detail"),
    path("<uuid:public_id>/stop/", views.session_stop, name="stop"),
    path("<uuid:public_id>/export/", views.session_export, name="export"),
]
