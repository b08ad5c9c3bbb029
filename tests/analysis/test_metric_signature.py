"""Every stored metric score keeps the signature of what produced it (issue 37)."""

from __future__ import annotations

import pytest

import geceval
from geceval.metrics import BLEU, GLEU
from ranking.analysis import services
from ranking.analysis.models import RunStatus
from ranking.models import Campaign
from tests import factories

pytestmark = pytest.mark.django_db

SOURCES = ["He go to school .", "She like apple .", "They is here ."]
SYSTEMS = {
    "ref1": ["He goes to school .", "She likes apples .", "They are here ."],
    "ref2": ["He goes to school .", "She likes apple .", "They are here ."],
    "sys": ["He goes to school .", "She like apples .", "They is here ."],
}


def test_a_metric_run_stores_each_score_with_its_signature_and_the_api_returns_it(client):
    user = factories.user("res", "researcher")
    project = factories.project(user)
    corpus, made = factories.corpus_with_systems(
        project, sources=SOURCES, systems=SYSTEMS, kinds={"ref1": "reference", "ref2": "reference"}
    )
    campaign = Campaign.objects.create(
        project=project, corpus=corpus, name="s", protocol="ranking", created_by=user, status="closed"
    )
    campaign.systems.set([s for s in made if s.kind != "reference"])
    run = services.analysis_run_create(
        campaign=campaign, kind="metric_scores", parameters={"metrics": ["gleu", "bleu"]}, seed=0
    )
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error

    rows = {r.metric: r for r in run.metric_results.all()}
    assert rows["gleu"].signature == {
        "metric": "gleu",
        "version": geceval.__version__,
        "tokenisation": "whitespace",
        "parameters": {"variant": "jfleg", "lambda": 0.0},
        "references": 2,
        "libraries": {},
    }
    assert rows["gleu"].signature == GLEU().signature(2).as_dict()
    assert rows["bleu"].signature == BLEU().signature(2).as_dict()
    assert rows["bleu"].signature["libraries"] == {"sacrebleu": "2.6.0"}
    # the stored score is the one the public API gives on the same data
    gleu = GLEU().corpus_score(SYSTEMS["sys"], [SYSTEMS["ref1"], SYSTEMS["ref2"]], SOURCES)
    assert rows["gleu"].score == pytest.approx(gleu.score, abs=0)

    client.force_login(user)
    body = client.get(f"/api/analysis-runs/{run.pk}/results/").json()
    by_metric = {m["metric"]: m for m in body["metrics"]}
    assert by_metric["bleu"]["signature"]["metric"] == "bleu"
    assert by_metric["gleu"]["signature"]["references"] == 2
