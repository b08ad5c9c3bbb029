"""A compact campaign's ranking run frozen in parts by the workers (issue 23, past one machine): each
part reads a share of the sentences, the parts' summaries add up, and the run's numbers are those of
one pass over the whole campaign, whatever the number of parts."""

from __future__ import annotations

import datetime

import numpy as np
import pytest
from django.utils import timezone

from bench.make_million import write_ratings
from crowd.importing import judgments_import
from geceval.formats.judgments import expand_pairwise
from ranking.analysis import compute, frozen, onestep, parts, services
from ranking.analysis.inputs import campaign_prws_ratings
from ranking.analysis.models import AnalysisRun, ChunkPhase, ChunkStatus, RunChunk, RunInput, RunStatus
from ranking.rankings import campaign_rankings
from tests.factories import researcher_and_project
from tests.shared_data import shared_path

pytestmark = pytest.mark.django_db

RUNS, SEED = 20, 5


def _table(run):
    return list(
        run.rank_results.order_by("position").values_list(
            "name", "mu", "rank_lo", "rank_hi", "cluster", "pairs"
        )
    )


def _run(campaign, settings, per_part: int) -> AnalysisRun:
    settings.ANALYSIS_FREEZE_ENTRIES_PER_PART = per_part
    run = services.analysis_run_create(
        campaign=campaign, kind="trueskill", parameters={"runs": RUNS, "chunks": 3}, seed=SEED
    )
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    return run


def _pair_arrays(run):
    data = services._pair_data(run.pk, str(run.started))
    return [data.systems, data.judgments] + [
        getattr(data, k).tolist() for k in ("winner_loser", "offsets", "counts", "outcomes")
    ]


@pytest.fixture
def gec_ranking_campaign():
    """gec-ranking's 28,146 CoNLL-14 judgments (up to 5 systems each, 12 judges), compact."""
    path = shared_path("gec-ranking", "data", "all_judgments.csv", required_in_ci=True)
    _user, project = researcher_and_project()
    return judgments_import(
        project=project, name="compact", fmt="wmt-csv", path_or_bytes=path, compact=True
    ).campaign


def test_a_run_frozen_in_seven_parts_equals_the_run_frozen_at_once_on_the_gec_ranking_judgments(
    gec_ranking_campaign, settings
):
    whole = _run(gec_ranking_campaign, settings, per_part=10**9)
    parted = _run(gec_ranking_campaign, settings, per_part=8100)

    assert not RunChunk.objects.filter(run=whole, phase=ChunkPhase.FREEZE).exists()
    parts = RunChunk.objects.filter(run=parted, phase=ChunkPhase.FREEZE)
    assert parts.count() == 7 and not parts.exclude(status=ChunkStatus.DONE).exists()
    assert RunChunk.objects.filter(run=parted, phase=ChunkPhase.RUNS).count() == 3
    # no part held more than its share of the sentences
    sizes = [p.result["rankings"] for p in parts]
    assert sum(sizes) == parted.judgments_used and max(sizes) < 0.2 * parted.judgments_used
    assert RunInput.objects.get(run=parted).arrays is None

    assert _pair_arrays(parted) == _pair_arrays(whole)
    assert _table(parted) == _table(whole)
    assert (parted.judgments_used, parted.pairs_used) == (whole.judgments_used, whole.pairs_used)
    assert parted.summary == whole.summary
    # and both are the agreement of the pairs read the full way, annotator pair by annotator pair
    pairs = expand_pairwise(campaign_rankings(gec_ranking_campaign))
    assert parted.summary["agreement"] == compute.agreement_summary(pairs)
    assert parted.summary["agreement"]["annotator_pairs"] >= 2 and parted.summary["agreement"]["shared"] > 100
    assert "freeze_parts" in parted.timings and "freeze" in parted.timings


def test_parts_add_up_to_the_whole_tables_counts_and_pairs(gec_ranking_campaign):
    ordered, code = frozen.compact_systems(gec_ranking_campaign)
    whole = frozen.compact_pairs(gec_ranking_campaign)
    parts = [frozen.compact_part(gec_ranking_campaign, ordered, code, 4, k) for k in range(4)]
    assert sum(p.rankings for p in parts) == whole.rankings
    assert sum(len(p.first) for p in parts) == len(whole.first)
    tables: dict = {}
    for p in parts:
        frozen.tables_add(tables, frozen.tables_to_json(p.agreement_tables()))
    expected = whole.agreement_tables()
    assert sorted(tables) == sorted(expected)
    assert all(np.array_equal(tables[k], expected[k]) for k in expected)
    blobs = [frozen.part_to_bytes(p) for p in parts]
    a, b = frozen.pair_data_from_parts(ordered, blobs), whole.pair_data()
    for field in ("winner_loser", "offsets", "counts", "outcomes"):
        assert np.array_equal(getattr(a, field), getattr(b, field))


def _wmt(rows: list[tuple[str, int, str, int, str, int]]) -> bytes:
    head = "system1Id,system1rank,system2Id,system2rank,judgeId,segmentId\n"
    return (head + "".join(f"{a},{ra},{b},{rb},{j},{s}\n" for s, ra, a, rb, b, j in rows)).encode()


def test_the_last_part_s_process_dying_before_the_chunks_were_made_is_repaired_by_beat(monkeypatch, settings):
    """Every part done but no bootstrap chunk (the process that finished the last part died):
    beat's reclaim asks for the merge, which makes and sends the chunks instead."""
    rows = [(s, 1 + (s + j) % 2, "A", 2 - (s + j) % 2, "B", f"j{j}") for s in range(12) for j in range(3)]
    rows += [(s, 1, "B", 2, "C", "j0") for s in range(12)]
    _user, project = researcher_and_project()
    campaign = judgments_import(
        project=project, name="c", fmt="wmt-csv", path_or_bytes=_wmt(rows), compact=True
    ).campaign
    settings.ANALYSIS_FREEZE_ENTRIES_PER_PART = 20
    settings.ANALYSIS_CHUNK_LEASE_SECONDS = 60
    sent: list = []

    def record(name, **kw):
        sent.append(kw["chunk_id" if "chunk_id" in kw else "run_id"])

    monkeypatch.setattr(services, "task_send", record)
    monkeypatch.setattr(parts, "task_send", record)
    real_after = parts.after_freeze
    monkeypatch.setattr(parts, "after_freeze", lambda run_id: [])  # dies before its commit
    run = services.analysis_run_create(
        campaign=campaign, kind="trueskill", parameters={"runs": 8, "chunks": 2}
    )
    part_ids = services.analysis_run_start(run_id=run.pk)
    assert len(part_ids) == 5  # 48 judgments of 2 entries, 20 entries per part
    for chunk_id in part_ids:
        assert services.run_chunk_execute(chunk_id=chunk_id) is True
    assert not RunChunk.objects.filter(run=run, phase=ChunkPhase.RUNS).exists()
    monkeypatch.setattr(parts, "after_freeze", real_after)

    past = timezone.now() - datetime.timedelta(seconds=600)
    AnalysisRun.objects.filter(pk=run.pk).update(started=past)
    RunChunk.objects.filter(run=run).update(claimed=past, finished=past)
    sent.clear()
    services.chunks_reclaim()
    assert sent == [run.pk]  # the merge
    sent.clear()
    assert services.analysis_run_merge(run_id=run.pk) is False  # made the chunks instead
    chunks = list(RunChunk.objects.filter(run=run, phase=ChunkPhase.RUNS).order_by("index"))
    assert [c.index for c in chunks] == [5, 6] and sent == [c.pk for c in chunks]
    assert services.analysis_run_merge(run_id=run.pk) is False  # chunks not done: nothing to merge yet
    for chunk in chunks:
        assert services.run_chunk_execute(chunk_id=chunk.pk) is True
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    assert run.judgments_used == 48 and run.pairs_used == 48
    assert {r[0]: r[5] for r in _table(run)} == {"A": 36, "B": 48, "C": 12}


def test_parts_whose_pairs_name_fewer_than_two_systems_fail_the_run_with_a_reason(settings):
    rows = [(s, 1, "A", 2, "A", "j0") for s in range(30)]  # a system against itself: no usable pair
    rows += [(0, 1, "A", 2, "B", "j1")]
    _user, project = researcher_and_project()
    campaign = judgments_import(
        project=project, name="c", fmt="wmt-csv", path_or_bytes=_wmt(rows), compact=True
    ).campaign
    settings.ANALYSIS_FREEZE_ENTRIES_PER_PART = 10
    run = services.analysis_run_create(
        campaign=campaign, kind="trueskill", parameters={"runs": 4, "chunks": 2}
    )
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error  # one usable pair names two systems: it runs
    rows = [(s, 1, "A", 2, "A", "j0") for s in range(30)]
    campaign = judgments_import(
        project=project, name="d", fmt="wmt-csv", path_or_bytes=_wmt(rows), compact=True
    ).campaign
    run = services.analysis_run_create(
        campaign=campaign, kind="trueskill", parameters={"runs": 4, "chunks": 2}
    )
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert "fewer than two systems" in run.error
    assert not RunChunk.objects.filter(run=run, phase=ChunkPhase.RUNS).exists()


# --------------------------------------------------------------------------- PRWS


def _ratings_campaign(tmp_path, ratings: int, sentences: int):
    write_ratings(tmp_path / "r.csv", ratings=ratings, systems=6, sentences=sentences, judges=15, seed=1)
    _user, project = researcher_and_project()
    return judgments_import(
        project=project, name=f"r{ratings}", fmt="prws-csv", path_or_bytes=tmp_path / "r.csv", compact=True
    ).campaign


def _prws_run(campaign, settings, per_part: int, samples: int = 30) -> AnalysisRun:
    settings.ANALYSIS_FREEZE_ENTRIES_PER_PART = per_part
    run = services.analysis_run_create(
        campaign=campaign, kind="prws_summary", parameters={"samples": samples}, seed=SEED
    )
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    return run


def _prws_table(run):
    return list(
        run.prws_results.order_by("position").values_list(
            "name", "mean", "z_mean", "cluster", "ratings", "items", "meaning_changed"
        )
    )


def test_a_prws_summary_frozen_in_parts_equals_the_summary_of_the_ratings_to_the_last_digit(
    tmp_path, settings
):
    campaign = _ratings_campaign(tmp_path, ratings=3000, sentences=150)
    whole = _prws_run(campaign, settings, per_part=10**9)
    parted = _prws_run(campaign, settings, per_part=600)  # 3000 ratings: 5 parts

    assert "ratings" in RunInput.objects.get(run=whole).data
    data = RunInput.objects.get(run=parted).data
    assert data["parts"] == 5 and "ratings" not in data
    assert RunChunk.objects.filter(run=parted, phase=ChunkPhase.FREEZE).count() == 5
    sample_chunks = RunChunk.objects.filter(run=parted, phase=ChunkPhase.RUNS).order_by("index")
    assert [len(c.run_indices) for c in sample_chunks] == [8, 8, 8, 6]  # 30 samples, 4 chunks
    assert parted.summary["reliability"]["cells"] > 100  # cells with two ratings or more were split

    assert _prws_table(parted) == _prws_table(whole)
    assert parted.summary == whole.summary
    assert parted.judgments_used == whole.judgments_used == 600
    # and both are the one-step summary of the campaign's ratings
    rows, summary = compute.prws_summary(campaign_prws_ratings(campaign), seed=SEED, samples=30)
    assert parted.summary == summary
    assert [r["z_mean"] for r in rows] == [t[2] for t in _prws_table(parted)]
    # an ensemble or meta-evaluation reads the same segment means from either run
    ids = sorted(campaign.corpus.sentences.values_list("pk", flat=True))
    assert onestep._segments_by_index(parted.pk, ids) == onestep._segments_by_index(whole.pk, ids)


def test_a_prws_summary_in_parts_without_a_cell_to_split_says_why_as_the_one_step_summary_does(
    tmp_path, settings
):
    campaign = _ratings_campaign(tmp_path, ratings=600, sentences=5000)  # every output rated once
    whole = _prws_run(campaign, settings, per_part=10**9)
    parted = _prws_run(campaign, settings, per_part=40)
    assert not RunChunk.objects.filter(run=parted, phase=ChunkPhase.RUNS).exists()
    assert parted.summary["reliability"] is None
    assert parted.summary == whole.summary
    assert _prws_table(parted) == _prws_table(whole)


def test_a_prws_run_whose_last_part_died_before_the_chunks_were_made_is_resumed(
    tmp_path, settings, monkeypatch
):
    campaign = _ratings_campaign(tmp_path, ratings=3000, sentences=150)
    whole = _prws_run(campaign, settings, per_part=10**9)
    settings.ANALYSIS_FREEZE_ENTRIES_PER_PART = 600
    real_after = parts.after_freeze
    monkeypatch.setattr(parts, "after_freeze", lambda run_id: [])  # its process died
    run = services.analysis_run_create(
        campaign=campaign, kind="prws_summary", parameters={"samples": 30}, seed=SEED
    )
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING
    assert not RunChunk.objects.filter(run=run, phase=ChunkPhase.RUNS).exists()
    monkeypatch.setattr(parts, "after_freeze", real_after)
    services.analysis_run_resume(run=run)  # the researcher's button, or beat's stale-run repair
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    assert run.summary == whole.summary


def test_a_prws_sample_chunk_whose_worker_died_is_sent_again_by_beat(tmp_path, settings, monkeypatch):
    campaign = _ratings_campaign(tmp_path, ratings=3000, sentences=150)
    whole = _prws_run(campaign, settings, per_part=10**9)
    settings.ANALYSIS_FREEZE_ENTRIES_PER_PART = 600
    settings.ANALYSIS_CHUNK_LEASE_SECONDS = 60
    sent: list = []
    monkeypatch.setattr(parts, "task_send", lambda name, **kw: sent.append(kw))  # chunk messages lost
    run = services.analysis_run_create(
        campaign=campaign, kind="prws_summary", parameters={"samples": 30}, seed=SEED
    )
    services.analysis_run_enqueue(run)
    chunks = RunChunk.objects.filter(run=run, phase=ChunkPhase.RUNS)
    assert len(sent) == chunks.count() == 4
    past = timezone.now() - datetime.timedelta(seconds=600)
    AnalysisRun.objects.filter(pk=run.pk).update(started=past)
    RunChunk.objects.filter(run=run, phase=ChunkPhase.FREEZE).update(claimed=past, finished=past)
    RunChunk.objects.filter(pk=chunks.first().pk).update(status=ChunkStatus.RUNNING, claimed=past, alive=past)
    assert services.chunks_reclaim() == 4  # nothing moved within a lease: every chunk sent again
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    assert run.summary == whole.summary


def test_a_run_frozen_in_parts_says_why_it_did_not_estimate_the_judgments_needed(settings):
    rows = [(s, 1 + (s + j) % 2, "A", 2 - (s + j) % 2, "B", f"j{j}") for s in range(12) for j in range(3)]
    _user, project = researcher_and_project()
    campaign = judgments_import(
        project=project, name="c", fmt="wmt-csv", path_or_bytes=_wmt(rows), compact=True
    ).campaign
    settings.ANALYSIS_FREEZE_ENTRIES_PER_PART = 20
    run = services.analysis_run_create(
        campaign=campaign, kind="trueskill", parameters={"runs": 4, "chunks": 2, "estimate_needed": True}
    )
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    assert run.summary["needed"] is None
    assert "frozen in parts" in run.summary["needed_note"]


@pytest.mark.parametrize(
    ("chunks", "message"),
    [
        (0, "number of chunks from 1 to the number of samples"),
        (31, "number of chunks from 1 to the number of samples"),
        ("some", "malformed parameters"),
    ],
)
def test_a_prws_summary_s_sample_chunks_are_checked_before_a_run_exists(tmp_path, chunks, message):
    campaign = _ratings_campaign(tmp_path, ratings=60, sentences=10)
    with pytest.raises(services.AnalysisError, match=message):
        services.analysis_run_create(
            campaign=campaign, kind="prws_summary", parameters={"samples": 30, "chunks": chunks}
        )
    assert not AnalysisRun.objects.exists()
    run = services.analysis_run_create(
        campaign=campaign, kind="prws_summary", parameters={"samples": 30, "chunks": "30"}
    )
    assert run.parameters == {"samples": 30, "chunks": 30}
