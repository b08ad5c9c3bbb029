"""A campaign's judgment exports name sentences as our importer and the reference data read them:
by 0-based corpus line, or by the sentence's id in a corpus that names them (an imported campaign's).
Exported, imported back onto the same corpus, every judgment lands on the sentence it was made on;
scored by ``python -m geceval meta-eval --sentence-level --outputs``, the judged lines are the ones
scored."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from django.urls import reverse

from crowd.importing.saving import judgments_import
from geceval.formats.prws_csv import read_gmeg_segment_csv, read_prws_csv
from ranking.analysis.exports import iter_judgments
from ranking.selectors import valid_ratings
from ranking.services import CandidateScore, campaign_create
from tests.factories import (
    corpus_with_systems,
    project,
    prws_campaign,
    researcher_and_project,
    trap_world,
    user,
)
from tests.judging import do_hit
from tests.shared_data import shared_path

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[2]


def _judgments(campaign) -> list[tuple[int, str, tuple]]:
    """(sentence position, sentence text, sorted (system, rank, score, meaning changed)) per valid
    judgment, sorted."""
    rows = valid_ratings(campaign).values_list(
        "judgment_id",
        "judgment__screen__sentence__position",
        "judgment__screen__sentence__text",
        "candidate__outputs__system__name",
        "rank",
        "score",
        "meaning_changed",
    )
    by_judgment: dict[int, tuple[int, str, list]] = {}
    for jid, position, text, *entry in rows:
        by_judgment.setdefault(jid, (position, text, []))[2].append(tuple(entry))
    return sorted((p, t, tuple(sorted(entries))) for p, t, entries in by_judgment.values())


def _collected_campaign(protocol: str, answer):
    """Two workers judge src, a, b, c on every sentence of the 6-sentence corpus (its two HITs each)."""
    researcher, workers, project, corpus, by_name = trap_world(2)
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="collected",
        systems=[by_name[n] for n in ("src", "a", "b", "c")],
        created_by=researcher,
        protocol=protocol,
        max_candidates=4,
        judgments_per_item=2,
        screens_per_hit=3,
    )
    for worker in workers:
        for _hit in range(2):
            assert do_hit(campaign, worker, answer).status == "submitted"
    return researcher, campaign


def _rank_by_sentence(screen, candidate):
    """Preferences that differ from sentence to sentence, so a judgment on the wrong one shows."""
    names = candidate.outputs.values_list("system__name", flat=True)
    return CandidateScore(rank=min(1 + (ord(n[0]) + screen.sentence.position) % 3 for n in names))


def _score_by_sentence(screen, candidate):
    """Scores and 'meaning changed' that differ from sentence to sentence."""
    names = sorted(candidate.outputs.values_list("system__name", flat=True))
    position = screen.sentence.position
    return CandidateScore(score=10 * position + ord(names[0][0]) % 7, meaning_changed=position % 2 == 1)


@pytest.mark.parametrize("fmt", ["appraise-xml", "wmt-csv"])
def test_an_export_imported_onto_the_campaigns_corpus_names_the_same_sentences_systems_and_ranks(client, fmt):
    researcher, campaign = _collected_campaign("ranking", _rank_by_sentence)
    original = _judgments(campaign)
    assert len(original) == 12 and {p for p, _t, _e in original} == set(range(6))
    client.force_login(researcher)
    response = client.get(reverse("campaign-judgments-export", args=[campaign.pk, fmt]))
    assert response.status_code == 200
    data = b"".join(response.streaming_content)
    report = judgments_import(
        project=campaign.project, name="back", fmt=fmt, path_or_bytes=data, corpus=campaign.corpus
    )
    assert report.campaign.corpus_id == campaign.corpus_id
    assert _judgments(report.campaign) == original
    assert not report.skipped


def test_a_prws_campaigns_ratings_and_segment_scores_name_sentences_by_0_based_line_too():
    """Already so before the ranking exports were fixed: the PRWS CSV read back onto the corpus, and
    the GMEG segment scores' row k the sentence at position k (as ``read_gmeg_segment_csv`` reads)."""
    _researcher, campaign = _collected_campaign("prws", _score_by_sentence)
    original = _judgments(campaign)
    assert len(original) == 12 and {p for p, _t, _e in original} == set(range(6))
    data = "".join(iter_judgments(campaign, "prws-csv")).encode()
    report = judgments_import(
        project=campaign.project, name="back", fmt="prws-csv", path_or_bytes=data, corpus=campaign.corpus
    )
    assert _judgments(report.campaign) == original and not report.skipped
    means: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for position, _text, entries in original:
        for system, _rank, score, _mc in entries:
            means[system][str(position)].append(score)
    segments = read_gmeg_segment_csv(
        io.BytesIO("".join(iter_judgments(campaign, "gmeg-segment-csv")).encode())
    )
    assert segments == {s: {k: sum(v) / len(v) for k, v in per.items()} for s, per in means.items()}


def test_sentence_level_meta_evaluation_of_an_exported_campaign_scores_the_judged_lines(tmp_path):
    """Workers prefer "good" on even lines and "bad" on odd ones; in the files given to meta-eval the
    preferred output equals the reference on exactly those lines, so chrF agrees with every judgment
    when the export names the judged lines and with none when it names the next ones."""
    researcher, worker = user("res", "researcher"), user("w-meta", "annotator")
    team = project(researcher, members=[worker])
    refs = ["He goes home .", "She likes cats .", "They were late .", "I have a dog .", "We can go ."]
    noise = ["Xq zv wl .", "Pk bf jd .", "Yz qq rm .", "Vv kt hx .", "Jw pq zz ."]
    good = [r if i % 2 == 0 else n for i, (r, n) in enumerate(zip(refs, noise, strict=True))]
    bad = [n if i % 2 == 0 else r for i, (r, n) in enumerate(zip(refs, noise, strict=True))]
    sources = ["He go home .", "She like cats .", "They was late .", "I has a dog ."]
    corpus, systems = corpus_with_systems(
        team, sources=sources, systems={"good": good[:4], "bad": bad[:4]}
    )  # the files below have a fifth line, so a judgment named one line too far is scored, not refused
    campaign = campaign_create(
        project=team,
        corpus=corpus,
        name="meta",
        systems=systems,
        created_by=researcher,
        protocol="ranking",
        judgments_per_item=1,
        screens_per_hit=4,
    )

    def answer(screen, candidate):
        (name,) = candidate.outputs.values_list("system__name", flat=True)
        preferred = "good" if screen.sentence.position % 2 == 0 else "bad"
        return CandidateScore(rank=1 if name == preferred else 2)

    assert do_hit(campaign, worker, answer).status == "submitted"
    xml = tmp_path / "export.xml"
    xml.write_text("".join(iter_judgments(campaign, "appraise-xml")), encoding="utf-8")
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    for name, lines in (("good", good), ("bad", bad)):
        (outputs / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "src").write_text("\n".join([*sources, "We can goes ."]) + "\n", encoding="utf-8")
    (tmp_path / "ref").write_text("\n".join(refs) + "\n", encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "geceval", "meta-eval", "--sentence-level", "--judgments", str(xml),
         "--outputs", str(outputs), "--metrics", "chrf", "--source", str(tmp_path / "src"),
         "--refs", str(tmp_path / "ref"), "--json"],
        cwd=REPO, capture_output=True, text=True, check=True,
    )  # fmt: skip
    rows = [row for sub in json.loads(out.stdout)["subsets"].values() for row in sub["metrics"]]
    assert rows and {
        (r["metric"], r["concordant"], r["discordant"], r["missing"], r["tau"]) for r in rows
    } == {("chrf", 4, 0, 0, 1.0)}


# --------------------------------------------------------------------------- corpora that name their sentences

APPRAISE = b"""<?xml version="1.0" encoding="utf-8"?>
<appraise-results><ranking-result>
<ranking-item id="62" user="ann1"><translation system="A" rank="1"/><translation system="B" rank="2"/>
 <translation system="C" rank="3"/></ranking-item>
<ranking-item id="1155" user="ann1"><translation system="A" rank="2"/><translation system="C" rank="1"/></ranking-item>
<ranking-item id="13" user="ann2"><translation system="B" rank="1"/><translation system="C" rank="1"/>
 <translation system="A" rank="2"/></ranking-item>
<ranking-item id="62" user="ann2"><translation system="C" rank="1"/><translation system="B" rank="2"/></ranking-item>
</ranking-result></appraise-results>
"""


@pytest.mark.parametrize("fmt", ["appraise-xml", "wmt-csv"])
@pytest.mark.parametrize("compact", [False, True])
def test_an_imported_campaigns_export_keeps_the_item_ids_its_corpus_names_its_sentences_by(fmt, compact):
    """Imported without a corpus, the file's items (13, 62, 1155 of some 1,312-line test set) become
    a 3-sentence corpus whose sentences keep their ids (``metadata["id"]``); the importer reads an
    item by that id on such a corpus, so the export writes it, not the sentence's line (0, 1, 2)."""
    from geceval.formats.judgments import read_appraise_xml, read_wmt_csv

    _researcher, team = researcher_and_project()
    first = judgments_import(project=team, name="first", fmt="appraise-xml", path_or_bytes=APPRAISE)
    source = first.campaign
    if compact:  # the compact stored form (``ranking.models.imported``) from the same judgments as a WMT CSV
        data = "".join(iter_judgments(source, "wmt-csv")).encode()
        source = judgments_import(
            project=team, name="compact", fmt="wmt-csv", path_or_bytes=data, compact=True
        )
        source = source.campaign
    original = _judgments(first.campaign)
    assert [p for p, _t, _e in original] == [0, 1, 1, 2]  # 13, 62 twice, 1155
    data = "".join(iter_judgments(source, fmt)).encode()
    read = read_appraise_xml if fmt == "appraise-xml" else read_wmt_csv
    assert sorted(j.item for j in read(io.BytesIO(data))) == ["1155", "13", "62", "62"]
    back = judgments_import(project=team, name="back", fmt=fmt, path_or_bytes=data, corpus=source.corpus)
    assert not back.skipped and _judgments(back.campaign) == original


def test_an_imported_prws_campaigns_ratings_read_back_onto_its_corpus_by_the_items_names():
    _researcher, campaign, _ratings = prws_campaign()  # items s0 ... s29
    data = "".join(iter_judgments(campaign, "prws-csv")).encode()
    assert {r.item for r in read_prws_csv(io.BytesIO(data))} == {f"s{i}" for i in range(30)}
    back = judgments_import(
        project=campaign.project, name="back", fmt="prws-csv", path_or_bytes=data, corpus=campaign.corpus
    )
    assert not back.skipped and _judgments(back.campaign) == _judgments(campaign)


def test_an_item_name_from_an_uploaded_file_is_escaped_in_the_exports():
    from geceval.formats.judgments import read_appraise_xml, read_wmt_csv

    hostile = '"><script>alert(1)</script>&amp;'
    data = (
        f'<ranking-results><ranking-item id="{escape(hostile, {chr(34): "&quot;"})}" user="u">'
        '<translation system="A" rank="1"/><translation system="B" rank="2"/></ranking-item>'
        '<ranking-item id="=1+1" user="u"><translation system="A" rank="2"/><translation system="B" rank="1"/>'
        "</ranking-item></ranking-results>"
    ).encode()
    _researcher, team = researcher_and_project()
    campaign = judgments_import(project=team, name="x", fmt="appraise-xml", path_or_bytes=data).campaign
    xml = "".join(iter_judgments(campaign, "appraise-xml")).encode()
    assert b"<script>" not in xml
    assert sorted(j.item for j in read_appraise_xml(io.BytesIO(xml))) == sorted([hostile, "=1+1"])
    csv_items = [
        j.item for j in read_wmt_csv(io.BytesIO("".join(iter_judgments(campaign, "wmt-csv")).encode()))
    ]
    assert sorted(csv_items) == sorted([hostile, "'=1+1"])  # no cell a spreadsheet would run


def test_the_conll14_judgments_imported_and_exported_meta_evaluate_as_the_original_file(tmp_path):
    """The CoNLL-14 Appraise judgments cover 739 of the test set's 1,312 sentences; imported, they are
    a 739-sentence corpus. Exported, sentence-level chrF on the official outputs counts the same
    concordant and discordant pairs as on the original file."""
    data = shared_path("gec-ranking", "data", "all_judgments.xml")
    outputs = shared_path("grammatical-evaluation", "data", "original", "official_submissions")
    refs_dir = shared_path("gecmetrics", "data", "conll14st-test", "refs")
    _researcher, team = researcher_and_project()
    report = judgments_import(
        project=team,
        name="conll14",
        fmt="appraise-xml",
        path_or_bytes=str(data),
        exclude_judges=["non-native"],
    )
    export = tmp_path / "export.xml"
    export.write_text("".join(iter_judgments(report.campaign, "appraise-xml")), encoding="utf-8")

    def meta_eval(path, *more):
        out = subprocess.run(
            [sys.executable, "-m", "geceval", "meta-eval", "--sentence-level", "--judgments", str(path), *more,
             "--outputs", str(outputs), "--alias", "src=INPUT", "--metrics", "chrf",
             "--source", str(refs_dir.parent / "conll14st-test.tok.src"),
             "--refs", *(str(refs_dir / f"conll14st-test.tok.trg{k}") for k in (0, 1)), "--json"],
            cwd=REPO, capture_output=True, text=True, check=True, timeout=600,
        )  # fmt: skip
        (row,) = json.loads(out.stdout)["subsets"]["all+input"]["metrics"]
        return row["concordant"], row["discordant"], row["missing"], row["tau"]

    assert meta_eval(export) == meta_eval(data, "--exclude-judges", "non-native")
