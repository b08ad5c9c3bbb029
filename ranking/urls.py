from django.urls import path

from ranking import views

urlpatterns = [
    path("campaigns/new/", views.campaign_new, name="campaign-new"),
    path("campaigns/<int:pk>/", views.campaign_detail, name="campaign-detail"),
    path("campaigns/<int:pk>/scores.csv", views.campaign_results_csv, name="campaign-scores-csv"),
    path("campaigns/<int:pk>/work/", views.work, name="campaign-work"),
]
