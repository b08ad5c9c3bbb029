from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config.health import healthz
from config.security import admin_login_view, login_view
from ranking.api import study_schema_view
from ranking.views import campaigns as ranking_views

urlpatterns = [
    # First: the crowd's requests are most of the traffic, and Django tries patterns in order (the
    # ~90 page patterns before them cost a worker's request about 280 Python calls; issue 22).
    path("api/", include("config.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/schema/study/", study_schema_view, name="study-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("", ranking_views.home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("accounts/login/", login_view, name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # before admin.site.urls: the admin's login goes through the same limiter as the site's
    path("admin/login/", admin_login_view),
    path("admin/", admin.site.urls),
    path("", include("annotate.urls")),
    path("", include("ranking.urls")),
    path("", include("ranking.analysis.urls")),
    path("crowd/", include("crowd.urls")),
]

# An upload past UPLOAD_MAX_BYTES is a 413 with the limit (config/uploads.py); other 400s are Django's.
handler400 = "config.uploads.bad_request"
