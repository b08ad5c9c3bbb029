"""Edit-level meta-evaluation (issue 24) on a constructed example: a worker labels each system's
edits (all of a's good, b's good in the first sentence and bad in the second, all of c's bad)
through the page; a meta-evaluation whose human score is the share of each system's edits marked
good (edit-based human evaluation, as SEEDA-E in Kobayashi et al. 2024) correlates the metrics with
those shares, counted here from the labels posted. There are no public edit-level human judgments in
../shared/data; the browser test (tests/test_browser_edit_protocol.py) collects real ones."""

from __future__ import annotations

from collections import Counter

import pytest
from django.urls import reverse
from scipy import stats

from ranking.analysis.models import AnalysisRun, RunStatus
from ranking.analysis.services import AnalysisError, analysis_run_create
from ranking.models import Screen
from ranking.services import campaign_create
from tests import factories
from tests.factories import done_run

pytestmark = pytest.mark.django_db

SOURCES = ["He go home yesterday .", "She like cat ."]
SYSTEMS = {
    "src": SOURCES,
    "a": ["He went home yesterday .", "She likes cats ."],
    "b": ["He goes home today .", "She like the cat ."],
    "c": ["He go house yesterday !", "She like dog ."],
    "ref": ["He went home yesterday .", "She likes cats ."],
}


def _label(system: str, sentence: int) -> str:
    return {"a": "good", "c": "bad"}.get(system, "good" if sentence == 0 else "bad")


def test_a_meta_evaluation_against_the_share_of_edits_marked_good(client):
    researcher = factories.user("res", "researcher")
    worker = factories.user("worker", "annotator")
    project = factories.project(researcher, members=[worker])
    corpus, systems = factories.corpus_with_systems(
        project, sources=SOURCES, systems=SYSTEMS, kinds={"src": "source", "ref": "reference"}
    )
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="edits",
        systems=[s for s in systems if s.name != "ref"],
        created_by=researcher,
        protocol="edits",
        max_candidates=4,
        judgments_per_item=1,
        trap_rate=0.0,
    )
    client.force_login(worker)
    url = client.get(reverse("campaign-work", args=[campaign.pk])).url
    posted: Counter = Counter()
    while "screen" in ((response := client.get(url)).context or {}):
        context = response.context
        screen: Screen = context["screen"]
        data = {"screen": context["screen_handle"], "started": context["started"]}
        for c, segments, _count in context["edit_rows"]:
            (system,) = {o.system.name for o in c.outputs.all()}
            for s in segments:
                if "edit" in s:
                    label = _label(system, screen.sentence.position)
                    data[f"edit-{c.position}-{s['edit'].index}"] = label
                    posted[system, label] += 1
            data[f"rank-{c.position}"] = "1"
        assert client.post(url, data).status_code == 302
    share = {s: posted[s, "good"] / (posted[s, "good"] + posted[s, "bad"]) for s in ("a", "b", "c")}
    assert share["a"] == 1.0 and share["c"] == 0.0 and 0 < share["b"] < 1

    human = done_run(campaign, "trueskill", seed=1, runs=5, chunks=1)
    metric = done_run(campaign, "metric_scores", metrics=["chrf", "gleu"])
    client.force_login(researcher)
    form = client.get(reverse("campaign-analysis", args=[campaign.pk])).content.decode()
    assert '<option value="edit_share">' in form
    response = client.post(
        reverse("campaign-analysis", args=[campaign.pk]),
        {
            "kind": "meta_eval",
            "seed": 0,
            "human_run": human.pk,
            "metric_run": metric.pk,
            "human_score": "edit_share",
        },
    )
    assert response.status_code == 302
    meta = AnalysisRun.objects.get(kind="meta_eval")
    assert meta.status == RunStatus.DONE, meta.error
    assert meta.summary["human"] == pytest.approx(share)
    for row in meta.correlation_results.all():
        scores = dict(metric.metric_results.filter(metric=row.metric).values_list("name", "score"))
        names = sorted(share)
        want = stats.pearsonr([scores[n] for n in names], [share[n] for n in names])[0]
        assert row.systems == 3 and row.pearson == pytest.approx(want), row.metric
    page = client.get(reverse("analysis-run", args=[meta.pk])).content.decode()
    assert "human score: Share of each system&#x27;s edits marked good" in page


def test_a_human_score_the_campaign_does_not_give_is_refused():
    _user, campaign, _r = factories.ranking_campaign()
    human = done_run(campaign, "trueskill", seed=1, runs=5, chunks=1)
    with pytest.raises(AnalysisError, match="gives no human score 'edit_share'"):
        analysis_run_create(
            campaign=campaign,
            kind="meta_eval",
            parameters={"human_run": human.pk, "metric_run": human.pk, "human_score": "edit_share"},
        )
