from __future__ import annotations

from django.urls import include, path

from apps.jobs.routes import job_routes
from apps.training import job_views, views

app_name = "training"

dataset = [
    *job_routes("", views, "dataset", names="dataset-"),
    path("files/<str:name>", views.dataset_file, name="dataset-file"),
]

job = [
    *job_routes("", job_views, "job", names="job-", polled=False),
    path("rollouts/", job_views.job_rollouts, name="job-rollouts"),
    path("log/", job_views.job_log, name="job-log"),
    path("checkpoints/", job_views.job_checkpoints, name="job-checkpoints"),
    path("resume/", job_views.job_resume, name="job-resume"),
    path("evaluate/", job_views.job_evaluate, name="job-evaluate"),
]

evaluation = job_routes("", views, "evaluation", names="evaluation-")

urlpatterns = [
    path("", views.overview, name="overview"),
    path("datasets/<int:dataset_id>/", include(dataset)),
    path("jobs/new/", job_views.job_new, name="job-new"),
    path("jobs/new/preview/", job_views.job_preview, name="job-preview"),
    path("jobs/presets/", job_views.preset_save, name="preset-save"),
    path("jobs/presets/<int:preset_id>/delete/", job_views.preset_delete, name="preset-delete"),
    path("jobs/<int:job_id>/", include(job)),
    path("evaluations/<int:evaluation_id>/", include(evaluation)),
    path("compare/", views.jobs_compare, name="compare"),
]
