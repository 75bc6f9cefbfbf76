from __future__ import annotations

from django.urls import path

from apps.recipes import views

app_name = "recipes"

urlpatterns = [
    path("", views.recipe_list, name="recipes"),
    path("<int:recipe_id>/", views.recipe_detail, name="recipe"),
    path("<int:recipe_id>/progress/", views.recipe_progress, name="progress"),
    path("<int:recipe_id>/cancel/", views.recipe_cancel, name="cancel"),
    path("<int:recipe_id>/proceed/", views.recipe_proceed, name="proceed"),
]
