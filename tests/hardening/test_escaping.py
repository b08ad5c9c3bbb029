"""Stored text is escaped everywhere it is shown (issue 9): script and HTML payloads in corpus text,
system outputs, rewrites and names never reach a page raw, and no CSV cell of an export starts a
spreadsheet formula."""

from __future__ import annotations

import csv
import io
from types import SimpleNamespace

import pytest
from django.test import Client

from annotate.models import RewriteCampaign
from annotate.rewrites import services as rw
from annotate.services import SentenceRecord, corpus_create
from ranking.models import Campaign
from ranking.services import campaign_create, campaign_scores_recompute
from tests import factories
from tests.hardening.urlmap import url_for, walk_routes
from tests.judging import do_hit, honest_prws

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
RAW = (SCRIPT, "<img src=x", "onerror=alert(1)>")
ESCAPED = ("&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;")

SOURCES = [f"{SCRIPT} He go to school .", f"{IMG} She have two cat .", "=1+1 I am agree .", "@SUM(A1) Fine ."]
OUTPUTS = {
    f"=HYPERLINK(1) {SCRIPT}": [f"{IMG} He goes to school .", "She has two cats .", "I agree .", "Fine ."],
    f"+cmd {IMG}": [f"{SCRIPT} He went .", f"-2+3 {SCRIPT}", "@x I agree .", "Fine ."],
    "src": SOURCES,
}


@pytest.fixture
def hostile():
    researcher = factories.user("res-x9", "researcher")
    workers = [factories.user(f"wk{i}-x9", "annotator") for i in range(2)]
    expert = factories.user("exp-x9", "expert")
    project = factories.project(researcher, name=f"-1 {IMG}", members=[*workers, expert])
    corpus, systems = factories.corpus_with_systems(
        project, sources=SOURCES, systems=OUTPUTS, kinds={"src": "source"}
    )
    corpus.name = f"={SCRIPT}"
    corpus.save(update_fields=["name"])
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name=f"@SUM(1) {IMG}",
        systems=systems,
        created_by=researcher,
        judgments_per_item=2,
        screens_per_hit=2,
        instructions=f"Judge. {SCRIPT}",
    )
    for worker in workers:
        do_hit(campaign, worker, honest_prws)
    campaign_scores_recompute(campaign_id=campaign.pk)  # on_commit never fires inside a test transaction
    plain = corpus_create(
        project=project,
        name=f"plain {SCRIPT}",
        sentences=[SentenceRecord(text=s) for s in SOURCES],
    )
    rewrites = rw.rewrite_campaign_create(
        project=project,
        corpus=plain,
        name=f"+rw {SCRIPT}",
        created_by=researcher,
        rewrites_per_sentence=1,
        require_review=True,
        instructions=f"Rewrite. {IMG}",
    )
    for text in (f"+1 {SCRIPT} He goes .", f"{IMG} She has .", f"=2 {SCRIPT}"):
        slot = rw.slot_claim(campaign=rewrites, user=workers[0])
        rw.rewrite_submit(campaign=rewrites, user=workers[0], sentence=slot.sentence, text=text)
    return SimpleNamespace(
        researcher=researcher,
        workers=workers,
        expert=expert,
        project=project,
        corpus=corpus,
        campaign=campaign,
        rewrites=rewrites,
    )


def _values(campaign: Campaign, rewrites: RewriteCampaign, corpus, worker, run=None):
    values = {}
    for route in walk_routes():
        if route.params == ("pk",):
            values[route.name] = {"pk": campaign.pk}
    for name in ("corpus-detail", "corpus-export", "corpus-stats"):
        values[name] = {"pk": corpus.pk}
    for name in [r.name for r in walk_routes() if r.name.startswith("rewrite-")]:
        values[name] = {"pk": rewrites.pk}
    for fmt in ("wmt-csv", "prws-csv", "gmeg-segment-csv", "appraise-xml"):
        values[f"campaign-judgments-export:{fmt}"] = {"pk": campaign.pk, "fmt": fmt}
    return values


def _pages(role_user, urls: list[str]) -> list[tuple[str, str, str]]:
    client = Client()
    client.force_login(role_user)
    out = []
    for url in urls:
        response = client.get(url, follow=True)
        assert response.status_code < 500, url
        if response.status_code == 200 and not response.streaming:
            out.append((url, response["Content-Type"], response.content.decode("utf-8", "replace")))
        elif response.status_code == 200:
            body = b"".join(response.streaming_content).decode("utf-8", "replace")
            out.append((url, response["Content-Type"], body))
    return out


def _assert_escaped(pages) -> int:
    shown = 0
    for url, ctype, body in pages:
        if not ctype.startswith("text/html"):
            continue
        for raw in RAW:
            assert raw not in body, (url, raw)
        shown += sum(body.count(e) for e in ESCAPED)
    return shown


def test_researcher_pages_escape_every_stored_name_and_text(hostile):
    researcher = hostile.researcher
    corpus = hostile.corpus
    campaign = hostile.campaign
    rewrites = hostile.rewrites
    urls = [
        "/",
        f"/corpora/{corpus.pk}/",
        f"/corpora/{corpus.pk}/stats/",
        f"/campaigns/{campaign.pk}/",
        f"/campaigns/{campaign.pk}/pilot/",
        f"/campaigns/{campaign.pk}/pilot/?i=1",
        f"/campaigns/{campaign.pk}/analysis/",
        f"/crowd/campaigns/{campaign.pk}/",
        "/rewrites/",
        f"/rewrites/{rewrites.pk}/",
        f"/rewrites/{rewrites.pk}/stats/",
        f"/corpora/{rewrites.corpus_id}/",
        "/api/campaigns/?format=api",
    ]
    pages = _pages(researcher, urls)
    assert len(pages) >= 10
    assert _assert_escaped(pages) >= 10


def test_worker_and_expert_pages_escape_sources_outputs_and_other_workers_rewrites(hostile):
    workers = hostile.workers
    expert = hostile.expert
    project = hostile.project
    campaign = hostile.campaign
    rewrites = hostile.rewrites
    fresh = factories.user("wk-late-x9", "annotator")
    project.members.add(fresh)
    client = Client()
    client.force_login(fresh)
    start = client.get(f"/campaigns/{campaign.pk}/work/", follow=True)
    body = start.content.decode()
    for raw in RAW:
        assert raw not in body
    pages = _pages(fresh, ["/", f"/rewrites/{rewrites.pk}/work/", f"/rewrites/{rewrites.pk}/mine/"])
    pages += _pages(workers[0], [f"/rewrites/{rewrites.pk}/mine/"])
    pages += _pages(expert, ["/", f"/rewrites/{rewrites.pk}/review/"])
    shown = _assert_escaped([*pages, ("work", "text/html", body)])
    assert shown >= 4
    review = next(b for u, _, b in pages if u.endswith("/review/"))
    assert any(e in review for e in ESCAPED)  # the expert does see a worker's payload, escaped


def _formula_cells(text: str) -> list[str]:
    bad = []
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                try:
                    float(cell)  # a negative number is data, not a formula
                except ValueError:
                    bad.append(cell)
    return bad


@pytest.mark.parametrize(
    "path",
    [
        "/campaigns/{c}/scores.csv",
        "/campaigns/{c}/judgments/wmt-csv/",
        "/campaigns/{c}/judgments/prws-csv/",
        "/campaigns/{c}/judgments/gmeg-segment-csv/",
        "/crowd/campaigns/{c}/invites.csv",
        "/crowd/campaigns/{c}/payments.csv",
    ],
)
def test_csv_exports_never_start_a_cell_with_a_formula(hostile, path):
    researcher = hostile.researcher
    campaign = hostile.campaign
    pages = _pages(researcher, [path.format(c=campaign.pk)])
    assert pages, path
    (_, ctype, body) = pages[0]
    assert "csv" in ctype
    assert _formula_cells(body) == []
    if "invites" not in path:  # no invite made here
        assert "alert(1)" in body or "wk0-x9" in body  # the hostile names did reach the export


def test_appraise_xml_export_escapes_markup(hostile):
    researcher = hostile.researcher
    campaign = hostile.campaign
    (_, _, body) = _pages(researcher, [f"/campaigns/{campaign.pk}/judgments/appraise-xml/"])[0]
    import xml.etree.ElementTree as ET

    ET.fromstring(body)  # well-formed: every payload escaped
    assert SCRIPT not in body


def test_api_returns_payloads_as_json_text_not_html(hostile):
    from rest_framework.test import APIClient

    researcher = hostile.researcher
    campaign = hostile.campaign
    api = APIClient()
    api.force_authenticate(researcher)
    response = api.get(f"/api/campaigns/{campaign.pk}/")
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["name"] == f"@SUM(1) {IMG}"  # stored exactly, shown as data


def test_routes_cover_the_values_helper(hostile):
    """Keeps _values in use and importable; url_for fails loudly when a route has no parameters."""
    workers = hostile.workers
    corpus = hostile.corpus
    campaign = hostile.campaign
    rewrites = hostile.rewrites
    values = _values(campaign, rewrites, corpus, workers[0])
    assert url_for(next(r for r in walk_routes() if r.name == "corpus-detail"), values).endswith(
        f"/{corpus.pk}/"
    )
