from django.urls import path

from ranking.views import campaign_form, campaigns, gold, life_cycle, work

urlpatterns = [
    path("campaigns/new/", campaign_form.campaign_new, name="campaign-new"),
    path("campaigns/forecast/", campaign_form.campaign_forecast, name="campaign-forecast"),
    path("campaigns/trap-preview/", campaign_form.campaign_trap_preview, name="campaign-trap-preview"),
    path("campaigns/<int:pk>/", campaigns.campaign_detail, name="campaign-detail"),
    path("campaigns/<int:pk>/status/", life_cycle.campaign_status, name="campaign-status"),
    path("campaigns/<int:pk>/pilot/", campaigns.campaign_pilot, name="campaign-pilot"),
    path("campaigns/<int:pk>/gold/", gold.campaign_gold_test, name="campaign-gold-test"),
    path("campaigns/<int:pk>/gold/record/", gold.campaign_gold_record, name="campaign-gold-record"),
    path("campaigns/<int:pk>/gold-screens/", gold.campaign_gold_screens, name="campaign-gold-screens"),
    path(
        "campaigns/<int:pk>/exclusion-rules/",
        campaigns.campaign_exclusion_rules,
        name="campaign-exclusion-rules",
    ),
    path("campaigns/<int:pk>/held/<int:assignment_id>/", campaigns.campaign_hold, name="campaign-hold"),
    path(
        "campaigns/<int:pk>/workers/<int:worker_id>/override/",
        campaigns.campaign_worker_override,
        name="campaign-worker-override",
    ),
    path(
        "campaigns/<int:pk>/workers/<int:worker_id>/forget/",
        campaigns.campaign_worker_forget,
        name="campaign-worker-forget",
    ),
    path("campaigns/<int:pk>/scores.csv", campaigns.campaign_results_csv, name="campaign-scores-csv"),
    path("campaigns/<int:pk>/study.yaml", campaigns.campaign_study, name="campaign-study"),
    path("campaigns/<int:pk>/work/", work.work, name="campaign-work"),
    path("assignments/<int:pk>/", work.assignment_view, name="assignment"),
    path("assignments/<int:pk>/return/", work.assignment_give_back, name="assignment-return"),
    path("assignments/<int:pk>/heartbeat/", work.assignment_heartbeat_view, name="assignment-heartbeat"),
]
