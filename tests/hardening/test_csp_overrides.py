"""django-csp per-view overrides: the MTurk pages' frame-ancestors and the SVG plots' stricter policy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from csp.decorators import csp_exempt, csp_replace
from django.http import HttpResponse
from django.test import RequestFactory
from django.urls import reverse

from config.security import ContentSecurityPolicyMiddleware
from crowd.services.sessions import campaign_key
from ranking.analysis import services
from ranking.analysis.models import RunStatus
from tests.factories import crowd_campaign, ranking_campaign

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[2]

MTURK = "frame-ancestors https://worker.mturk.com https://www.mturk.com https://workersandbox.mturk.com"
SITE_REST = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'"
)
SVG = "default-src 'none'; style-src 'unsafe-inline'"
SVG_REST = "script-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"


def _mturk_preview(client):
    campaign = crowd_campaign()[2]
    url = reverse("crowd-mturk", args=[campaign_key(campaign)])
    return client.get(url, {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "H1"})


def test_mturk_page_keeps_its_frame_ancestors_and_gets_the_rest_of_the_site_policy(client, settings):
    settings.CSP_ENABLED = True
    assert _mturk_preview(client)["Content-Security-Policy"] == f"{MTURK}; {SITE_REST}"


def test_report_only_still_enforces_the_views_own_directives_and_reports_the_merged_policy(client, settings):
    settings.CSP_ENABLED = True
    settings.CSP_REPORT_ONLY = True
    page = _mturk_preview(client)
    assert page["Content-Security-Policy"] == MTURK
    assert page["Content-Security-Policy-Report-Only"] == f"{MTURK}; {SITE_REST}"


def test_svg_plot_sends_its_stricter_policy_with_or_without_the_site_policy(client, settings):
    user, campaign, _r = ranking_campaign()
    run = services.analysis_run_create(campaign=campaign, kind="trueskill", parameters={}, seed=5)
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    client.force_login(user)
    url = reverse("analysis-run-plot", args=[run.pk, "ranks"])
    settings.CSP_ENABLED = False
    assert client.get(url)["Content-Security-Policy"] == SVG
    settings.CSP_ENABLED = True
    assert client.get(url)["Content-Security-Policy"] == f"{SVG}; {SVG_REST}"


def test_csp_replace_and_csp_exempt_decorators_are_honoured(settings):
    settings.CSP_ENABLED = True

    @csp_replace({"img-src": ["'self'", "https://example.org"]})
    def replaced(request):
        return HttpResponse("ok")

    @csp_exempt()
    def exempt(request):
        return HttpResponse("ok")

    request = RequestFactory().get("/")
    policy = ContentSecurityPolicyMiddleware(replaced)(request)["Content-Security-Policy"]
    assert policy == (
        "img-src 'self' https://example.org; default-src 'self'; script-src 'self'; style-src 'self'; "
        "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"
    )
    assert "Content-Security-Policy" not in ContentSecurityPolicyMiddleware(exempt)(request)


def test_the_header_is_the_same_whatever_the_hash_seed():
    """django-csp 4.0 joins directives in set order; ours must not change with PYTHONHASHSEED."""
    code = (
        "import django; django.setup(); from config.security import csp_merge;"
        'print(csp_merge("a 1; b 2; c 3; d 4; e 5; f 6", "e 7; b 8"))'
    )
    outputs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "DJANGO_SETTINGS_MODULE": "config.settings"}
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True
        )
        outputs.add(done.stdout.strip())
    assert outputs == {"e 7; b 8; a 1; c 3; d 4; f 6"}
