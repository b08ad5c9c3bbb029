"""The site's URLs plus the analysis router, until config/api_urls.py registers it (tests only)."""

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from config.urls import urlpatterns as site
from ranking.analysis.api import AnalysisRunViewSet, JudgmentExportViewSet

router = DefaultRouter()
router.register("analysis-runs", AnalysisRunViewSet, basename="analysis-run")
router.register("judgment-exports", JudgmentExportViewSet, basename="judgment-export")

urlpatterns = [path("api-test/", include(router.urls)), *site]
