"""Export and statistics pages: downloads, errors on the page, who may see them."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from annotate.formats.data import CorpusData, SystemData
from annotate.formats.services import corpus_import
from annotate.rewrites.services import rewrite_campaign_create
from annotate.services import SentenceRecord
from tests import factories
from tests.annotate_io.rewriting import rewrite_submit

pytestmark = pytest.mark.django_db


def make_user(name: str, role: str):
    user = get_user_model().objects.create_user(username=name, password=None)
    user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def setup(client):
    res = make_user("res", "researcher")
    anns = [make_user(f"ann{i}", "annotator") for i in range(2)]
    project = factories.project(res, members=anns)
    data = CorpusData(
        [SentenceRecord("He go home .", "fce"), SentenceRecord("I like cat .", "fce")],
        [SystemData("ref0", "reference", ["He goes home .", "I like cat ."])],
    )
    corpus = corpus_import(project=project, name="small <b>", data=data, tokenized=True)
    campaign = rewrite_campaign_create(
        project=project,
        corpus=corpus,
        name="pilot",
        created_by=res,
        rewrites_per_sentence=2,
        ask_difficulty=True,
    )
    for user, texts, levels in [
        (anns[0], ["He goes home .", "I like cats ."], [3, 2]),
        (anns[1], ["He go home .", "I like cats ."], [1, 2]),
    ]:
        for s, text, level in zip(corpus.sentences.order_by("position"), texts, levels):
            rewrite_submit(campaign=campaign, user=user, sentence=s, text=text, difficulty=level)
    client.force_login(res)
    return client, corpus, campaign, anns


def test_corpus_export_page_offers_the_formats_and_downloads_a_zip_or_one_file(setup):
    client, corpus, *_ = setup
    page = client.get(f"/corpora/{corpus.pk}/export/")
    assert page.status_code == 200
    body = page.content.decode()
    assert (
        'name="format"' in body
        and "small &lt;b&gt;" in body
        and "<b>" not in body.split("<h1>")[1].split("</h1>")[0]
    )
    z = client.get(f"/corpora/{corpus.pk}/export/", {"format": "jfleg"})
    assert z["Content-Type"] == "application/zip" and 'filename="small_b.zip"' in z["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(z.content)) as zf:
        assert sorted(zf.namelist()) == ["small_b/small_b.ref0", "small_b/small_b.src"]
        assert zf.read("small_b/small_b.src") == b"He go home .\nI like cat .\n"
    one = client.get(f"/corpora/{corpus.pk}/export/", {"format": "m2", "untyped": "on"})
    assert 'filename="small_b.m2"' in one["Content-Disposition"]
    assert one.content.decode().startswith("S He go home .\nA 1 2|||X|||goes|||")


def test_an_export_error_is_shown_on_the_page(setup):
    client, _corpus, campaign, _ = setup
    bad = client.get(f"/rewrites/{campaign.pk}/export/", {"format": "jfleg", "rewrites": "3"})
    assert bad.status_code == 400 and "no sentence has 3 accepted rewrites" in bad.content.decode()


def test_campaign_export_downloads_jsonl_with_every_rewrite(setup):
    client, _, campaign, _anns = setup
    got = client.get(f"/rewrites/{campaign.pk}/export/", {"format": "jsonl", "corpus_systems": "on"})
    text = got.content.decode()
    assert got.status_code == 200 and 'filename="pilot.jsonl"' in got["Content-Disposition"]
    assert text.count('"difficulty"') == 4 and "ann0" not in text and '"ref1": "He goes home ."' in text


def test_campaign_statistics_page_shows_the_table_and_the_chart(setup):
    client, _, campaign, _ = setup
    page = client.get(f"/rewrites/{campaign.pk}/stats/")
    body = page.content.decode()
    assert page.status_code == 200
    assert "75.0%" in body  # 3 of 4 rewrites change the sentence
    assert "2.00 ± 0.82" in body  # difficulty 3, 1, 2, 2
    assert "<svg" in body and "NOUN:NUM" in body and "50.0% (2)" in body


def test_corpus_statistics_page_lists_each_system_against_the_source(setup):
    client, corpus, *_ = setup
    body = client.get(f"/corpora/{corpus.pk}/stats/", {"ster": "1"}).content.decode()
    assert "ref0" in body and "50.0%" in body and "Mean sTER" in body


def test_pages_are_for_researchers_of_the_project_only(setup, client):
    _, corpus, campaign, anns = setup
    client.force_login(anns[0])
    assert client.get(f"/corpora/{corpus.pk}/export/").status_code == 403
    assert client.get(f"/rewrites/{campaign.pk}/stats/").status_code == 403
    client.force_login(make_user("other", "researcher"))
    assert client.get(f"/corpora/{corpus.pk}/export/").status_code == 404
    assert client.get(f"/rewrites/{campaign.pk}/export/").status_code == 404
    assert client.get(f"/corpora/{corpus.pk}/stats/").status_code == 404


def test_statistics_of_a_campaign_without_rewrites_say_so(setup):
    client, corpus, campaign, _ = setup
    empty = rewrite_campaign_create(
        project=campaign.project, corpus=corpus, name="empty", created_by=campaign.created_by
    )
    page = client.get(f"/rewrites/{empty.pk}/stats/")
    assert page.status_code == 200 and "No edits." in page.content.decode()
