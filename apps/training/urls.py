from __future__ import annotations

from django.urls import path

from apps.training import job_views, views

app_name = "training"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("datasets/<int:dataset_id>/", views.dataset_detail, name="dataset"),
    path("datasets/<int:dataset_id>/progress/", views.dataset_progress, name="dataset-progress"),
    path("datasets/<int:dataset_id>/cancel/", views.dataset_cancel, name="dataset-cancel"),
    path("datasets/<int:dataset_id>/files/<str:name>", views.dataset_file, name="dataset-file"),
    path("jobs/new/", job_views.job_new, name="job-new"),
    path("jobs/new/preview/", job_views.job_preview, name="job-preview"),
    path("jobs/presets/", job_views.preset_save, name="preset-save"),
    path("jobs/presets/<int:preset_id>/delete/", job_views.preset_delete, name="preset-delete"),
    path("jobs/<int:job_id>/", job_views.job_detail, name="job"),
    path("jobs/<int:job_id>/rollouts/", job_views.job_rollouts, name="job-rollouts"),
    path("jobs/<int:job_id>/log/", job_views.job_log, name="job-log"),
    path("jobs/<int:job_id>/checkpoints/", job_views.job_checkpoints, name="job-checkpoints"),
    path("jobs/<int:job_id>/cancel/", job_views.job_cancel, name="job-cancel"),
    path("jobs/<int:job_id>/resume/", job_views.job_resume, name="job-resume"),
    path("jobs/<int:job_id>/evaluate/", job_views.job_evaluate, name="job-evaluate"),
    path("evaluations/<int:evaluation_id>/", views.evaluation_detail, name="evaluation"),
    path(
        "evaluations/<int:evaluation_id>/progress/",
        views.evaluation_progress,
        name="evaluation-progress",
    ),
    path(
        "evaluations/<int:evaluation_id>/cancel/", views.evaluation_cancel, name="evaluation-cancel"
    ),
    path("compare/", views.jobs_compare, name="compare"),
]
