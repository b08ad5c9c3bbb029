"""Importing past crowd results: MTurk batch CSV (hand-made), Appraise XML and WMT CSV from ../shared."""

from __future__ import annotations

import json
import xml.parsers.expat
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotate.models import System
from crowd.importing import detect_mturk_mapping, judgments_import, judgments_parse
from crowd.models import CrowdWorker
from geceval.errors import GecInputError
from ranking.models import Assignment, Campaign, Candidate, Rating, Screen, ScreenJudgment
from ranking.services.results import campaign_rankings, campaign_scores_recompute
from tests import factories
from tests.shared_data import shared_path

pytestmark = pytest.mark.django_db

HEADER = (
    "HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,"
    "Input.item_id,Input.source,Input.system1,Input.text1,Input.system2,Input.text2,Input.system3,Input.text3,"
    "Answer.rank_1,Answer.rank_2,Answer.rank_3"
)
ROWS = [
    # HIT 1, item 0: CAMB and AMU made the same text (collapsed in one slot).
    "H1,A1,W1,Approved,60,0,He go home .,CAMB AMU,He goes home .,src,He go home .,NUS,He went home .,1,3,2",
    "H1,A2,W2,Submitted,30,0,He go home .,CAMB AMU,He goes home .,src,He go home .,NUS,He went home .,1,2,2",
    # Rejected: skipped by default.
    "H1,A3,W3,Rejected,5,0,He go home .,CAMB AMU,He goes home .,src,He go home .,NUS,He went home .,3,3,3",
    # HIT 2, item 1: an empty third slot.
    "H2,A4,W1,Approved,40,1,She like cats .,CAMB,She likes cats .,src,She like cats .,,,2,1,",
]


def mturk_csv(rows=ROWS) -> bytes:
    return ("\n".join([HEADER, *rows]) + "\n").encode()


@pytest.fixture
def owner():
    return factories.user("res", "researcher")


@pytest.fixture
def project(owner):
    return factories.project(owner)


def test_mturk_mapping_is_detected_from_input_system_and_answer_rank_columns():
    mapping = detect_mturk_mapping(HEADER.split(","))
    assert mapping["item"] == "Input.item_id"
    assert mapping["source"] == "Input.source"
    assert mapping["systems"] == ["Input.system1", "Input.system2", "Input.system3"]
    assert mapping["texts"] == ["Input.text1", "Input.text2", "Input.text3"]
    assert mapping["answers"] == ["Answer.rank_1", "Answer.rank_2", "Answer.rank_3"]
    assert mapping["answer_kind"] == "rank"


def test_mturk_csv_import_collapses_systems_skips_rejected_and_empty_slots(project):
    report = judgments_import(project=project, name="old batch", fmt="mturk-csv", path_or_bytes=mturk_csv())
    assert report.lines() == [
        "items: 2",
        "workers: 2",
        "judgments: 3",
        # (CAMB,AMU),src,NUS -> 4 entries -> 6 pairs; twice; then CAMB,src -> 1.
        "pairwise: 13",
        "skipped: 2 (1 empty slot, 1 rejected assignment)",
    ]
    campaign = report.campaign
    assert (campaign.origin, campaign.status, campaign.protocol) == ("imported", "closed", "ranking")
    assert campaign.corpus.sentences.count() == 2
    assert list(campaign.corpus.sentences.values_list("text", flat=True)) == [
        "He go home .",
        "She like cats .",
    ]
    assert {s.name: s.kind for s in System.objects.filter(corpus=campaign.corpus)} == {
        "AMU": "model",
        "CAMB": "model",
        "NUS": "model",
        "src": "source",
    }
    collapsed = Candidate.objects.get(screen__campaign=campaign, screen__sentence__position=0, position=0)
    assert collapsed.text == "He goes home ."
    assert sorted(collapsed.outputs.values_list("system__name", flat=True)) == ["AMU", "CAMB"]
    # Both workers of HIT H1 saw the same screen; one submitted assignment per (worker, HIT).
    assert Screen.objects.filter(campaign=campaign).count() == 2
    assert Assignment.objects.filter(hit__campaign=campaign, status="submitted").count() == 3
    assert ScreenJudgment.objects.filter(screen__campaign=campaign).count() == 3
    assert sorted(
        Rating.objects.filter(judgment__screen__campaign=campaign, judgment__judge__username="mturk-W2")
        .order_by("candidate__position")
        .values_list("rank", flat=True)
    ) == [1, 2, 2]
    # MTurk WorkerIds are the same identities a live MTurk campaign uses.
    assert set(CrowdWorker.objects.values_list("platform", "external_id")) == {
        ("mturk", "W1"),
        ("mturk", "W2"),
    }
    seconds = ScreenJudgment.objects.get(screen__campaign=campaign, judge__username="mturk-W2").seconds
    assert seconds == 30.0
    # Analyses read it like a collected campaign: 4 + 4 + 2 entries.
    rankings = campaign_rankings(campaign)
    assert sorted(len(r.entries) for r in rankings) == [2, 4, 4]
    scores = campaign_scores_recompute(campaign_id=campaign.pk)
    assert {s.system.name for s in scores} == {"AMU", "CAMB", "NUS", "src"}


def test_rejected_assignments_are_kept_with_include_rejected(project):
    report = judgments_import(
        project=project, name="all", fmt="mturk-csv", path_or_bytes=mturk_csv(), include_rejected=True
    )
    assert (report.judgments, report.workers, report.skipped_total) == (4, 3, 1)


def test_explicit_mapping_with_scores_makes_a_prws_campaign(project):
    rows = ["X,A1,W1,Approved,10,7,src text,sysA,60", "X,A2,W2,Approved,12,7,src text,sysA,"]
    data = (
        "HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,Input.seg,Input.orig,Input.s,Answer.slider\n"
        + "\n".join(rows)
        + "\n"
    ).encode()
    mapping = {
        "item": "Input.seg",
        "source": "Input.orig",
        "systems": ["Input.s"],
        "answers": ["Answer.slider"],
        "answer_kind": "score",
    }
    report = judgments_import(
        project=project, name="sliders", fmt="mturk-csv", path_or_bytes=data, mapping=mapping
    )
    assert report.lines()[:4] == ["items: 1", "workers: 1", "judgments: 1", "pairwise: 0"]
    assert report.skipped == {"unanswered slot": 1, "judgment with too few answers": 1}
    assert report.campaign.protocol == "prws"
    assert list(
        Rating.objects.filter(judgment__screen__campaign=report.campaign).values_list("score", flat=True)
    ) == [60]


def test_a_mapping_naming_missing_columns_is_refused_and_nothing_is_saved(project):
    with pytest.raises(GecInputError, match=r"Input\.nope"):
        judgments_import(
            project=project,
            name="bad",
            fmt="mturk-csv",
            path_or_bytes=mturk_csv(),
            mapping={"item": "Input.nope", "systems": [], "answers": []},
        )
    assert not Campaign.objects.exists()


def test_import_is_all_or_nothing_on_a_malformed_row(project):
    rows = [*ROWS, "H3,A9,W9,Approved,10,2,x,CAMB,t,src,u,NUS,v,1,two,3"]
    with pytest.raises(GecInputError, match=r"Answer\.rank_2 'two' is not a number"):
        judgments_import(project=project, name="bad", fmt="mturk-csv", path_or_bytes=mturk_csv(rows))
    assert not Campaign.objects.exists() and not CrowdWorker.objects.exists()


def test_items_attach_to_the_given_corpus_by_position(project):
    corpus, _ = factories.corpus_with_systems(
        project,
        sources=["He go home .", "She like cats ."],
        systems={"CAMB": ["He goes home .", "She likes cats ."]},
    )
    report = judgments_import(
        project=project, name="on corpus", fmt="mturk-csv", path_or_bytes=mturk_csv(), corpus=corpus
    )
    assert report.campaign.corpus == corpus
    assert System.objects.filter(corpus=corpus).count() == 4  # CAMB reused; AMU, src, NUS added
    # said, not silent: a judged name that differs from the corpus' (BART / BART.txt) shows here
    assert (
        report.lines()[-1] == "systems added to the corpus (no system of that name was there): AMU, NUS, src"
    )
    screen = Screen.objects.get(campaign=report.campaign, sentence__position=1)
    assert screen.sentence.text == "She like cats ."


def test_command_prints_the_report_lines(project, tmp_path):
    path = tmp_path / "batch.csv"
    path.write_bytes(mturk_csv())
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps(detect_mturk_mapping(HEADER.split(","))))
    out = StringIO()
    call_command(
        "import_judgments",
        str(path),
        "--format",
        "mturk-csv",
        "--name",
        "cli",
        "--project",
        project.name,
        "--mapping",
        str(mapping),
        stdout=out,
    )
    assert out.getvalue().splitlines() == [
        "items: 2",
        "workers: 2",
        "judgments: 3",
        "pairwise: 13",
        "skipped: 2 (1 empty slot, 1 rejected assignment)",
        f"campaign: {Campaign.objects.get(name='cli').pk} (cli, imported, closed)",
    ]


@pytest.mark.shared
def test_gec_ranking_appraise_xml_without_non_native_gives_the_28146_pairwise_judgments(project):
    path = shared_path("gec-ranking", "data", "all_judgments.xml")
    report = judgments_import(
        project=project,
        name="gec-ranking",
        fmt="appraise-xml",
        path_or_bytes=path,
        exclude_judges=["non-native"],
    )
    assert (report.judgments, report.pairwise, report.workers, report.items) == (1136, 28146, 3, 655)
    rankings = campaign_rankings(report.campaign)
    assert sum(len(r.pairs()) for r in rankings) == 28146
    # Collapsed systems are one candidate standing for several outputs.
    assert Candidate.objects.filter(screen__campaign=report.campaign).count() < sum(
        len(r.entries) for r in rankings
    )


@pytest.mark.shared
def test_jfleg_pairwise_csv_imports_as_wmt_csv(project):
    path = shared_path("jfleg", "EACL_exp", "mturk", "pairwise.csv")
    report = judgments_import(project=project, name="jfleg", fmt="wmt-csv", path_or_bytes=path)
    assert report.lines() == ["items: 176", "workers: 2", "judgments: 1629", "pairwise: 1629", "skipped: 0"]
    assert set(report.campaign.systems.values_list("name", flat=True)) == {
        "AMU",
        "CAMB",
        "NMT",
        "NUS",
        "orig",
        "turk",
    }


def test_parse_without_database_for_the_preview():
    parsed = judgments_parse(fmt="mturk-csv", path_or_bytes=mturk_csv())
    assert [j.item for j in parsed.judgments] == ["0", "0", "1"]
    assert parsed.judgments[0].entries[0].systems == ("CAMB", "AMU")


APPRAISE = b"""<?xml version="1.0" encoding="UTF-8"?>
<appraise-results><ranking-result>
  <ranking-item id="3" user="ann1"><translation system="A,B" rank="1"/><translation system="C" rank="2"/></ranking-item>
  <ranking-item id="3" user="ann2"><translation system="A,B" rank="2"/><translation system="C" rank="1"/></ranking-item>
  <ranking-item id="5" user="non-native"><translation system="A" rank="1"/><translation system="C" rank="2"/></ranking-item>
  <ranking-item id="5" user="ann1" skipped="true"><translation system="A" rank="1"/><translation system="C" rank="2"/></ranking-item>
</ranking-result></appraise-results>
"""


def test_appraise_xml_collapsed_systems_become_one_candidate_and_excluded_judges_are_dropped(project):
    report = judgments_import(
        project=project, name="ax", fmt="appraise-xml", path_or_bytes=APPRAISE, exclude_judges=["non-native"]
    )
    # Per judgment: A, B, C -> pairs A-B (tie), A-C, B-C.
    assert report.lines() == [
        "items: 1",
        "workers: 2",
        "judgments: 2",
        "pairwise: 6",
        "skipped: 0",
        "items: sentences keyed by the items' id attribute, as written (no src-id in the file)",
    ]
    (screen,) = Screen.objects.filter(campaign=report.campaign)
    assert [sorted(c.outputs.values_list("system__name", flat=True)) for c in screen.candidates.all()] == [
        ["A", "B"],
        ["C"],
    ]
    assert list(report.campaign.corpus.sentences.values_list("text", "metadata")) == [("3", {"id": "3"})]


# Appraise as SEEDA and the CoNLL-14 judgments write it: id numbers the HIT, src-id the sentence
# (1-based: the corpus has 3 sentences and one item has src-id 3); "T5 Riken" two systems shown once
APPRAISE_SRC_ID = b"""<appraise-results><ranking-result>
  <ranking-item src-id="3" doc-id="d" id="1" user="annotator1"><translation system="BART" rank="2"/><translation system="T5 Riken" rank="1"/></ranking-item>
  <ranking-item src-id="2" doc-id="d" id="2" user="annotator1"><translation system="BART" rank="1"/><translation system="T5" rank="2"/></ranking-item>
</ranking-result></appraise-results>
"""


def _three_sentences(project):
    corpus, _ = factories.corpus_with_systems(
        project,
        sources=["First one .", "Second one .", "Third one ."],
        systems={"BART": ["First one .", "Second one .", "Third one ."]},
    )
    return corpus


def test_appraise_src_id_lands_on_the_sentence_it_names_with_the_base_detected(project):
    corpus = _three_sentences(project)
    report = judgments_import(
        project=project, name="seeda", fmt="appraise-xml", path_or_bytes=APPRAISE_SRC_ID, corpus=corpus
    )
    assert report.lines()[-1] == (
        "items: sentences keyed by src-id, base 1 (detected: an item has the corpus' line count, 3, "
        "as src-id); sentence index = src-id - 1"
    )
    report.campaign.refresh_from_db()
    assert report.campaign.item_key == report.lines()[-1].removeprefix("items: ")
    screens = Screen.objects.filter(campaign=report.campaign).order_by("sentence__position")
    assert [s.sentence.position for s in screens] == [1, 2]  # src-id 2 and 3, not the HITs' ids 1 and 2
    first = screens.get(sentence__position=2)
    assert [sorted(c.outputs.values_list("system__name", flat=True)) for c in first.candidates.all()] == [
        ["BART"],
        ["Riken", "T5"],
    ]


def test_appraise_src_id_whose_base_cannot_be_told_is_refused_until_given(project, tmp_path):
    corpus = _three_sentences(project)
    subset = APPRAISE_SRC_ID.replace(b'src-id="3"', b'src-id="1"')  # neither 0 nor 3: base unknown
    with pytest.raises(GecInputError, match="give --src-id-base 0 or 1"):
        judgments_import(project=project, name="s", fmt="appraise-xml", path_or_bytes=subset, corpus=corpus)
    assert not Campaign.objects.exists()
    path = tmp_path / "seeda.xml"
    path.write_bytes(subset)
    out = StringIO()
    args = [
        str(path),
        "--format",
        "appraise-xml",
        "--name",
        "s",
        "--project",
        project.name,
        "--corpus",
        corpus.name,
    ]
    call_command("import_judgments", *args, "--src-id-base", "0", stdout=out)
    assert "items: sentences keyed by src-id, base 0 (given)" in out.getvalue()
    positions = Screen.objects.filter(campaign__name="s").values_list("sentence__position", flat=True)
    assert sorted(positions) == [1, 2]
    with pytest.raises(GecInputError, match="applies to appraise-xml files only"):
        judgments_import(
            project=project, name="w", fmt="wmt-csv", path_or_bytes=b"x", corpus=corpus, src_id_base=1
        )


def test_appraise_xml_is_parsed_once_by_the_core_reader(monkeypatch):
    made = []
    create = xml.parsers.expat.ParserCreate

    def counting(*args, **kwargs):
        made.append(1)
        return create(*args, **kwargs)

    monkeypatch.setattr(xml.parsers.expat, "ParserCreate", counting)
    parsed = judgments_parse(fmt="appraise-xml", path_or_bytes=APPRAISE, exclude_judges=["non-native"])
    assert len(made) == 1
    assert [[e.systems for e in j.entries] for j in parsed.judgments] == [
        [("A", "B"), ("C",)],
        [("A", "B"), ("C",)],
    ]


@pytest.mark.shared
def test_gec_ranking_appraise_xml_parses_to_the_4544_groups_shown():
    parsed = judgments_parse(
        fmt="appraise-xml",
        path_or_bytes=shared_path("gec-ranking", "data", "all_judgments.xml"),
        exclude_judges=["non-native"],
    )
    assert len(parsed.judgments) == 1136
    assert sum(len(j.entries) for j in parsed.judgments) == 4544
    assert sum(len(e.systems) for j in parsed.judgments for e in j.entries) == 7443


def test_wmt_csv_unranked_entries_are_skipped_with_a_reason(project):
    data = (
        b"segmentId,judgeId,system1Id,system1rank,system2Id,system2rank,system3Id,system3rank\n"
        b"1,j1,A,1,B,2,C,-1\n"
        b"1,j1,A,-1,B,-1,C,1\n"
    )
    report = judgments_import(project=project, name="w", fmt="wmt-csv", path_or_bytes=data)
    assert report.lines() == [
        "items: 1",
        "workers: 1",
        "judgments: 1",
        "pairwise: 1",
        "skipped: 4 (1 judgment with too few answers, 3 unranked entry)",
    ]


def test_prws_csv_gives_a_prws_campaign_with_scores_and_meaning_changed(project):
    data = (
        b"item,worker,system,score,meaning_changed\n"
        b"0,w1,amu,70,0\n0,w1,ref,90,1\n0,w2,amu,60,no\n1,w1,amu,55.4,\n1,w1,ref,140,0\n"
    )
    report = judgments_import(project=project, name="p", fmt="prws-csv", path_or_bytes=data)
    assert report.lines() == [
        "items: 2",
        "workers: 2",
        "judgments: 3",
        "pairwise: 0",
        "skipped: 1 (1 score outside 0-100)",
    ]
    campaign = report.campaign
    assert campaign.protocol == "prws"
    ratings = Rating.objects.filter(judgment__screen__campaign=campaign)
    assert sorted(ratings.values_list("candidate__outputs__system__name", "score", "meaning_changed")) == [
        ("amu", 55, False),
        ("amu", 60, False),
        ("amu", 70, False),
        ("ref", 90, True),
    ]


def test_import_page_takes_the_src_id_base_previews_the_rule_and_imports_with_it(client, owner, project):
    import io

    from django.urls import reverse

    corpus = _three_sentences(project)
    client.force_login(owner)
    subset = APPRAISE_SRC_ID.replace(b'src-id="3"', b'src-id="1"')  # neither 0 nor 3: base unknown

    def post(**extra):
        upload = io.BytesIO(subset)
        upload.name = "seeda.xml"
        form = {"file": upload, "format": "appraise-xml", "name": "seeda", "project": project.pk}
        return client.post(reverse("crowd-import"), {**form, "corpus": corpus.pk, **extra})

    refused = post()
    assert refused.status_code == 400 and b"give --src-id-base 0 or 1" in refused.content
    preview = post(src_id_base="0")
    assert preview.status_code == 200
    assert b'<p id="preview-items">Items: sentences keyed by src-id, base 0 (given)' in preview.content
    done = client.post(reverse("crowd-import"), {"action": "import", "mapping": ""})
    campaign = Campaign.objects.get(name="seeda")
    assert done.status_code == 302 and campaign.item_key.startswith("sentences keyed by src-id, base 0")
    positions = Screen.objects.filter(campaign=campaign).values_list("sentence__position", flat=True)
    assert sorted(positions) == [1, 2]
    upload = io.BytesIO(b"system1Id,system1rank,system2Id,system2rank,judgeId,segmentId\nA,1,B,2,j,0\n")
    upload.name = "j.csv"
    wrong = client.post(
        reverse("crowd-import"),
        {"file": upload, "format": "wmt-csv", "name": "w", "project": project.pk, "src_id_base": "1"},
    )
    assert wrong.status_code == 400 and b"a src-id base is read only for Appraise XML files" in wrong.content


def test_judgments_that_mostly_miss_the_chosen_corpus_are_refused_unless_allowed(project, tmp_path):
    """Issue 34: onto a corpus too short for the file (or a wrong src-id base), most judgments used to
    be skipped with only a count in the report; now under 90% landing is refused, naming the items."""
    corpus, _ = factories.corpus_with_systems(
        project, sources=["He go home ."], systems={"CAMB": ["He goes home ."]}
    )
    with pytest.raises(GecInputError) as refused:
        judgments_import(
            project=project, name="short", fmt="mturk-csv", path_or_bytes=mturk_csv(), corpus=corpus
        )
    assert "only 2 of 3 judgments (66.7%) name a sentence of the corpus, at least 90% are needed" in str(
        refused.value
    )
    assert "items 1 name no sentence of corpus" in str(refused.value)
    assert not Campaign.objects.exists()
    path = tmp_path / "batch.csv"
    path.write_bytes(mturk_csv())
    args = [str(path), "--format", "mturk-csv", "--name", "short", "--corpus", str(corpus.pk)]
    with pytest.raises(CommandError, match="name a sentence of the corpus"):
        call_command("import_judgments", *args, stdout=StringIO())
    call_command("import_judgments", *args, "--allow-missing", stdout=StringIO())
    campaign = Campaign.objects.get(name="short")
    assert set(Screen.objects.filter(campaign=campaign).values_list("sentence__position", flat=True)) == {0}
