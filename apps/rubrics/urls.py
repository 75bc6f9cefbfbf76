from __future__ import annotations

from django.urls import path

from apps.jobs.routes import job_routes
from apps.rubrics import views

app_name = "rubrics"

urlpatterns = [
    path("", views.task_list, name="list"),
    path("import/", views.task_import, name="import"),
    *job_routes(
        "import/<int:import_id>/",
        views,
        "task_import",
        name="import-detail",
        names="import-",
        polled=False,
    ),
    path("<int:task_id>/", views.task_detail, name="detail"),
    path("<int:task_id>/try/", views.task_try, name="try"),
    path("<int:task_id>/versions/", views.task_versions, name="versions"),
    path("<int:task_id>/probe/", views.task_probe, name="probe"),
    path("<int:task_id>/probes/<int:run_id>/", views.probe_detail, name="probe-detail"),
]
