"""Rewrite-campaign export: accepted rewrites as references, MERGE joining, pseudonyms, JFLEG extension."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError

from annotate.formats.campaign import RewriteRecord, build_campaign_corpus, pseudonym
from annotate.formats.data import CorpusData, SystemData
from annotate.formats.readers import load
from annotate.formats.services import (
    campaign_export,
    campaign_references_add,
    corpus_export,
    corpus_import,
)
from annotate.rewrites.services import rewrite_campaign_create, rewrite_review
from annotate.services import SentenceRecord
from geceval.errors import GecInputError
from tests import factories
from tests.annotate_io.rewriting import rewrite_submit

SOURCES = ["a b .", "c d .", "e f .", "g h ."]


def base() -> CorpusData:
    return CorpusData(
        [SentenceRecord(s, "d", "doc", i) for i, s in enumerate(SOURCES)],
        [SystemData("ref0", "reference", [s.upper() for s in SOURCES]), SystemData("amu", "model", SOURCES)],
    )


def rw(pos, who, text="", flag="", status="accepted", reviewed="", order=0, group="") -> RewriteRecord:
    return RewriteRecord(
        pos, who, text, flag, status, reviewed, group, order=order or pos * 10 + int(who[-1])
    )


def test_a_merged_sentence_is_joined_with_the_next_in_source_and_every_reference():
    rewrites = [
        rw(0, "u1", "a B ."),
        rw(0, "u2", flag="merge"),
        rw(1, "u1", "c D ."),
        rw(1, "u3", "c d .", status="edited", reviewed="C D ."),
        rw(2, "u1", "e F ."),
        rw(2, "u2", "e f .", status="rejected"),  # only one counted rewrite: line dropped
        rw(3, "u1", "G h ."),
        rw(3, "u2", flag="not_annotatable"),  # counted flag: line dropped
    ]
    data, extra = build_campaign_corpus(base(), rewrites, n=2)
    assert data.source == ["a b . c d ."]
    assert data.sentences[0].metadata == {"merged_positions": [0, 1]}
    lines = {s.name: s.lines for s in data.systems}
    assert lines == {
        "ref0": ["A B . C D ."],
        "amu": ["a b . c d ."],
        "ref1": ["a B . c D ."],  # first counted rewrite of each sentence
        "ref2": ["a b . C D ."],  # the MERGE flag keeps its source; the edited one gives the expert's text
    }
    assert [r["annotator"] for r in extra[0]["rewrites"]] == ["u1", "u2", "u1", "u3"]


def test_merge_marks_chain_and_submitted_rewrites_do_not_count_as_references():
    rewrites = [rw(0, "u1", flag="merge"), rw(1, "u2", flag="merge"), rw(2, "u1", "E f .")]
    rewrites += [rw(3, "u1", "G h ."), rw(3, "u2", "g H .", status="submitted")]
    data, _ = build_campaign_corpus(base(), rewrites, n=1, include_corpus_systems=False)
    assert data.source == ["a b . c d . e f .", "g h ."]
    assert [s.lines for s in data.systems] == [["a b . c d . E f .", "G h ."]]
    assert [s.name for s in data.systems] == ["ref0"]
    with pytest.raises(GecInputError, match="no sentence has 2 accepted rewrites"):
        build_campaign_corpus(base(), rewrites, n=2)


def test_only_sentences_with_n_accepted_rewrites_are_exported_and_extra_rewrites_are_left_out():
    rewrites = [rw(0, "u1", "A b ."), rw(0, "u2", "a B ."), rw(0, "u3", "x ."), rw(1, "u1", "C d .")]
    data, _ = build_campaign_corpus(base(), rewrites, n=2, prefix="rw", include_corpus_systems=False)
    assert data.source == ["a b ."]
    assert {s.name: s.lines for s in data.systems} == {"rw0": ["A b ."], "rw1": ["a B ."]}


def test_pseudonyms_are_stable_and_do_not_show_the_user_id():
    assert pseudonym(42, "secret") == pseudonym(42, "secret")
    assert pseudonym(42, "secret") != pseudonym(43, "secret") != pseudonym(42, "other")
    assert "42" not in pseudonym(42, "secret")[1:3] and len(pseudonym(42, "secret")) == 16


# -- over the database ---------------------------------------------------------------------------


def make_user(name: str, role: str):
    user = get_user_model().objects.create_user(username=name, password=None)
    user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def jfleg_campaign(tmp_path):
    res = make_user("res", "researcher")
    ann = [make_user(f"ann{i}", "annotator") for i in range(2)]
    expert = make_user("exp", "expert")
    project = factories.project(res, members=[*ann, expert])
    for suffix, lines in {
        "src": ["He go home . ", "She like cat .", "Fine ."],
        "ref0": ["He goes home .", "She likes cats .", "Fine ."],
        "ref1": ["He went home .", "She likes cats .", "Fine ."],
    }.items():
        (tmp_path / f"tiny.{suffix}").write_text("".join(x + "\n" for x in lines))
    corpus = corpus_import(
        project=project, name="tiny", data=load(str(tmp_path / "tiny"), "jfleg"), tokenized=True
    )
    campaign = rewrite_campaign_create(
        project=project,
        corpus=corpus,
        name="more refs",
        created_by=res,
        rewrites_per_sentence=2,
        require_review=True,
    )
    return campaign, ann, expert, corpus


@pytest.mark.django_db
def test_a_campaign_over_jfleg_exports_its_references_after_the_original_ones(jfleg_campaign, tmp_path):
    campaign, (a, b), expert, corpus = jfleg_campaign
    sentences = list(corpus.sentences.order_by("position"))
    texts = {
        a: ["He goes home .", "She likes a cat .", "Fine ."],
        b: ["He goes home .", "She liked cats .", "Fine !"],
    }
    done = {}
    for user, lines in texts.items():
        for s, text in zip(sentences, lines):
            done[user, s.position], _ = rewrite_submit(campaign=campaign, user=user, sentence=s, text=text)
    rewrite_review(rewrite=done[a, 0], reviewer=expert, decision="accept")
    rewrite_review(rewrite=done[b, 0], reviewer=expert, decision="edit", text="He goes home now .")
    rewrite_review(rewrite=done[a, 1], reviewer=expert, decision="accept")
    rewrite_review(rewrite=done[b, 1], reviewer=expert, decision="accept")
    rewrite_review(rewrite=done[a, 2], reviewer=expert, decision="accept")
    # sentence 2 has one accepted rewrite (b's awaits review): left out of the JFLEG export
    files = campaign_export(campaign, fmt="jfleg")
    assert sorted(files) == [f"more_refs.{x}" for x in ("ref0", "ref1", "ref2", "ref3", "src")]
    assert files["more_refs.src"] == b"He go home . \nShe like cat .\n"
    assert files["more_refs.ref0"] == b"He goes home .\nShe likes cats .\n"
    assert files["more_refs.ref2"] == b"He goes home .\nShe likes a cat .\n"
    assert files["more_refs.ref3"] == b"He goes home now .\nShe liked cats .\n"

    jsonl = [
        json.loads(x) for x in campaign_export(campaign, fmt="jsonl")["more_refs.jsonl"].decode().splitlines()
    ]
    first = jsonl[0]["rewrites"]
    assert {r["annotator"] for r in first} == {
        pseudonym(a.pk, settings.SECRET_KEY),
        pseudonym(b.pk, settings.SECRET_KEY),
    }
    assert {r["status"] for r in first} == {"accepted", "edited"}
    assert first[1]["reviewer"] == pseudonym(expert.pk, settings.SECRET_KEY)
    assert "ann0" not in json.dumps(jsonl) and "exp" not in json.dumps([r["reviewer"] for r in first])
    assert jsonl[0]["references"]["ref3"] == "He goes home now ."

    with pytest.raises(GecInputError, match="only 2 of 3 sentences"):
        campaign_references_add(campaign)
    rewrite_review(rewrite=done[b, 2], reviewer=expert, decision="accept")
    added = campaign_references_add(campaign)
    assert [s.name for s in added] == ["ref2", "ref3"]
    call_command("export_corpus", "tiny", format="jfleg", out=str(tmp_path / "out"))
    assert (tmp_path / "out" / "tiny.ref3").read_text() == "He goes home now .\nShe liked cats .\nFine !\n"
    assert (tmp_path / "out" / "tiny.src").read_bytes() == (tmp_path / "tiny.src").read_bytes()
    # the M2 export types the new references with ERRANT next to the old ones
    m2 = corpus_export(corpus, fmt="m2")["tiny.m2"].decode()
    assert "A 3 3|||M:ADV|||now|||REQUIRED|||-NONE-|||3" in m2.split("\n\n")[0].splitlines()


@pytest.mark.django_db
def test_a_merged_sentence_in_a_campaign_is_joined_in_gmeg_layout(jfleg_campaign):
    campaign, (a, b), _, corpus = jfleg_campaign
    campaign.require_review = False
    campaign.save()
    s0, s1, _s2 = corpus.sentences.order_by("position")
    rewrite_submit(campaign=campaign, user=a, sentence=s0, flag="merge")
    rewrite_submit(campaign=campaign, user=b, sentence=s0, text="He goes home .")
    rewrite_submit(campaign=campaign, user=a, sentence=s1, text="She likes cats .")
    rewrite_submit(campaign=campaign, user=b, sentence=s1, text="She likes a cat .")
    files = campaign_export(campaign, fmt="gmeg")
    assert files["more_refs/source"] == b"He go home . She like cat .\n"
    assert files["more_refs/ref0"] == b"He goes home . She likes cats .\n"
    assert files["more_refs/ref2"] == b"He go home . She likes cats .\n"
    assert files["more_refs/ref3"] == b"He goes home . She likes a cat .\n"


@pytest.mark.django_db
def test_export_command_writes_a_campaign_with_only_its_own_references(jfleg_campaign, tmp_path):
    campaign, (a, b), _, corpus = jfleg_campaign
    campaign.require_review = False
    campaign.save()
    for s in corpus.sentences.order_by("position")[:1]:
        rewrite_submit(campaign=campaign, user=a, sentence=s, text="He goes home .")
        rewrite_submit(campaign=campaign, user=b, sentence=s, text="He went home .")
    call_command(
        "export_corpus",
        "more refs",
        campaign=True,
        no_corpus_systems=True,
        format="jfleg",
        out=str(tmp_path / "out"),
    )
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "more_refs.ref0",
        "more_refs.ref1",
        "more_refs.src",
    ]
    assert (tmp_path / "out" / "more_refs.ref1").read_text() == "He went home .\n"
    with pytest.raises(CommandError, match="no sentence has 3 accepted rewrites"):
        call_command(
            "export_corpus", "more refs", campaign=True, rewrites=3, format="m2", out=str(tmp_path / "out")
        )
    assert not (tmp_path / "out" / "more_refs.m2").exists()
