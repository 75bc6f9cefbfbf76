from __future__ import annotations

from django.urls import path

from apps.audit.views import audit, campaigns, review

app_name = "audit"

urlpatterns = [
    path("", campaigns.campaign_list, name="campaigns"),
    path("campaigns/new/", campaigns.campaign_create, name="campaign-create"),
    path("campaigns/new/count/", campaigns.campaign_match_count, name="campaign-count"),
    path("campaigns/<int:campaign_id>/", campaigns.campaign_detail, name="campaign"),
    path("campaigns/<int:campaign_id>/next/", campaigns.campaign_next, name="next"),
    path("campaigns/<int:campaign_id>/close/", campaigns.campaign_close, name="campaign-close"),
    path("campaigns/<int:campaign_id>/judge/", campaigns.campaign_judge, name="campaign-judge"),
    path("campaigns/<int:campaign_id>/probe/", campaigns.campaign_probe, name="campaign-probe"),
    path(
        "campaigns/<int:campaign_id>/agreement/",
        campaigns.campaign_agreement,
        name="campaign-agreement",
    ),
    path("campaigns/<int:campaign_id>/disputes/", review.dispute_list, name="disputes"),
    path("campaigns/<int:campaign_id>/export.jsonl", review.export_jsonl, name="export-jsonl"),
    path("campaigns/<int:campaign_id>/exports/", review.export_create, name="export-create"),
    path("exports/<int:export_id>/", review.export_status, name="export"),
    path("exports/<int:export_id>/download/", review.export_download, name="export-download"),
    path("a/<int:assignment_id>/", audit.assignment_page, name="assignment"),
    path("a/<int:assignment_id>/tree/", audit.assignment_tree, name="assignment-tree"),
    path("a/<int:assignment_id>/release/", audit.assignment_release, name="release"),
    path("items/<int:item_id>/", review.item_adjudicate, name="item"),
    path("items/<int:item_id>/take/", review.item_take, name="item-take"),
    path("dashboard/", review.dashboard, name="dashboard"),
]
