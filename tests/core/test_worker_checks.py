"""Evidence against a worker (issue 17): Appraise's trap test, consistency on repeats, flat scoring."""

from __future__ import annotations

import json
import random

import pytest
from scipy.stats import mannwhitneyu

from geceval.cli import main
from geceval.errors import GecInputError
from geceval.human import worker_checks
from geceval.human.worker_checks import (
    CORRECTION_MIN_SEEN,
    KIND_FAILED,
    KIND_MIN_SEEN,
    VOUCH_MARGIN,
    Evidence,
    Rules,
    consistency,
    exclusion_reasons,
    flatness,
    kind_never_passed,
    pass_line,
    trap_test,
    trap_test_passed,
)
from geceval.traps import hidden

# ----------------------------------------------------------------- Appraise's test


def test_trap_test_waits_for_fifteen_scored_traps_and_twelve_ranked():
    assert trap_test([70] * 14, [10] * 14, answer="score") is None
    assert trap_test([70] * 15, [10] * 15, answer="score") == pytest.approx(
        mannwhitneyu([70] * 15, [10] * 15, alternative="greater").pvalue
    )
    assert trap_test([1] * 11, [3] * 11, answer="rank") is None
    assert trap_test([1] * 12, [3] * 12, answer="rank") < 0.05


def test_trap_test_is_one_sided_by_protocol_scores_higher_ranks_lower():
    bases, traps = [80, 75, 90, 60, 85, 70, 95, 65, 88, 72] * 2, [20, 30, 10, 40, 25, 35, 15, 45, 5, 50] * 2
    assert trap_test(bases, traps, answer="score") == mannwhitneyu(bases, traps, alternative="greater").pvalue
    assert trap_test_passed(trap_test(bases, traps, answer="score")) is True
    # the same numbers read as ranks say the bases were ranked worse: no evidence of reading
    assert trap_test(bases, traps, answer="rank") > 0.99
    ranks_base, ranks_trap = [1, 1, 2, 1, 1, 2, 1, 1, 1, 2] * 2, [3, 4, 4, 5, 3, 4, 5, 3, 4, 5] * 2
    assert trap_test_passed(trap_test(ranks_base, ranks_trap, answer="rank")) is True


def test_trap_test_gives_no_evidence_for_a_constant_worker_or_a_random_one():
    assert trap_test([50] * 15, [50] * 15, answer="score") == 1.0
    assert trap_test_passed(1.0) is False
    rng = random.Random(3)
    random_bases = [rng.randint(0, 100) for _ in range(15)]
    random_traps = [rng.randint(0, 100) for _ in range(15)]
    assert trap_test_passed(trap_test(random_bases, random_traps, answer="score")) is False
    assert trap_test_passed(None) is None


def test_trap_test_refuses_unpaired_answers_and_unknown_kinds():
    with pytest.raises(GecInputError):
        trap_test([1, 2], [1], answer="score")
    with pytest.raises(GecInputError):
        trap_test([1], [1], answer="stars")


# ----------------------------------------------------------------- consistency


def test_consistency_in_points_for_scores_flagged_above_30_with_two_repeats():
    close = consistency([[(70, 60), (20, 30)], [(50, 55)]], answer="score")
    assert (close.repeats, close.distance, close.inconsistent) == (2, pytest.approx(25 / 3), False)
    far = consistency([[(90, 10), (10, 90)], [(50, 100)]], answer="score")
    assert (far.repeats, far.distance, far.inconsistent) == (2, 70.0, True)
    one = consistency([[(90, 10)], []], answer="score")
    assert (one.repeats, one.distance, one.inconsistent) == (1, 80.0, False)  # one repeat is not enough
    assert consistency([], answer="score").distance is None


def test_consistency_for_ranks_is_the_share_of_pairs_flipped():
    # three candidates, three pairs: (a,b) flipped, (a,c) kept, (b,c) tie the second time: not a flip
    same = [(1, 1), (2, 3), (3, 3)]
    flipped = [(1, 3), (2, 1), (3, 2)]  # a was best, now worst: (a,b) and (a,c) flip, (b,c) kept
    result = consistency([flipped, flipped], answer="rank")
    assert (result.distance, result.inconsistent) == (pytest.approx(2 / 3), True)
    kept = consistency([same, same], answer="rank")
    assert (kept.distance, kept.inconsistent) == (0.0, False)


# ----------------------------------------------------------------- flat scoring


def prws_screens(scores: list[list[int]]) -> list[list[tuple[int, float]]]:
    return [list(enumerate(s)) for s in scores]


def test_near_constant_scores_are_flat_once_there_are_twenty():
    rng = random.Random(1)
    flat = [[50 + rng.randint(-3, 3) for _ in range(5)] for _ in range(4)]
    result = flatness(prws_screens(flat), answer="score")
    assert (result.ratings, result.reason) == (20, "constant")
    assert result.spread < 5
    assert flatness(prws_screens(flat[:3]), answer="score").reason == ""  # 15 ratings: too few to say
    spread = [[rng.randint(0, 100) for _ in range(5)] for _ in range(4)]
    assert flatness(prws_screens(spread), answer="score").reason == ""


def test_answers_that_follow_display_position_are_flagged():
    by_position = [[100 - 20 * p + (s % 3) for p in range(5)] for s in range(4)]
    result = flatness(prws_screens(by_position), answer="score")
    assert result.reason == "position"
    assert result.position_rho < -0.8
    ranks = [[(p, p + 1) for p in range(5)] for _ in range(4)]
    ranked = flatness(ranks, answer="rank")
    assert (ranked.reason, ranked.position_rho, ranked.spread) == ("position", pytest.approx(1.0), None)


def test_ranking_is_flat_only_when_every_screen_is_all_tied():
    tied = [[(p, 1) for p in range(5)] for _ in range(4)]
    assert flatness(tied, answer="rank").reason == "constant"
    one_ordered = [*tied[:3], [(0, 2), (1, 1), (2, 3), (3, 1), (4, 2)]]
    assert flatness(one_ordered, answer="rank").reason == ""


def test_a_shuffling_bot_is_not_caught_by_position():
    rng = random.Random(7)
    screens = []
    for _ in range(10):
        order = list(range(5))
        rng.shuffle(order)
        screens.append([(p, 100 - 20 * order[p]) for p in range(5)])
    result = flatness(screens, answer="score")
    assert result.reason == "" and abs(result.position_rho) < 0.8


# ----------------------------------------------------------------- the researcher's rules


def test_exclusion_follows_the_chosen_rules():
    bad = Evidence(
        traps_seen=10, traps_passed=3, mann_whitney_p=0.4, inconsistent=True, flat_reason="position"
    )
    assert exclusion_reasons(bad, Rules()) == ["trap pass rate", "traps not rated worse than their bases"]
    every = Rules(consistency=True, flat=True)
    assert exclusion_reasons(bad, every)[2:] == ["repeats answered far apart", "answers follow position"]
    none = Rules(pass_rate=False, mann_whitney=False)
    assert exclusion_reasons(bad, none) == []
    early = Evidence(traps_seen=4, traps_passed=0)  # under trap_min_seen, no Mann-Whitney yet
    assert exclusion_reasons(early, Rules()) == []
    assert exclusion_reasons(Evidence(), Rules(trap_min_seen=0)) == []


def test_the_crowd_vouching_lets_a_worker_pass_a_tenth_under_the_threshold_and_no_further():
    """Issue 41: a worker the crowd vouches for (agreement at least half the median worker's) is
    excluded by the pass rate only under the threshold less ``VOUCH_MARGIN``; other rules unchanged."""
    assert VOUCH_MARGIN == 0.1
    rules = Rules()  # threshold 0.6
    for passed, alone, vouched in [(6, [], []), (5, ["trap pass rate"], []), (4, *[["trap pass rate"]] * 2)]:
        assert exclusion_reasons(Evidence(traps_seen=10, traps_passed=passed), rules) == alone
        evidence = Evidence(traps_seen=10, traps_passed=passed, crowd_vouches=True)
        assert exclusion_reasons(evidence, rules) == vouched, passed
    assert pass_line(Evidence(crowd_vouches=True), rules) == 0.5  # not 0.49999999999999994
    assert pass_line(Evidence(), Rules(trap_threshold=0.7)) == 0.7
    assert pass_line(Evidence(crowd_vouches=True), Rules(trap_threshold=0.7)) == 0.6
    # the vouching is the pass rate's only: Appraise's test and the kind rule still exclude
    both = Evidence(traps_seen=12, traps_passed=6, mann_whitney_p=0.3, crowd_vouches=True)
    assert exclusion_reasons(both, rules) == ["traps not rated worse than their bases"]
    scripted = Evidence(traps_seen=12, traps_passed=9, kind_failed="added_correction", crowd_vouches=True)
    assert exclusion_reasons(scripted, rules) == [KIND_FAILED]


def test_a_kind_of_trap_failed_every_time_excludes_a_worker_whose_total_passes():
    """Issue 41: a heuristic that does not read fails one kind of trap every time (the "agreement"
    judge every added correction) while passing the others; a reader fails a kind now and then."""
    assert KIND_MIN_SEEN == 4 and CORRECTION_MIN_SEEN == 3
    assert worker_checks.ADDED_CORRECTION == hidden.ADDED_CORRECTION
    assert kind_never_passed({"added_error": (12, 12), "added_correction": (4, 0)}) == "added_correction"
    assert kind_never_passed({"added_error": (12, 12), "added_correction": (3, 0)}) == "added_correction"
    assert kind_never_passed({"added_error": (12, 12), "added_correction": (2, 0)}) == ""  # too few yet
    assert kind_never_passed({"added_error": (3, 0), "undone_correction": (3, 0)}) == ""  # four of these
    assert kind_never_passed({"added_error": (12, 12), "added_correction": (6, 1)}) == ""  # one passed
    assert kind_never_passed({"undone_correction": (5, 0), "added_correction": (4, 0)}) == "added_correction"
    assert kind_never_passed({}) == ""
    scripted = Evidence(traps_seen=16, traps_passed=12, kind_failed="added_correction")
    assert exclusion_reasons(scripted, Rules()) == [KIND_FAILED]
    assert exclusion_reasons(scripted, Rules(pass_rate=False)) == []  # the pass-rate rule's switch
    early = Evidence(traps_seen=8, traps_passed=4, kind_failed="added_correction")
    assert exclusion_reasons(early, Rules()) == []  # the rule waits for trap_min_seen traps in all
    low = Evidence(traps_seen=10, traps_passed=2, kind_failed="added_correction")
    assert exclusion_reasons(low, Rules()) == ["trap pass rate"]  # one reason for the traps, not two


# ----------------------------------------------------------------- the command line


def test_the_command_line_reads_a_file_of_answers(tmp_path, capsys):
    data = {
        "answer": "score",
        "workers": [
            {"worker": "careful", "traps": [[70 + i, 20 + i] for i in range(15)], "repeats": [[[70, 65]]]},
            {"worker": "flat", "screens": [[[p, 50] for p in range(5)] for _ in range(4)]},
        ],
    }
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(data))
    assert main(["worker-checks", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    careful, flat = out["workers"]
    assert careful["kept"] is True and careful["mann_whitney_p"] < 0.001
    assert (careful["repeats"], careful["repeat_distance"], careful["inconsistent"]) == (1, 5.0, False)
    assert (flat["mann_whitney_p"], flat["kept"], flat["flat_reason"], flat["ratings"]) == (
        None,
        None,
        "constant",
        20,
    )
    assert main(["worker-checks", str(path)]) == 0
    assert "careful" in capsys.readouterr().out
    path.write_text("[1, 2]")
    assert main(["worker-checks", str(path)]) == 2


def test_first_hit_doubt_names_a_constant_or_fast_first_hit_and_spares_a_varied_one():
    from geceval.human.worker_checks import first_hit_doubt

    flat = [[(0, 70.0), (1, 70.0), (2, 71.0)]] * 2  # 6 ratings, sd under 5
    varied = [[(0, 90.0), (1, 40.0), (2, 10.0)]] * 2
    assert first_hit_doubt(flat, answer="score", too_fast=0) == "constant"
    assert first_hit_doubt(flat[:1], answer="score", too_fast=0) == ""  # 3 ratings: too few to say
    assert first_hit_doubt(varied, answer="score", too_fast=0) == ""
    assert first_hit_doubt(varied * 2, answer="score", too_fast=1) == "fast"  # a quarter of 4 screens
    assert first_hit_doubt(varied * 5, answer="score", too_fast=2) == ""  # a fifth
    tied = [[(0, 1.0), (1, 1.0), (2, 1.0)]] * 2
    assert first_hit_doubt(tied, answer="rank", too_fast=0) == "constant"
    assert first_hit_doubt([[], []], answer=None, too_fast=1) == "fast"
