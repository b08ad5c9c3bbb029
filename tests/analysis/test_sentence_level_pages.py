"""Sentence-level meta-evaluation and imported metric scores on the analysis pages (issue 24):
a meta-evaluation run over a ranking human run stores the WMT tau variant per pair of systems and
the run page sums it per subset; scores of a metric run elsewhere are uploaded on the campaign's
analysis page and meta-evaluated beside ours."""

from __future__ import annotations

import json
from itertools import combinations

import pytest
from django.urls import reverse

from annotate.models import System
from geceval.formats.judgments import RankingJudgment
from geceval.metaeval.correlation import system_correlations
from ranking.analysis import services
from ranking.analysis.models import ImportedScores, RunStatus, SentenceCorrelationResult
from tests.factories import corpus_with_systems, done_run, imported_campaign, researcher_and_project

pytestmark = pytest.mark.django_db

SOURCES = [f"He go to school {i} ." for i in range(10)]
GOOD = [f"He goes to school {i} ." for i in range(10)]
OUTPUTS = {
    "ref": GOOD,
    "a": GOOD[:8] + SOURCES[8:],
    "b": GOOD[:4] + SOURCES[4:],
    "c": GOOD[:1] + SOURCES[1:],
    "src": SOURCES,
}
JUDGED = ("a", "b", "c", "src")


def _rank(judge: str, i: int, name: str) -> int:
    """Judges j0 and j1 put a corrected sentence first; the contrarian, on sentences 0-3, last."""
    right = OUTPUTS[name][i] == GOOD[i]
    if judge == "contrarian":
        right = not right
    return 1 if right else 2


RANKINGS = [
    RankingJudgment(str(i), judge, tuple((name, _rank(judge, i, name)) for name in JUDGED))
    for i in range(10)
    for judge in ("j0", "j1", "contrarian")
    if judge != "contrarian" or i < 4
]


def _campaign():
    user, project = researcher_and_project()
    corpus, _made = corpus_with_systems(
        project, sources=SOURCES, systems=OUTPUTS, kinds={"ref": "reference", "src": "source"}
    )
    return user, imported_campaign(project, "ranked", rankings=RANKINGS, corpus=corpus)


def _expected(members) -> tuple[int, int, int]:
    """Counted from the rankings above: a corrected output equals the reference, so every
    sentence metric scores it above an uncorrected one and ties two of the same kind. (C, D, human ties)."""
    c = d = ties = 0
    for r in RANKINGS:
        ranks = dict(r.entries)
        i = int(r.item)
        for s1, s2 in combinations(sorted(m for m in members if m in ranks), 2):
            if ranks[s1] == ranks[s2]:
                ties += 1
                continue
            right1, right2 = OUTPUTS[s1][i] == GOOD[i], OUTPUTS[s2][i] == GOOD[i]
            better_by_people = s1 if ranks[s1] < ranks[s2] else s2
            if right1 == right2:
                d += 1  # a metric tie counts as discordant
            elif (better_by_people == s1) == right1:
                c += 1
            else:
                d += 1
    return c, d, ties


def test_a_meta_evaluation_over_rankings_shows_sentence_level_tau_per_subset(client):
    user, campaign = _campaign()
    for name, tags in (("a", "classic"), ("b", "classic"), ("c", "fluent"), ("src", "input")):
        System.objects.filter(corpus=campaign.corpus, name=name).update(tags=tags)
    human = done_run(campaign, "trueskill", runs=10, chunks=1)
    metric = done_run(campaign, "metric_scores", metrics=["gleu", "chrf", "m2", "ter"])
    meta = done_run(campaign, "meta_eval", human_run=human.pk, metric_run=metric.pk)
    stored = {(r.metric, r.reference_set) for r in SentenceCorrelationResult.objects.filter(run=meta)}
    assert stored == {("gleu", "all"), ("chrf", "all"), ("m2", "all")}
    assert meta.summary["sentence_level"]["skipped_metrics"] == ["ter"]
    assert meta.summary["sentence_level"]["sentences"] == 10
    client.force_login(user)
    page = client.get(reverse("analysis-run", args=[meta.pk])).content.decode()
    assert 'id="sentence-level"' in page and "No sentence-level score here for ter." in page
    for subset, members in (
        ("all+input", JUDGED),
        ("classic", ("a", "b")),
        ("classic+fluent", ("a", "b", "c")),
    ):
        c, d, ties = _expected(members)
        tau = (c - d) / (c + d)
        assert (
            f"<tr><td>chrf/all</td><td>{subset}</td><td>{len(members)}</td><td>{c + d}</td>"
            f"<td>{tau:.3f}</td><td>{c / (c + d):.3f}</td>" in page
        ), subset
        assert f"<td>{ties}</td><td>0</td></tr>" in page
    # the contrarian's judgments make some pairs discordant: tau is not a trivial 1
    c, d, _ties = _expected(JUDGED)
    assert c > 0 and d > 0
    # the API gives the stored counts to scripts
    rows = client.get(f"/api/analysis-runs/{meta.pk}/results/").json()["sentences"]
    assert {(r["metric"], r["reference_set"]) for r in rows} == stored
    chrf_rows = next(r["pair_counts"] for r in rows if r["metric"] == "chrf")
    assert sum(r[2] for r in chrf_rows) == _expected(JUDGED)[0]
    # tags changed after the run: the page sums the stored counts over the new subsets
    System.objects.filter(corpus=campaign.corpus, name="c").update(tags="classic")
    page = client.get(reverse("analysis-run", args=[meta.pk])).content.decode()
    c, d, _ties = _expected(("a", "b", "c"))
    assert f"<tr><td>chrf/all</td><td>classic</td><td>3</td><td>{c + d}</td>" in page


def test_a_prws_human_run_gives_no_sentence_level_and_says_why(client):
    from tests.factories import prws_corpus_campaign

    user, campaign = prws_corpus_campaign()
    human = done_run(campaign, "prws_summary", samples=5)
    metric = done_run(campaign, "metric_scores", metrics=["chrf"])
    meta = done_run(campaign, "meta_eval", human_run=human.pk, metric_run=metric.pk)
    assert not SentenceCorrelationResult.objects.filter(run=meta).exists()
    client.force_login(user)
    page = client.get(reverse("analysis-run", args=[meta.pk])).content.decode()
    assert "sentence level needs a ranking human run" in page and 'id="sentence-level"' not in page


def _upload(client, campaign, name, filename, body: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post(
        reverse("imported-scores-upload", args=[campaign.pk]),
        {"name": name, "file": SimpleUploadedFile(filename, body, content_type="text/csv")},
    )


def test_imported_scores_are_uploaded_checked_and_meta_evaluated_beside_ours(client):
    user, campaign = _campaign()
    client.force_login(user)
    # refused with a sentence, nothing saved: a system the corpus does not have, a line past its end
    bad = _upload(client, campaign, "SOME", "some.csv", b"system,score\na,0.5\nnmt,0.4\n")
    assert bad.status_code == 400 and "not systems of corpus" in bad.content.decode()
    assert "&#x27;nmt&#x27;" in bad.content.decode()
    bad = _upload(client, campaign, "SOME", "s.csv", b"system,item,score\na,10,0.5\n")
    assert bad.status_code == 400 and "items are its lines (0 to 9)" in bad.content.decode()
    bad = _upload(client, campaign, "SOME", "s.csv", b"system,score\na,high\n")
    assert bad.status_code == 400 and "is not a number" in bad.content.decode()
    assert not ImportedScores.objects.exists()
    # per system: a metric that agrees with people exactly (number of sentences corrected)
    corrected = {n: sum(o == g for o, g in zip(OUTPUTS[n], GOOD)) for n in JUDGED}
    body = "system,score\n" + "".join(f"{n},{v}\n" for n, v in corrected.items())
    ok = _upload(client, campaign, "SOME", "some.csv", body.encode())
    assert ok.status_code == 302 and ok["Location"].endswith("#imported-scores")
    # per sentence, in line order (JSON lists): the contrarian's opposite; an 11th line the corpus
    # does not have is left out, and the page says so
    per_line = {n: [0.0 if OUTPUTS[n][i] == GOOD[i] else 1.0 for i in range(10)] + [0.5] for n in JUDGED}
    ok = _upload(client, campaign, "ANTI", "anti.json", json.dumps(per_line).encode())
    assert ok.status_code == 302
    followed = client.get(ok["Location"]).content.decode()
    assert "1 item of the file is not a sentence of the corpus: left out." in followed
    assert ImportedScores.objects.get(name="ANTI").sentences == 10
    page = client.get(reverse("campaign-analysis", args=[campaign.pk])).content.decode()
    assert "SOME" in page and "per sentence" in page and 'name="imported"' in page

    human = done_run(campaign, "trueskill", runs=10, chunks=1)
    metric = done_run(campaign, "metric_scores", metrics=["chrf"])
    response = client.post(
        reverse("campaign-analysis", args=[campaign.pk]),
        {
            "kind": "meta_eval",
            "seed": 0,
            "human_run": human.pk,
            "metric_run": metric.pk,
            "imported": ["SOME", "ANTI"],
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    meta = services.AnalysisRun.objects.get(kind="meta_eval")
    assert meta.status == RunStatus.DONE, meta.error
    row = meta.correlation_results.get(metric="SOME", reference_set="imported")
    mu = dict(human.rank_results.values_list("name", "mu"))
    want = system_correlations({n: float(v) for n, v in corrected.items()}, mu, exclude=())
    assert row.pearson == pytest.approx(want.pearson) and row.systems == 4
    anti = SentenceCorrelationResult.objects.get(run=meta, metric="ANTI", reference_set="imported")
    chrf = SentenceCorrelationResult.objects.get(run=meta, metric="chrf")
    totals = lambda r: [sum(p[k] for p in r.pair_counts) for k in (2, 3, 4)]  # noqa: E731
    # ANTI orders every pair the other way round from chrF (both tie only outputs people tie too)
    (c, d, ties), (anti_c, anti_d, anti_ties) = totals(chrf), totals(anti)
    assert (anti_c, anti_d, anti_ties) == (d, c, 0) and ties == 0 and c > d > 0
    # replacing and deleting the upload later leaves the run as it was
    ImportedScores.objects.all().delete()
    page = client.get(reverse("analysis-run", args=[meta.pk])).content.decode()
    assert "<td>ANTI/imported</td>" in page and "with imported scores SOME, ANTI" in page
    # a run naming scores that are not there is refused (the API's path; the form offers only those there)
    with pytest.raises(services.AnalysisError, match="no imported scores named SOME"):
        services.analysis_run_create(
            campaign=campaign,
            kind="meta_eval",
            parameters={"human_run": human.pk, "metric_run": metric.pk, "imported": ["SOME"]},
        )


def test_a_reference_set_cannot_take_the_name_imported_scores_are_listed_under():
    _user, campaign = _campaign()
    with pytest.raises(services.AnalysisError, match="'imported' is kept for imported scores"):
        services.analysis_run_create(
            campaign=campaign,
            kind="metric_scores",
            parameters={"metrics": ["chrf"], "reference_sets": {"imported": ["ref"]}},
        )


def test_imported_scores_of_another_project_cannot_be_deleted(client):
    from tests import factories

    user, campaign = _campaign()
    client.force_login(user)
    _upload(client, campaign, "SOME", "some.csv", b"system,score\na,0.5\n")
    scores = ImportedScores.objects.get()
    client.force_login(factories.user("other", "researcher"))
    response = client.post(reverse("imported-scores-delete", args=[campaign.pk, scores.pk]))
    assert response.status_code == 404 and ImportedScores.objects.exists()


def test_a_corpus_made_by_importing_judgments_names_its_sentences_by_their_ids(client):
    """The CoNLL-14 case: the importer keeps only the judged sentences and their file ids, so a
    metric's per-line scores of the whole test set match the judged lines by id."""
    from ranking.analysis.imported_scores import sentence_items
    from ranking.analysis.sentence_meta import imported_freeze

    user, project = researcher_and_project()
    rankings = [RankingJudgment(item, "j0", (("a", 1), ("b", 2))) for item in ("3", "7")]
    campaign = imported_campaign(project, "ids", rankings=rankings)
    by_id = sentence_items(campaign.corpus_id)
    assert set(by_id) == {"3", "7"}
    client.force_login(user)
    scores = {"a": [float(i) for i in range(10)], "b": [0.0] * 10}
    assert _upload(client, campaign, "SOME", "some.json", json.dumps(scores).encode()).status_code == 302
    saved = ImportedScores.objects.get()
    assert (saved.sentences, saved.left_out) == (2, 8) and saved.scores["a"] == {"3": 3.0, "7": 7.0}
    run = services.AnalysisRun(campaign=campaign, kind="meta_eval", parameters={"imported": ["SOME"]})
    (frozen,) = imported_freeze(run)
    assert frozen["scores"]["a"] == {str(by_id["3"]): 3.0, str(by_id["7"]): 7.0}


@pytest.mark.shared
@pytest.mark.slow
def test_the_page_gives_the_clis_sentence_level_tau_on_the_conll14_judgments(tmp_path):
    """The CoNLL-14 Appraise judgments imported onto a CoNLL-14 corpus (source, the 12 systems and
    the input, the two text references), through TrueSkill, a chrF and GLEU metric run and a
    meta-evaluation: the sentence-level counts are those of ``python -m geceval meta-eval
    --sentence-level`` on the same files, pair for pair."""
    import subprocess
    import sys

    from annotate.models import SystemKind
    from annotate.services import InputFile, corpus_import_text, outputs_import_lines
    from crowd.importing.saving import judgments_import
    from geceval.formats.text import read_lines
    from geceval.metaeval import kobayashi2024 as m24
    from tests.shared_data import REPO, shared_path

    xml = shared_path("gec-ranking", "data", "all_judgments.xml", required_in_ci=True)
    outputs = shared_path(
        "grammatical-evaluation", "data", "original", "official_submissions", required_in_ci=True
    )
    refs_dir = shared_path("gecmetrics", "data", "conll14st-test", "refs", required_in_ci=True)
    source = refs_dir.parent / "conll14st-test.tok.src"
    _user, project = researcher_and_project()
    corpus = corpus_import_text(project=project, name="conll14", source=InputFile("src", source.read_bytes()))
    for path in sorted(outputs.iterdir()):
        name = "src" if path.name == "INPUT" else path.name  # the Appraise file calls the input "src"
        kind = SystemKind.SOURCE if name == "src" else SystemKind.MODEL
        outputs_import_lines(
            corpus=corpus,
            system_name=name,
            kind=kind,
            lines=read_lines(path, allow_empty=True),
            filename=path.name,
        )
    for k in (0, 1):
        ref = refs_dir / f"conll14st-test.tok.trg{k}"
        outputs_import_lines(
            corpus=corpus, system_name=f"trg{k}", kind=SystemKind.REFERENCE, lines=read_lines(ref, allow_empty=True),
            filename=ref.name,
        )  # fmt: skip
    report = judgments_import(
        project=project, name="conll14", fmt="appraise-xml", path_or_bytes=str(xml), corpus=corpus
    )
    campaign = report.campaign
    human = done_run(campaign, "trueskill", runs=2, chunks=1)
    metric = done_run(
        campaign, "metric_scores", metrics=["chrf", "gleu"], reference_sets={"conll": ["trg0", "trg1"]}
    )
    meta = done_run(campaign, "meta_eval", human_run=human.pk, metric_run=metric.pk, exclude=["refmix1"])

    out = subprocess.run(
        [sys.executable, "-m", "geceval", "meta-eval", "--sentence-level", "--judgments", str(xml),
         "--outputs", str(outputs), "--alias", "src=INPUT", "--metrics", "chrf", "gleu", "--source", str(source),
         "--refs", str(refs_dir / "conll14st-test.tok.trg0"), str(refs_dir / "conll14st-test.tok.trg1"), "--json"],
        cwd=REPO, capture_output=True, text=True, check=True,
    )  # fmt: skip
    cli = {r["metric"]: r for r in json.loads(out.stdout)["subsets"]["all+input"]["metrics"]}
    for metric_name in ("chrf", "gleu"):
        row = SentenceCorrelationResult.objects.get(run=meta, metric=metric_name, reference_set="conll")
        ours = m24.agreement_from_pair_counts(row.pair_counts)
        want = cli[metric_name]
        assert (ours.concordant, ours.discordant, ours.metric_ties, ours.human_ties, ours.missing) == (
            want["concordant"], want["discordant"], want["metric_ties"], want["human_ties"], want["missing"]
        ), metric_name  # fmt: skip
        assert ours.tau == pytest.approx(want["tau"])
