"""The run page of a meta-evaluation shows the 2024 views: subsets by System.tags and the
window analysis as an SVG image (no script)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from annotate.models import System
from geceval.metaeval import kobayashi2024 as m24
from geceval.metaeval.correlation import system_correlations, williams_from_scores
from tests.factories import done_run, prws_corpus_campaign

pytestmark = pytest.mark.django_db


def test_system_tags_are_checked_by_the_form_and_the_database():
    _user, campaign = prws_corpus_campaign()
    system = System.objects.get(corpus=campaign.corpus, name="a")
    system.tags = "classic neural"
    with pytest.raises(ValidationError, match="Tags are classic, fluent and input"):
        system.full_clean()
    with pytest.raises(IntegrityError), transaction.atomic():
        System.objects.filter(pk=system.pk).update(tags="neural")
    System.objects.filter(pk=system.pk).update(tags="classic input")
    system.refresh_from_db()
    assert system.tag_set() == frozenset({"classic", "input"})


def test_meta_evaluation_page_shows_subsets_and_the_window_plot(client):
    user, campaign = prws_corpus_campaign()
    for name, tags in (("a", "classic"), ("b", "classic"), ("c", "fluent"), ("src", "input")):
        System.objects.filter(corpus=campaign.corpus, name=name).update(tags=tags)
    human = done_run(campaign, "prws_summary", samples=5)
    metric = done_run(campaign, "metric_scores", metrics=["gleu", "chrf"])
    meta = done_run(campaign, "meta_eval", human_run=human.pk, metric_run=metric.pk)
    row = meta.correlation_results.get(metric="gleu")
    other = meta.correlation_results.get(metric="chrf")
    client.force_login(user)
    page = client.get(reverse("analysis-run", args=[meta.pk])).content.decode()
    assert 'id="subsets"' in page and 'id="plot-window"' in page and "<script>" not in page
    # the numbers on the page are those of the core over the stored points
    human_scores = {p[0]: p[2] for p in row.points}
    metric_scores = {p[0]: p[1] for p in row.points}
    tags = {"a": frozenset({"classic"}), "b": frozenset({"classic"}), "c": frozenset({"fluent"})}
    tags["src"] = frozenset({"input"})
    want = m24.subset_correlations(metric_scores, human_scores, tags, "classic+fluent+input")
    assert want.n == 4
    assert (
        f"<td>gleu/{row.reference_set}</td><td>classic+fluent+input</td><td>4</td><td>{want.pearson:.3f}</td>"
        in page
    )
    # two classic systems: too few for a correlation, shown as a dash
    assert f"<td>gleu/{row.reference_set}</td><td>classic</td><td>2</td><td>–</td>" in page
    # the Williams test per subset, in the direction of the better Pearson r, as the core computes it
    assert 'id="subset-williams"' in page
    names = ["a", "b", "c", "src"]
    g = [metric_scores[n] for n in names]
    chrf_scores = {p[0]: p[1] for p in other.points}
    c = [chrf_scores[n] for n in names]
    h = [human_scores[n] for n in names]
    rg = system_correlations(dict(zip(names, g)), dict(zip(names, h)), exclude=()).pearson
    rc = system_correlations(dict(zip(names, c)), dict(zip(names, h)), exclude=()).pearson
    first, second = (g, c) if rg >= rc else (c, g)
    w = williams_from_scores(h, first, second)
    assert f"<td>{w.t:.3f}</td><td>{w.p:.4f}</td>" in page
    svg = client.get(reverse("analysis-run-plot", args=[meta.pk, "window"]))
    assert svg.status_code == 200 and svg["Content-Type"] == "image/svg+xml"
    assert b"<svg" in svg.content and b"<script" not in svg.content


def test_a_researcher_sets_a_systems_tags_on_the_corpus_page(client):
    from tests import factories

    user, campaign = prws_corpus_campaign()
    system = System.objects.get(corpus=campaign.corpus, name="a")
    client.force_login(user)
    page = client.get(reverse("corpus-detail", args=[campaign.corpus_id])).content.decode()
    assert f'action="{reverse("system-tags", args=[campaign.corpus_id, system.pk])}"' in page
    url = reverse("system-tags", args=[campaign.corpus_id, system.pk])
    response = client.post(url, {"tags": ["input", "classic"]})
    assert response.status_code == 302 and response["Location"].endswith("#systems")
    system.refresh_from_db()
    assert system.tags == "classic input"
    page = client.get(reverse("corpus-detail", args=[campaign.corpus_id])).content.decode()
    assert 'value="classic" checked' in page
    # an unknown tag changes nothing and says why; no boxes ticked clears them
    client.post(url, {"tags": ["neural"]})
    system.refresh_from_db()
    assert system.tags == "classic input"
    client.post(url, {})
    system.refresh_from_db()
    assert system.tags == ""
    # another project's researcher cannot tag it
    client.force_login(factories.user("other", "researcher"))
    assert client.post(url, {"tags": ["fluent"]}).status_code == 404
