from django.urls import path

from ranking.analysis import views

urlpatterns = [
    path("campaigns/<int:pk>/analysis/", views.campaign_analysis, name="campaign-analysis"),
    path(
        "campaigns/<int:pk>/judgments/<str:fmt>/",
        views.campaign_judgments_export,
        name="campaign-judgments-export",
    ),
    path(
        "campaigns/<int:pk>/analysis/imported-scores/",
        views.imported_scores_upload,
        name="imported-scores-upload",
    ),
    path(
        "campaigns/<int:pk>/analysis/imported-scores/<int:scores_pk>/delete/",
        views.imported_scores_delete,
        name="imported-scores-delete",
    ),
    path("analysis/runs/<int:pk>/", views.run_detail, name="analysis-run"),
    path("analysis/runs/<int:pk>/progress.json", views.run_progress_json, name="analysis-run-progress"),
    path("analysis/runs/<int:pk>/resume/", views.run_resume, name="analysis-run-resume"),
    path("analysis/runs/<int:pk>/plots/<str:name>.svg", views.run_plot, name="analysis-run-plot"),
    path("analysis/runs/<int:pk>/export/<str:fmt>", views.run_export, name="analysis-run-export"),
]
