"""The workers table of a judgment campaign pages and searches in the database and builds the rows
of the page it shows only (issue 20's long lists at crowd scale)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotate.paging import PER_PAGE
from ranking import selectors
from ranking.models import WorkerRecord
from ranking.services import campaign_create
from tests import factories

pytestmark = pytest.mark.django_db

N = PER_PAGE + 5


@pytest.fixture
def crowded(monkeypatch):
    researcher = factories.user("res", "researcher")
    project = factories.project(researcher)
    corpus, systems = factories.corpus_with_systems(
        project,
        sources=factories.SOURCES[:2],
        systems={"a": factories.SOURCES[:2], "b": factories.SOURCES[:2]},
    )
    campaign = campaign_create(
        project=project, corpus=corpus, name="crowd", systems=systems, created_by=researcher, trap_rate=0.0
    )
    # usernames whose order is not their creation order: the table sorts by name
    names = [f"worker{(i * 37) % N:02d}" for i in range(N)]
    users = get_user_model().objects.bulk_create(get_user_model()(username=n) for n in names)
    WorkerRecord.objects.bulk_create(
        WorkerRecord(campaign=campaign, worker=u, traps_seen=i, traps_passed=i) for i, u in enumerate(users)
    )
    built = []
    real = selectors.WorkerRow

    def counted(*args, **kwargs):
        built.append(kwargs["username"])
        return real(*args, **kwargs)

    monkeypatch.setattr(selectors, "WorkerRow", counted)
    return researcher, campaign, built


def _shown(client, campaign, **params) -> tuple[list[str], str]:
    html = client.get(reverse("campaign-detail", args=[campaign.pk]), params).content.decode()
    table = re.search(r'<table id="workers">(.*?)</table>', html, re.S).group(1)
    return re.findall(r"<td>(worker\d\d)</td>", table), re.sub(r"\s+", " ", html)


def test_the_workers_table_builds_only_the_rows_of_its_page_in_name_order(client, crowded):
    researcher, campaign, built = crowded
    client.force_login(researcher)
    names = sorted(f"worker{i:02d}" for i in range(N))
    shown, html = _shown(client, campaign)
    assert shown == names[:PER_PAGE] and built == names[:PER_PAGE]
    assert f"Showing 1–{PER_PAGE} of {N}" in html
    built.clear()
    shown, html = _shown(client, campaign, page=2)
    assert shown == names[PER_PAGE:] and built == names[PER_PAGE:]
    built.clear()
    shown, html = _shown(client, campaign, q="WORKER1")  # case-insensitive, as before
    assert shown == built == [f"worker{i}" for i in range(10, 20)]
    assert "Showing 1–10 of 10 matching “WORKER1”" in html


def test_the_rows_of_a_page_equal_those_of_the_whole_list(crowded):
    _, campaign, _ = crowded
    everyone = selectors.campaign_workers(campaign)
    page = selectors.campaign_worker_rows(campaign, list(selectors.campaign_worker_list(campaign)[3:6]))
    assert page == everyone[3:6]
    assert [r.traps_seen for r in everyone] == [
        next(i for i in range(N) if (i * 37) % N == k) for k in range(N)
    ]
