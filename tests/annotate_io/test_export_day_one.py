"""Day-one export bugs: GMEG files named by role, reasons shown before the click, page and JSONL agree."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotate.formats.data import CorpusData, SystemData
from annotate.formats.services import campaign_export, corpus_export
from annotate.formats.writers import write_gmeg
from annotate.models import Corpus
from annotate.services import SentenceRecord
from ranking.demo import DEMO_PROJECT, demo_load
from tests.annotate_io.rewriting import rewrite_submit
from tests.annotate_io.test_campaign_export import jfleg_campaign  # noqa: F401  (fixture)


@pytest.mark.django_db
def test_gmeg_export_of_the_demo_corpus_names_files_by_role():
    demo_load()
    corpus = Corpus.objects.get(project__name=DEMO_PROJECT)
    files = corpus_export(corpus, fmt="gmeg")
    assert sorted(files) == [
        f"{domain}/{name}"
        for domain in ("essay", "forum")
        for name in (
            "copyedit-rules",
            "nmt-base",
            "nmt-fluent",
            "ref0",
            "ref1",
            "smt-2014",
            "source",
            "source+error",
        )
    ]


def test_gmeg_systems_named_like_the_layouts_files_get_a_file_of_their_own():
    data = CorpusData(
        [SentenceRecord("a ."), SentenceRecord("b .")],
        [
            SystemData("gold", "reference", ["A .", "B ."]),
            SystemData("source", "model", ["x .", "y ."]),
            SystemData("ref0", "model", ["r .", "s ."]),
            SystemData("a/b c", "model", ["1", "2"]),
            SystemData("noise", "source+error", ["an .", "bb ."]),
            SystemData("orig", "source", ["a .", "b ."]),
        ],
    )
    files = write_gmeg(data, "c")
    assert files == {
        "c/source": b"a .\nb .\n",
        "c/ref0": b"A .\nB .\n",
        "c/source+error": b"an .\nbb .\n",
        "c/system-source": b"x .\ny .\n",
        "c/system-ref0": b"r .\ns .\n",
        "c/system-a_b_c": b"1\n2\n",
    }


@pytest.mark.django_db
def test_export_page_says_why_a_format_cannot_be_written_before_the_click(jfleg_campaign, client):  # noqa: F811
    campaign, _, _, corpus = jfleg_campaign
    client.force_login(campaign.created_by)
    page = client.get(reverse("rewrite-campaign-export", args=[campaign.pk])).content.decode()
    assert "Not every format can be written now:" in page
    assert "<li>JFLEG: no sentence has 2 accepted rewrites yet</li>" in page
    assert "<li>GMEG: no sentence has 2 accepted rewrites yet</li>" in page
    assert "<li>JSONL" not in page
    corpus.systems.filter(kind="reference").delete()
    page = client.get(reverse("corpus-export", args=[corpus.pk])).content.decode()
    assert "<li>M2: the corpus has no references to write as M2 edits</li>" in page


@pytest.mark.django_db
def test_campaign_jsonl_lists_every_rewrite_as_the_page_says_before_two_are_accepted(jfleg_campaign):  # noqa: F811
    campaign, (a, _b), _, corpus = jfleg_campaign
    s0, _s1, _s2 = corpus.sentences.order_by("position")
    rewrite_submit(campaign=campaign, user=a, sentence=s0, text="He goes home .")
    lines = campaign_export(campaign, fmt="jsonl")["more_refs.jsonl"].decode().splitlines()
    objects = [json.loads(x) for x in lines]
    assert [o["text"] for o in objects] == ["He go home . ", "She like cat .", "Fine ."]
    assert [[r["text"] for r in o["rewrites"]] for o in objects] == [["He goes home ."], [], []]
    assert objects[0]["rewrites"][0]["status"] == "submitted"
    assert objects[0]["references"] == {"ref0": "He goes home .", "ref1": "He went home ."}
