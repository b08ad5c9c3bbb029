from django.urls import path

from ranking import views, views_campaign_form, views_gold, views_life_cycle

urlpatterns = [
    path("campaigns/new/", views_campaign_form.campaign_new, name="campaign-new"),
    path("campaigns/forecast/", views_campaign_form.campaign_forecast, name="campaign-forecast"),
    path("campaigns/trap-preview/", views_campaign_form.campaign_trap_preview, name="campaign-trap-preview"),
    path("campaigns/<int:pk>/", views.campaign_detail, name="campaign-detail"),
    path("campaigns/<int:pk>/status/", views_life_cycle.campaign_status, name="campaign-status"),
    path("campaigns/<int:pk>/pilot/", views.campaign_pilot, name="campaign-pilot"),
    path("campaigns/<int:pk>/gold/", views.campaign_gold_test, name="campaign-gold-test"),
    path("campaigns/<int:pk>/gold/record/", views.campaign_gold_record, name="campaign-gold-record"),
    path("campaigns/<int:pk>/gold-screens/", views_gold.campaign_gold_screens, name="campaign-gold-screens"),
    path(
        "campaigns/<int:pk>/exclusion-rules/", views.campaign_exclusion_rules, name="campaign-exclusion-rules"
    ),
    path("campaigns/<int:pk>/held/<int:assignment_id>/", views.campaign_hold, name="campaign-hold"),
    path(
        "campaigns/<int:pk>/workers/<int:worker_id>/override/",
        views.campaign_worker_override,
        name="campaign-worker-override",
    ),
    path(
        "campaigns/<int:pk>/workers/<int:worker_id>/forget/",
        views.campaign_worker_forget,
        name="campaign-worker-forget",
    ),
    path("campaigns/<int:pk>/scores.csv", views.campaign_results_csv, name="campaign-scores-csv"),
    path("campaigns/<int:pk>/study.yaml", views.campaign_study, name="campaign-study"),
    path("campaigns/<int:pk>/work/", views.work, name="campaign-work"),
    path("assignments/<int:pk>/", views.assignment_view, name="assignment"),
    path("assignments/<int:pk>/return/", views.assignment_give_back, name="assignment-return"),
    path("assignments/<int:pk>/heartbeat/", views.assignment_heartbeat_view, name="assignment-heartbeat"),
]
