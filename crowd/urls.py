from django.urls import path

from crowd import views, views_requester, views_work

urlpatterns = [
    # Workers (no login; the signed token in the URL carries the visit).
    path("i/<str:code>/", views_work.invite_entry, name="crowd-invite"),
    path("prolific/<str:key>/", views_work.prolific_entry, name="crowd-prolific"),
    path("mturk/<str:key>/", views_work.mturk_entry, name="crowd-mturk"),
    path("s/<str:token>/", views_work.session_view, name="crowd-session"),
    path("s/<str:token>/heartbeat/", views_work.session_heartbeat, name="crowd-heartbeat"),
    # Researchers.
    path("campaigns/<int:pk>/", views.campaign_crowd, name="crowd-campaign"),
    path("campaigns/<int:pk>/settings/", views.campaign_crowd_settings, name="crowd-settings"),
    path("campaigns/<int:pk>/invites/", views.invites_create, name="crowd-invites"),
    path("campaigns/<int:pk>/invites.csv", views.invites_csv, name="crowd-invites-csv"),
    path("campaigns/<int:pk>/payments.csv", views.payments_csv, name="crowd-payments-csv"),
    path(
        "campaigns/<int:pk>/<str:platform>/<str:action>/",
        views_requester.platform_action,
        name="crowd-platform-action",
    ),
    path("import/", views.import_judgments_view, name="crowd-import"),
]
