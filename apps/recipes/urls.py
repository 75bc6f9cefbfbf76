from __future__ import annotations

from django.urls import path

from apps.jobs.routes import job_routes
from apps.recipes import views

app_name = "recipes"

urlpatterns = [
    path("", views.recipe_list, name="recipes"),
    *job_routes("<int:recipe_id>/", views, "recipe"),
    path("<int:recipe_id>/proceed/", views.recipe_proceed, name="proceed"),
]
