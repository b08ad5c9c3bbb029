"""Judgment data: k-way rankings, their pairwise expansion as the reference's ``-n 2``, and the readers."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from geceval.errors import GecInputError
from geceval.formats.judgments import (
    PairwiseJudgment,
    PrwsRating,
    RankingJudgment,
    expand_pairwise,
    read_appraise_xml,
    read_jsonl,
    read_pairwise,
    read_rankings,
    read_wmt_csv,
    write_jsonl,
)
from tests.shared_data import requires_shared, shared_path

FIXTURES = Path(__file__).parent / "fixtures" / "judgments"


def P(item, annotator, sys1, rank1, sys2, rank2):
    return PairwiseJudgment(item, annotator, sys1, rank1, sys2, rank2)


# --- data types and expansion -------------------------------------------------------------------------------


def test_four_way_ranking_expands_to_six_pairs_in_document_order():
    ranking = RankingJudgment("s1", "ann", (("A", 2), ("B", 1), ("C", 1), ("D", 3)))
    assert ranking.pairs() == [
        P("s1", "ann", "A", 2, "B", 1),
        P("s1", "ann", "A", 2, "C", 1),
        P("s1", "ann", "A", 2, "D", 3),
        P("s1", "ann", "B", 1, "C", 1),
        P("s1", "ann", "B", 1, "D", 3),
        P("s1", "ann", "C", 1, "D", 3),
    ]


def test_skipped_entries_and_self_pairs_give_no_pair():
    ranking = RankingJudgment("s", "a", (("A", 1), ("B", -1), ("A", 2), ("C", 3)))
    assert ranking.pairs() == [P("s", "a", "A", 1, "C", 3), P("s", "a", "A", 2, "C", 3)]


def test_pairwise_outcome_lower_rank_wins_equal_is_tie():
    assert P("s", "a", "A", 1, "B", 2).outcome == 1
    assert P("s", "a", "A", 3, "B", 2).outcome == -1
    assert P("s", "a", "A", 2, "B", 2).outcome == 0


def test_expand_pairwise_keeps_ranking_order():
    first = RankingJudgment("1", "a", (("A", 1), ("B", 2)))
    second = RankingJudgment("2", "b", (("C", 2), ("A", 1), ("B", 1)))
    assert expand_pairwise([first, second]) == [
        P("1", "a", "A", 1, "B", 2),
        P("2", "b", "C", 2, "A", 1),
        P("2", "b", "C", 2, "B", 1),
        P("2", "b", "A", 1, "B", 1),
    ]


def test_prws_rating_has_the_agreed_fields():
    rating = PrwsRating("s1", "w7", "amu", 73.5)
    assert (rating.item, rating.annotator, rating.system, rating.score, rating.meaning_changed) == (
        "s1",
        "w7",
        "amu",
        73.5,
        False,
    )
    assert PrwsRating(item="s", annotator="w", system="x", score=0.0, meaning_changed=True).meaning_changed


# --- Appraise XML -------------------------------------------------------------------------------------------


def test_appraise_xml_splits_collapsed_systems_by_comma_and_space_and_drops_empty_items():
    rankings = read_appraise_xml(FIXTURES / "small.xml")
    assert rankings == [
        RankingJudgment("7", "ann1", (("SysB", 2), ("SysA", 1), ("SysC", 1), ("SysD", 3))),
        RankingJudgment("8", "learner", (("SysA", 1), ("SysB", 2))),
        RankingJudgment("10", "ann2", (("SysD", 2), ("SysB", 2), ("SysC", 1))),
    ]


def test_appraise_xml_keeps_the_collapsed_system_groups_as_shown():
    rankings = read_appraise_xml(FIXTURES / "small.xml")
    assert [r.shown for r in rankings] == [(1, 2, 1), (1, 1), (2, 1)]
    assert rankings[0].groups() == [(("SysB",), 2), (("SysA", "SysC"), 1), (("SysD",), 3)]
    assert rankings[2].groups() == [(("SysD", "SysB"), 2), (("SysC",), 1)]
    # Other readers show each entry on its own.
    assert RankingJudgment("1", "a", (("A", 1), ("B", 2))).groups() == [(("A",), 1), (("B",), 2)]


def test_appraise_xml_excludes_judges():
    rankings = read_appraise_xml(FIXTURES / "small.xml", exclude_judges=["learner", "ann2"])
    assert [r.item for r in rankings] == ["7"]


def test_appraise_xml_bad_rank_names_file_and_line():
    with pytest.raises(GecInputError) as err:
        read_appraise_xml(FIXTURES / "bad_rank.xml")
    assert err.value.line == 4
    assert err.value.path.endswith("bad_rank.xml")
    assert "'x' is not an integer" in str(err.value)


def test_appraise_xml_not_well_formed_names_line():
    with pytest.raises(GecInputError) as err:
        read_appraise_xml(FIXTURES / "bad_nesting.xml")
    assert err.value.line == 4
    assert "not well-formed XML" in err.value.problem


# --- WMT CSV ------------------------------------------------------------------------------------------------


def test_wmt_csv_finds_columns_by_name_in_any_order_and_case_and_equals_the_xml_pairs():
    from_csv = read_pairwise(FIXTURES / "small.csv", "wmt-csv")
    from_xml = read_pairwise(FIXTURES / "small.xml", "appraise-xml", exclude_judges=["learner"])
    assert from_csv == from_xml
    assert from_csv[0] == P("7", "ann1", "SysB", 2, "SysA", 1)


def test_wmt_csv_five_way_rows_skipped_ranks_and_empty_slots():
    rankings = read_wmt_csv(FIXTURES / "fiveway.csv")
    assert rankings[0] == RankingJudgment("1", "j1", (("S1", 1), ("S2", 2), ("S3", 2), ("S4", 4), ("S5", 5)))
    assert rankings[1].entries == (("S5", 3), ("S4", -1), ("S3", 1), ("S2", 1), ("S1", 2))
    assert rankings[2].entries == (("S1", 2), ("S2", 1))
    pairs = expand_pairwise(rankings)
    # 10 pairs, 6 (S4 skipped), 1
    assert len(pairs) == 17
    assert pairs[10:16] == [
        P("2", "j2", "S5", 3, "S3", 1),
        P("2", "j2", "S5", 3, "S2", 1),
        P("2", "j2", "S5", 3, "S1", 2),
        P("2", "j2", "S3", 1, "S2", 1),
        P("2", "j2", "S3", 1, "S1", 2),
        P("2", "j2", "S2", 1, "S1", 2),
    ]


def test_wmt_csv_excludes_judges():
    assert [r.item for r in read_wmt_csv(FIXTURES / "fiveway.csv", exclude_judges=["j1"])] == ["2"]


@pytest.mark.parametrize(
    ("name", "line", "problem"),
    [
        ("bad_rank.csv", 3, "rank 'first' is not an integer"),
        ("bad_width.csv", 3, "5 fields, the header has 6"),
        ("bad_header.csv", 1, "system2Id"),
    ],
)
def test_wmt_csv_malformed_rows_name_file_and_line(name, line, problem):
    with pytest.raises(GecInputError) as err:
        read_wmt_csv(FIXTURES / name)
    assert err.value.line == line
    assert problem in err.value.problem
    assert str(err.value).startswith(f"{FIXTURES / name}:{line}: ")


# --- JSONL --------------------------------------------------------------------------------------------------


def test_jsonl_reads_entry_lists_with_duplicate_ranks_and_rank_maps():
    rankings = read_jsonl(FIXTURES / "small.jsonl")
    assert rankings == [
        RankingJudgment("7", "ann1", (("SysB", 2), ("SysA", 1), ("SysC", 1), ("SysD", 3))),
        RankingJudgment("10", "ann2", (("SysD", 2), ("SysB", 2), ("SysC", 1))),
        RankingJudgment("12", "ann3", (("SysA", 1), ("SysD", -1), ("SysB", 2))),
    ]
    assert read_pairwise(FIXTURES / "small.jsonl", "jsonl")[-1] == P("12", "ann3", "SysA", 1, "SysB", 2)


@pytest.mark.parametrize(
    ("name", "line", "problem"),
    [("bad_json.jsonl", 2, "not JSON"), ("bad_rank.jsonl", 3, "rank 1.5 of A is not an integer")],
)
def test_jsonl_malformed_lines_name_file_and_line(name, line, problem):
    with pytest.raises(GecInputError) as err:
        read_jsonl(FIXTURES / name)
    assert err.value.line == line
    assert problem in err.value.problem


def test_jsonl_written_rankings_read_back_identically(tmp_path):
    rankings = read_appraise_xml(FIXTURES / "small.xml")
    write_jsonl(rankings, tmp_path / "out.jsonl")
    assert read_rankings(tmp_path / "out.jsonl", "jsonl") == rankings


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown judgment format"):
        read_rankings(FIXTURES / "small.csv", "tsv")


# --- the public data ----------------------------------------------------------------------------------------


@requires_shared
def test_gec_ranking_csv_and_appraise_xml_without_non_native_give_the_same_pairs_in_order():
    from_csv = read_pairwise(shared_path("gec-ranking", "data", "all_judgments.csv"), "wmt-csv")
    from_xml = read_pairwise(
        shared_path("gec-ranking", "data", "all_judgments.xml"), "appraise-xml", exclude_judges=["non-native"]
    )
    assert len(from_csv) == 28146
    assert sum(p.outcome == 0 for p in from_csv) == 14446
    assert Counter(from_csv) == Counter(from_xml)
    assert from_csv == from_xml


@requires_shared
def test_gec_ranking_xml_has_1534_items_of_which_78_empty():
    path = shared_path("gec-ranking", "data", "all_judgments.xml")
    assert len(read_appraise_xml(path)) == 1534 - 78
    assert Counter(r.annotator for r in read_appraise_xml(path))["non-native"] > 0


@requires_shared
def test_gec_ranking_xml_without_non_native_shows_7443_entries_in_4544_groups():
    rankings = read_appraise_xml(
        shared_path("gec-ranking", "data", "all_judgments.xml"), exclude_judges=["non-native"]
    )
    assert sum(len(r.entries) for r in rankings) == 7443
    assert sum(len(r.groups()) for r in rankings) == 4544
    assert Counter(size for r in rankings for size in r.shown)[2] == 190
    assert all(sum(r.shown) == len(r.entries) for r in rankings)


@requires_shared
def test_wmt13_five_way_sample_reads_every_row():
    train = read_rankings(shared_path("wmt-trueskill", "data", "sample-fr-en-train.csv"), "wmt-csv")
    test = read_rankings(shared_path("wmt-trueskill", "data", "sample-fr-en-test.csv"), "wmt-csv")
    assert (len(train), len(test)) == (9996, 200)
    assert all(len(r.entries) == 5 for r in train)
    assert train[0].annotator == "turker_64" and train[0].item == "2484"
    assert len(expand_pairwise(train)) == 10 * 9996 - sum(
        sum(1 for i in range(5) for j in range(i + 1, 5) if -1 in (r.entries[i][1], r.entries[j][1]))
        for r in train
    )


@requires_shared
def test_jfleg_pairwise_csv_has_1629_judgments():
    pairs = read_pairwise(shared_path("jfleg", "EACL_exp", "mturk", "pairwise.csv"), "wmt-csv")
    assert len(pairs) == 1629
    assert {p.sys1 for p in pairs} | {p.sys2 for p in pairs} == {"AMU", "CAMB", "NMT", "NUS", "orig", "turk"}


def test_wmt_csv_and_jsonl_accept_a_byte_order_mark(tmp_path):
    csv_path = tmp_path / "bom.csv"
    csv_path.write_text(
        "system1Id,system1rank,system2Id,system2rank,segmentId,judgeId\nA,1,B,2,5,j\n", encoding="utf-8-sig"
    )
    assert read_pairwise(csv_path, "wmt-csv") == [P("5", "j", "A", 1, "B", 2)]
    jsonl_path = tmp_path / "bom.jsonl"
    jsonl_path.write_text(
        '{"item": "5", "annotator": "j", "ranks": {"A": 1, "B": 2}}\n', encoding="utf-8-sig"
    )
    assert read_pairwise(jsonl_path, "jsonl") == [P("5", "j", "A", 1, "B", 2)]
