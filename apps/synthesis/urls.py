from __future__ import annotations

from django.urls import include, path

from apps.jobs.routes import job_routes
from apps.synthesis import views

app_name = "synthesis"

batch = [
    *job_routes("", views, "batch"),
    path("campaign/", views.batch_campaign, name="campaign"),
    path("export.jsonl", views.batch_export, name="export"),
]

candidate = [
    path("", views.candidate_detail, name="candidate"),
    path("accept/", views.candidate_accept, name="accept"),
    path("reject/", views.candidate_reject, name="reject"),
]

urlpatterns = [
    path("", views.batch_list, name="batches"),
    path("<int:batch_id>/", include(batch)),
    path("candidates/<int:candidate_id>/", include(candidate)),
]
