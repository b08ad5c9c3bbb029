from rest_framework.routers import DefaultRouter

from annotate.api import CorpusViewSet, ProjectViewSet, SystemViewSet
from ranking.analysis.api import AnalysisRunViewSet, JudgmentExportViewSet
from ranking.api import CampaignViewSet
from ranking.work.api import WorkViewSet

app_name = "api"
router = DefaultRouter()
router.register("work", WorkViewSet, basename="work")  # first: the crowd's requests (config/urls.py)
router.register("projects", ProjectViewSet, basename="project")
router.register("corpora", CorpusViewSet, basename="corpus")
router.register("systems", SystemViewSet, basename="system")
router.register("campaigns", CampaignViewSet, basename="campaign")
router.register("analysis-runs", AnalysisRunViewSet, basename="analysis-run")
router.register("judgment-exports", JudgmentExportViewSet, basename="judgment-export")

urlpatterns = router.urls
