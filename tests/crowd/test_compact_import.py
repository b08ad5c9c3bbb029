"""The compact stored form of imported judgments (issue 23): the same rankings, reports and
refusals as the full form, one row per entry; SQLite takes the bulk_create path, PostgreSQL COPY."""

from __future__ import annotations

import pytest

from crowd.importing import judgments_import
from geceval.errors import GecInputError
from ranking.models import Campaign, ImportedEntry, ScreenJudgment
from ranking.rankings import campaign_rankings
from tests.factories import researcher_and_project
from tests.shared_data import shared_path

pytestmark = pytest.mark.django_db


def test_gec_ranking_judgments_rank_alike_in_the_compact_and_the_full_form():
    path = shared_path("gec-ranking", "data", "all_judgments.csv", required_in_ci=True)
    _user, project = researcher_and_project()
    compact = judgments_import(
        project=project, name="compact", fmt="wmt-csv", path_or_bytes=path, compact=True
    )
    full = judgments_import(project=project, name="full", fmt="wmt-csv", path_or_bytes=path, compact=False)
    assert compact.lines() == full.lines()
    assert not ScreenJudgment.objects.filter(screen__campaign=compact.campaign).exists()
    assert ImportedEntry.objects.filter(campaign=compact.campaign).count() == 2 * compact.judgments

    def comparable(campaign):
        # judges are campaign-scoped identities and sentences belong to each campaign's corpus:
        # compare by sentence position and by the judge's order of first appearance
        order: dict[str, int] = {}
        positions = dict(campaign.corpus.sentences.values_list("pk", "position"))
        return [
            (positions[int(r.item)], order.setdefault(r.annotator, len(order)), r.entries)
            for r in campaign_rankings(campaign)
        ]

    assert comparable(compact.campaign) == comparable(full.campaign)


def test_ranks_outside_one_to_five_and_unranked_entries_are_skipped_with_reasons_as_in_the_full_form():
    data = (
        b"system1Id,system1rank,system2Id,system2rank,system3Id,system3rank,judgeId,segmentId\n"
        b"A,1,B,2,C,-1,j1,1\n"
        b"A,7,B,2,,,j1,2\n"
        b"A,2,B,2,C,3,j2,1\n"
    )
    _user, project = researcher_and_project()
    compact = judgments_import(project=project, name="c", fmt="wmt-csv", path_or_bytes=data, compact=True)
    full = judgments_import(project=project, name="f", fmt="wmt-csv", path_or_bytes=data, compact=False)
    assert compact.lines() == full.lines()
    assert compact.lines()[-1] == (
        "skipped: 3 (1 judgment with too few answers, 1 rank outside 1-5, 1 unranked entry)"
    )
    # items are sentence ids of each campaign's own corpus: compare what was ranked, in order
    assert [r.entries for r in campaign_rankings(compact.campaign)] == [
        (("A", 1), ("B", 2)),
        (("A", 2), ("B", 2), ("C", 3)),
    ]
    assert [r.entries for r in campaign_rankings(full.campaign)] == [
        r.entries for r in campaign_rankings(compact.campaign)
    ]


def test_a_compact_campaigns_wmt_csv_export_has_a_column_pair_for_each_system_of_its_largest_judgment():
    """Before, the export sized its columns from collected ratings, which a compact campaign has none
    of: two column pairs, and a 3-way row one pair too long for its own header."""
    from geceval.formats.judgments import read_wmt_csv
    from ranking.analysis.exports import iter_judgments

    data = (
        b"system1Id,system1rank,system2Id,system2rank,system3Id,system3rank,judgeId,segmentId\n"
        b"A,1,B,2,C,3,j1,0\n"
        b"A,2,B,1,,,j2,1\n"
    )
    _user, project = researcher_and_project()
    compact = judgments_import(project=project, name="c", fmt="wmt-csv", path_or_bytes=data, compact=True)
    text = "".join(iter_judgments(compact.campaign, "wmt-csv"))
    assert text.splitlines()[0].endswith(",system3Id,system3rank")
    assert [r.entries for r in read_wmt_csv(text.encode())] == [
        (("A", 1), ("B", 2), ("C", 3)),
        (("A", 2), ("B", 1)),
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"system1Id,system1rank,system2Id,system2rank,judgeId,segmentId\nA,x,B,2,j,1\n", "not an integer"),
        (b"system1Id,system1rank,system2Id,system2rank,judgeId,segmentId\nA,1,B,2,j\x00,1\n", "NUL"),
        (b"system1Id,system1rank,system2Id,system2rank,judgeId,segmentId\nA,1,B,2,j,1\nA,1\n", "fields"),
    ],
)
def test_a_bad_row_refuses_the_whole_compact_file_and_saves_nothing(data, message):
    _user, project = researcher_and_project()
    with pytest.raises(GecInputError, match=message):
        judgments_import(project=project, name="bad", fmt="wmt-csv", path_or_bytes=data, compact=True)
    assert not Campaign.objects.filter(name="bad").exists()
    assert not ImportedEntry.objects.exists()


def test_prws_ratings_in_the_compact_form_group_by_item_and_worker_with_rounded_scores():
    data = b"item,worker,system,score,meaning_changed\n1,w,A,70.4,0\n1,w,B,101,1\n1,w,C,30,yes\n2,w,A,50,\n"
    _user, project = researcher_and_project()
    compact = judgments_import(project=project, name="c", fmt="prws-csv", path_or_bytes=data, compact=True)
    full = judgments_import(project=project, name="f", fmt="prws-csv", path_or_bytes=data, compact=False)
    assert compact.lines() == full.lines()
    rows = ImportedEntry.objects.filter(campaign=compact.campaign).order_by("pk")
    assert list(rows.values_list("judgment", "system__name", "score", "rank", "meaning_changed")) == [
        (0, "A", 70, None, False),
        (0, "C", 30, None, True),
        (1, "A", 50, None, False),
    ]


def test_the_campaign_list_counts_a_compact_campaign_s_judgments_as_a_full_one_s():
    """A researcher who imported a million judgments sees a million on the home page and in the
    API, not 0 (a compact campaign has no screens to count)."""
    from ranking.selectors import campaign_list_for

    data = b"system1Id,system1rank,system2Id,system2rank,judgeId,segmentId\nA,1,B,2,j1,1\nA,2,B,1,j2,1\nA,1,B,1,j1,2\n"
    user, project = researcher_and_project()
    compact = judgments_import(project=project, name="c", fmt="wmt-csv", path_or_bytes=data, compact=True)
    full = judgments_import(project=project, name="f", fmt="wmt-csv", path_or_bytes=data, compact=False)
    counts = dict(campaign_list_for(user).values_list("name", "judgment_count"))
    assert counts == {"c": 3, "f": 3}
    assert compact.judgments == full.judgments == 3


def test_one_function_says_whether_a_campaign_is_compact_and_whether_it_holds_ranks():
    """Issue 37: the import, the exports, live rankings and the analysis freeze ask one function."""
    from ranking.rankings import campaign_is_compact

    _user, project = researcher_and_project()
    ranks = b"system1Id,system1rank,system2Id,system2rank,judgeId,segmentId\nA,1,B,2,j1,1\n"
    scores = b"item,worker,system,score\n1,w,A,70\n1,w,B,30\n"
    ranked = judgments_import(project=project, name="r", fmt="wmt-csv", path_or_bytes=ranks, compact=True)
    scored = judgments_import(project=project, name="s", fmt="prws-csv", path_or_bytes=scores, compact=True)
    full = judgments_import(project=project, name="f", fmt="wmt-csv", path_or_bytes=ranks, compact=False)
    answers = [
        (campaign_is_compact(c.campaign), campaign_is_compact(c.campaign, ranked=True))
        for c in (ranked, scored, full)
    ]
    assert answers == [(True, True), (True, False), (False, False)]


@pytest.mark.parametrize(("compact", "per_item"), [(True, 40_000), (False, 7)])
def test_one_item_judged_more_than_32767_times_imports_in_either_form(compact, per_item):
    # judgments_per_item was a smallint: the campaign's insert overflowed ("smallint out of range" on
    # PostgreSQL) for one item with 32,768 judgments or more (review of issue 36). The compact form
    # counts judgments per item, the full form judges per screen (one screen, 7 judges here).
    n = 40_000
    data = b"system1Id,system1rank,system2Id,system2rank,judgeId,segmentId\n" + b"".join(
        b"A,1,B,2,j%d,1\n" % (i % 7) for i in range(n)
    )
    _user, project = researcher_and_project()
    report = judgments_import(
        project=project, name="many", fmt="wmt-csv", path_or_bytes=data, compact=compact
    )
    campaign = Campaign.objects.get(pk=report.campaign.pk)
    assert (report.judgments, campaign.judgments_per_item) == (n, per_item)
    if compact:
        assert ImportedEntry.objects.filter(campaign=campaign).count() == 2 * n
    else:
        assert ScreenJudgment.objects.filter(screen__campaign=campaign).count() == n
