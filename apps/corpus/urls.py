from __future__ import annotations

from django.urls import path

from apps.corpus import views

app_name = "corpus"

urlpatterns = [
    path("", views.corpus_page, name="page"),
    path("jobs/", views.corpus_job_create, name="job-create"),
    path("search/", views.search_page, name="search"),
    path("doc/", views.document_page, name="document"),
]
