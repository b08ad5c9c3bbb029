"""The project's URLs plus this feature's pages, until the lead adds them to annotate/urls.py."""

from django.urls import path

from annotate.formats import views as io_views
from config.urls import urlpatterns as project_urls

urlpatterns = [
    path("corpora/<int:pk>/export/", io_views.corpus_export, name="corpus-export"),
    path("corpora/<int:pk>/stats/", io_views.corpus_stats, name="corpus-stats"),
    path("rewrites/<int:pk>/export/", io_views.campaign_export, name="rewrite-campaign-export"),
    path("rewrites/<int:pk>/stats/", io_views.campaign_stats, name="rewrite-campaign-stats"),
    *project_urls,
]
