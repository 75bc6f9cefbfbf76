from __future__ import annotations

from django.urls import include, path

from apps.benchmarks import views
from apps.jobs.routes import job_routes

app_name = "benchmarks"

run = [
    *job_routes("", views, "run", names="run-"),
    path("resume/", views.run_resume, name="run-resume"),
]

urlpatterns = [
    path("", views.run_list, name="runs"),
    path("compare/", views.runs_compare, name="compare"),
    path("<int:run_id>/", include(run)),
]
