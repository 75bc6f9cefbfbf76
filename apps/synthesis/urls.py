from __future__ import annotations

from django.urls import path

from apps.synthesis import views

app_name = "synthesis"

urlpatterns = [
    path("", views.batch_list, name="batches"),
    path("<int:batch_id>/", views.batch_detail, name="batch"),
    path("<int:batch_id>/progress/", views.batch_progress, name="progress"),
    path("<int:batch_id>/cancel/", views.batch_cancel, name="cancel"),
    path("<int:batch_id>/campaign/", views.batch_campaign, name="campaign"),
    path("<int:batch_id>/export.jsonl", views.batch_export, name="export"),
    path("candidates/<int:candidate_id>/", views.candidate_detail, name="candidate"),
    path("candidates/<int:candidate_id>/accept/", views.candidate_accept, name="accept"),
    path("candidates/<int:candidate_id>/reject/", views.candidate_reject, name="reject"),
]
