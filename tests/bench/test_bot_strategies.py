"""The simulated workers of bench/bots.py do what docs/hardening.md says they do (no server needed)."""

from __future__ import annotations

import random

import pytest

from bench.bot_strategies import (
    LABELLERS,
    LABELS,
    REFERENCES,
    STRATEGIES,
    SYSTEMS,
    TIE_TOLERANCE,
    Gmeg,
    agreement,
    agreement_labels,
    answers,
    careful_labels,
    dense_ranks,
    fewest_edits,
    position_labels,
    regenerate,
    regenerate_labels,
    source_first,
    stateful_labels,
    word_edit_keys,
    word_edits,
)
from geceval.human.crowd_evidence import same_person
from geceval.traps.inserter import insert_errors, insert_errors_lines
from tests.alike import one_pair_changed
from tests.shared_data import shared_path

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def gmeg() -> Gmeg:
    return Gmeg.load(shared_path("GMEG", "data", "dev", "fce"), 40)


def screen_of(source: str, *texts: str) -> dict:
    return {"source": source, "candidates": [{"position": p, "text": t} for p, t in enumerate(texts)]}


def edit_screen_of(source: str, *texts: str) -> dict:
    """A screen as an edit-level campaign's API shows it (word-level edits standing in for ERRANT's)."""
    screen = screen_of(source, *texts)
    for c in screen["candidates"]:
        c["edits"] = [
            {
                "index": k,
                "span": list(span),
                "original": " ".join(source.split()[slice(*span)]),
                "correction": t,
            }
            for k, (span, t) in enumerate(word_edit_keys(source, c["text"]))
        ]
    return screen


def test_dense_ranks_put_the_best_first_and_tie_values_within_the_tolerance():
    assert dense_ranks({0: 10.0, 1: 90.0, 2: 50.0}) == {1: 1, 2: 2, 0: 3}
    assert dense_ranks({0: 50.0, 1: 50.0, 2: 20.0}) == {0: 1, 1: 1, 2: 2}
    assert dense_ranks({0: 80.0, 1: 77.0, 2: 60.0}, tolerance=5) == {0: 1, 1: 1, 2: 2}


def test_answers_are_clipped_whole_scores_for_prws_and_ranks_for_ranking():
    values = {0: 104.6, 1: -3.0, 2: 49.5}
    assert answers("prws", values) == [
        {"position": 0, "score": 100},
        {"position": 1, "score": 0},
        {"position": 2, "score": 50},
    ]
    assert answers("ranking", values) == [
        {"position": 0, "rank": 1},
        {"position": 1, "rank": 3},
        {"position": 2, "rank": 2},
    ]


def test_edit_level_answers_are_ranks_with_the_labels_of_each_candidate():
    labels = {0: ["good", "bad"], 1: [], 2: ["neutral"]}
    assert answers("edits", {0: 104.6, 1: -3.0, 2: 49.5}, labels=labels) == [
        {"position": 0, "rank": 1, "labels": ["good", "bad"]},
        {"position": 1, "rank": 3, "labels": []},
        {"position": 2, "rank": 2, "labels": ["neutral"]},
    ]


def test_every_labeller_gives_one_known_label_per_listed_edit(gmeg):
    screen = edit_screen_of(
        gmeg.sources[5], gmeg.sources[5], gmeg.systems["amu"][5], gmeg.references["ref0"][5]
    )
    for name, labeller in LABELLERS.items():
        if labeller is stateful_labels:  # a worker's own strategy object labels (tested with bots.py)
            continue
        values = STRATEGIES[name](screen, gmeg, random.Random(1))
        labels = labeller(screen, gmeg, random.Random(1), values)
        assert {p: len(x) for p, x in labels.items()} == {
            c["position"]: len(c["edits"]) for c in screen["candidates"]
        }, name
        assert {x for row in labels.values() for x in row} <= set(LABELS), name


def test_the_outside_judge_labels_every_listed_edit_and_never_reads_gmeg(gmeg):
    """The outside adversary (bench/outside_adversaries.py) labels with its own ``labels``, one known
    label per edit, and answers from the screen alone: the same with ``gmeg`` withheld."""
    screen = edit_screen_of(
        gmeg.sources[5], gmeg.sources[5], gmeg.systems["amu"][5], gmeg.references["ref0"][5]
    )
    judge = STRATEGIES["outside-rules-backwards"].fresh()
    values = judge(screen, gmeg, random.Random(1))
    labels = judge.labels(screen, gmeg, random.Random(1), values)
    assert {p: len(x) for p, x in labels.items()} == {
        c["position"]: len(c["edits"]) for c in screen["candidates"]
    }
    assert {x for row in labels.values() for x in row} <= set(LABELS)
    blind = STRATEGIES["outside-rules-backwards"].fresh()
    assert blind(screen, None, random.Random(1)) == values
    assert blind.labels(screen, None, random.Random(1), values) == labels


def test_bots_labels_follow_their_rule():
    screen = edit_screen_of(
        "He go to school in Paris .", "He goes to schol in Paris .", "He goes to school at Paris ."
    )
    values = {0: 0.0, 1: 100.0}
    assert regenerate_labels(screen, None, random.Random(1), values) == {
        0: ["bad", "bad"],
        1: ["good", "good"],
    }
    assert position_labels(screen, None, random.Random(1), values) == {0: ["good", "bad"], 1: ["good", "bad"]}
    assert LABELLERS["fewest-edits"](screen, None, random.Random(1), values) == {
        0: ["bad", "bad"],
        1: ["bad", "bad"],
    }
    assert LABELLERS["constant"](screen, None, random.Random(1), values) == {
        0: ["neutral", "neutral"],
        1: ["neutral", "neutral"],
    }


def test_agreement_trusts_edits_another_candidate_makes_and_distrusts_lone_ones():
    screen = edit_screen_of(
        "He go to school .", "He goes to school .", "He goes to schol .", "He go to school ."
    )
    assert agreement(screen, None, random.Random(1)) == {0: 55.0, 1: 45.0, 2: 50.0}
    assert agreement_labels(screen, None, random.Random(1), {}) == {0: ["good"], 1: ["good", "bad"], 2: []}
    # Without the API's edits (PRWS, ranking) the same rule runs on word-level edits.
    assert agreement(
        screen_of("He go to school .", "He goes to school .", "He goes to schol ."), None, None
    ) == {
        0: 55.0,
        1: 45.0,
    }


def test_fewest_edits_counts_the_edits_the_screen_lists_when_it_lists_them():
    screen = edit_screen_of("He go to school .", "He goes to the school .")
    assert fewest_edits(screen, None, random.Random(1)) == {0: 80.0}
    screen["candidates"][0]["edits"] = screen["candidates"][0]["edits"][:1]  # as if ERRANT merged them
    assert fewest_edits(screen, None, random.Random(1)) == {0: 90.0}


def test_the_careful_worker_marks_most_reference_edits_good_and_most_inserted_errors_bad(gmeg):
    rng = random.Random(3)
    good = bad = references = errors = 0
    for i, source in enumerate(gmeg.sources):
        error = insert_errors(source, seed=f"probe/{i}").text
        screen = edit_screen_of(source, gmeg.references["ref0"][i], error)
        labels = careful_labels(screen, gmeg, rng, {})
        good += labels[0].count("good")
        references += len(labels[0])
        bad += labels[1].count("bad")
        errors += len(labels[1])
    assert references > 30 and errors > 30
    assert good / references > 0.6 and bad / errors > 0.6


def test_an_edit_gains_what_it_alone_does_to_the_sources_gleu_plus(gmeg):
    i = next(k for k, s in enumerate(gmeg.sources) if word_edit_keys(s, gmeg.references["ref0"][k]))
    source, reference = gmeg.sources[i], gmeg.references["ref0"][i]
    span, correction = word_edit_keys(source, reference)[0]
    tokens = source.split()
    alone = " ".join([*tokens[: span[0]], *correction.split(), *tokens[span[1] :]])
    expected = gmeg.quality(source, alone) - gmeg.quality(source, source)
    assert gmeg.edit_gain(source, span, correction) == pytest.approx(expected, abs=1e-9)


def test_word_edits_count_difflib_opcodes_on_whitespace_tokens():
    assert word_edits("He go to school .", "He go to school .") == 0
    assert word_edits("He go to school .", "He goes to the school .") == 2


def test_source_first_and_fewest_edits_put_the_source_copy_on_top(gmeg):
    source = gmeg.sources[5]
    screen = screen_of(source, gmeg.systems["amu"][5] + " extra", source, gmeg.references["ref0"][5])
    for strategy in (source_first, fewest_edits):
        values = strategy(screen, gmeg, random.Random(1))
        assert values[1] == 100 and values[0] < 100 and values[2] < 100


def test_regeneration_finds_the_generated_trap_and_spares_the_source_copy(gmeg):
    traps = insert_errors_lines(gmeg.sources, seed=0)  # what trap_system_generate makes
    found = 0
    for i, (source, trap) in enumerate(zip(gmeg.sources, traps)):
        values = regenerate(
            screen_of(source, source, trap.text, gmeg.systems["nus"][i]), gmeg, random.Random(1)
        )
        assert values[0] == 100
        found += values[1] == 0
    assert found == len(traps)


def test_the_careful_worker_rates_a_reference_above_the_source_on_average(gmeg):
    rng = random.Random(3)
    gaps = []
    for i, source in enumerate(gmeg.sources):
        ref = gmeg.references["ref0"][i]
        if ref != source:
            values = STRATEGIES["careful"](screen_of(source, source, ref), gmeg, rng)
            gaps.append(values[1] - values[0])
    assert sum(gaps) / len(gaps) > 10


def test_a_source_that_is_not_in_the_public_file_is_a_harness_error(gmeg):
    with pytest.raises(LookupError):
        gmeg.quality("Not a GMEG sentence at all .", "x")


def test_the_id_reader_rates_low_what_is_above_its_first_hits_ordinary_screens(gmeg):
    """Issue 35's finding: controls had the campaign's largest ids. The bot learns a threshold in its
    first HIT (a sentence shown twice: the larger id is the control) and rates above it low."""
    bot = STRATEGIES["id-reader"].fresh()

    def screen(pk, source):
        return {"id": pk, "source": source, "candidates": [{"position": 0, "text": "a"}]}

    rng = random.Random(1)
    bot.new_hit()
    for pk, source in ((3, "s1"), (1, "s2"), (40, "s1"), (4, "s3")):
        bot(screen(pk, source), gmeg, rng)
    bot.new_hit()
    assert bot.threshold == 4
    assert bot(screen(41, "s4"), gmeg, rng)[0] <= 10
    assert bot(screen(2, "s5"), gmeg, rng)[0] >= 60
    # A handle is ordered by the bytes it encodes: the bot reads what it is shown, whatever it is.
    assert STRATEGIES["id-reader"].order_key("A" * 21 + "Q") == 1  # the last 2 bits of 16 bytes
    assert STRATEGIES["id-reader"].order_key(17) == 17


def _ranking_screens(gmeg: Gmeg, n: int) -> list[dict]:
    """Ranking screens of up to five distinct outputs (systems and references) of the first ``n`` lines."""
    screens = []
    for i, source in enumerate(gmeg.sources[:n]):
        outputs = [*(gmeg.systems[s][i] for s in SYSTEMS), *(gmeg.references[r][i] for r in REFERENCES)]
        texts = list(dict.fromkeys(" ".join(t.split()) for t in outputs))
        random.Random(i).shuffle(texts)
        screens.append(screen_of(source, *texts[:5]))
    return screens


def test_each_careful_worker_is_a_person_of_their_own_who_keeps_their_taste():
    model = STRATEGIES["careful-references"]
    one, again, other = (model.person(random.Random(f"1-person-{name}")) for name in ("a", "a", "b"))
    assert one.me == again.me  # seeded per worker: the same worker is the same person each run
    assert one.me != other.me and one.me != model.me
    assert one.me.offset("It was great .") == one.me.offset("It  was great .")  # a lasting taste
    assert one.me.offset("It was great .") != other.me.offset("It was great .")
    assert model.me.offset("It was great .") == 0.0  # the default person: the fixed procedure of old
    for name in ("careful", "careful-fluency"):
        drawn = STRATEGIES[name].person(random.Random(1)).me
        assert 0.02 <= drawn.label_error <= 0.08 and drawn.taste > 0


def test_the_one_person_check_tells_a_ring_from_distinct_careful_people_who_judge_alike(gmeg):
    """Issue 41: accounts of one fixed procedure (careful-references without people) rank every screen
    alike, as a ring's copies do; distinct people of that model (``Person.drawn``) do not, and the
    product's one-person rule (``same_person``) flags the ring's copies and none of the people, with
    the near-identical rule for ranks too (``ranks``), which also finds an account that copies a
    person with the order of one pair of candidates changed on every screen."""
    screens = _ranking_screens(gmeg, 40)
    model = STRATEGIES["careful-references"]
    people = {f"person-{k}": model.person(random.Random(f"1-person-{k}")) for k in range(6)}
    answers: dict = {}
    for s, screen in enumerate(screens):
        by_judge = answers.setdefault(s, {})
        for k, (name, person) in enumerate(people.items()):
            ranks = dense_ranks(person(screen, gmeg, random.Random(f"{k}:{s}")), person.tie)
            by_judge[name] = {p: float(r) for p, r in ranks.items()}
        for copy in ("ring-1", "ring-2"):  # one person behind three accounts: person-0's answers copied
            by_judge[copy] = dict(by_judge["person-0"])
        for k in range(2):  # accounts of the fixed procedure: alike on every screen, like a ring
            ranks = dense_ranks(
                model(screen, gmeg, random.Random(f"fixed{k}:{s}")), TIE_TOLERANCE[model.model]
            )
            by_judge[f"fixed-{k}"] = {p: float(r) for p, r in ranks.items()}
    for by_judge in answers.values():  # a second ring, near-identical: one pair ordered otherwise on each
        by_judge["near-1"] = one_pair_changed(by_judge["person-1"])
    for identical_only, ranks_too in ((True, False), (False, True)):
        flagged = {
            name: {t.other for t in same_person(answers, name, ranks=ranks_too)} for name in answers[0]
        }
        assert flagged["ring-1"] == {"person-0", "ring-2"} and flagged["person-0"] == {"ring-1", "ring-2"}
        assert flagged["fixed-0"] == {"fixed-1"}
        assert flagged["near-1"] == (set() if identical_only else {"person-1"})
        assert all(flagged[name] == set() for name in people if name not in ("person-0", "person-1"))
    assert flagged["person-1"] == {"near-1"}  # the near rule flags none of the distinct people


def _ring_among_careful_people(gmeg: Gmeg, ring_name: str, protocol: str) -> tuple[dict, dict, dict]:
    """(answers, people, ring accounts) of eight distinct careful-references people (the model that
    answers most alike, a few points of noise of its own) and three accounts of ``ring_name`` on 40
    GMEG dev FCE screens, as ``protocol`` ("prws" or "ranking") answers them."""
    screens = _ranking_screens(gmeg, 40)
    model = STRATEGIES["careful-references"]
    people = {f"person-{k}": model.person(random.Random(f"1-person-{k}")) for k in range(8)}
    accounts = {f"ring-{k}": STRATEGIES[ring_name].fresh() for k in range(3)}
    field = "score" if protocol == "prws" else "rank"
    crowd: dict = {}
    for s, screen in enumerate(screens):
        by_judge = crowd.setdefault(s, {})
        for name, worker in [*people.items(), *accounts.items()]:
            values = worker(screen, gmeg, random.Random(f"{name}:{s}"))
            tie = worker.tie if name in people else 0.0
            by_judge[name] = {a["position"]: float(a[field]) for a in answers(protocol, values, tie)}
    return crowd, people, accounts


def test_the_one_person_check_finds_a_nudged_ring_among_careful_people_who_score_alike(gmeg):
    """Issue 41, near-identical slider values: the ring-nudged strategy moves each copied value by up
    to two points, so its accounts' PRWS answers are hardly ever identical; the product's rule with
    ``scores`` flags them, and none of the distinct careful-references people, the model that scores
    most alike (a few points of noise of its own)."""
    crowd, people, accounts = _ring_among_careful_people(gmeg, "ring-nudged", "prws")
    identical = sum(by_judge["ring-0"] == by_judge["ring-1"] for by_judge in crowd.values())
    assert identical < 0.2 * len(crowd)
    assert all(same_person(crowd, name) == [] for name in accounts)  # identical screens alone miss it
    flagged = {name: {t.other for t in same_person(crowd, name, scores=True)} for name in crowd[0]}
    assert all(flagged[name] == set(accounts) - {name} for name in accounts)
    assert all(flagged[name] == set() for name in people)


def test_the_one_person_check_finds_a_swapping_ring_among_careful_people_who_rank_alike(gmeg):
    """Issue 41, near-identical rank orders: the ring-swapped strategy's copies swap two neighbouring
    values of the first account's answer on each screen, so they rank hardly any screen as it did; the
    product's rule with ``ranks`` flags each copy as the first account's twin, and none of the distinct
    careful-references people."""
    crowd, people, accounts = _ring_among_careful_people(gmeg, "ring-swapped", "ranking")
    identical = sum(by_judge["ring-1"] == by_judge["ring-0"] for by_judge in crowd.values())
    assert identical < 0.2 * len(crowd)  # the ties a swap leaves as they were
    assert all(same_person(crowd, name) == [] for name in ("ring-1", "ring-2"))  # identical alone misses
    flagged = {name: {t.other for t in same_person(crowd, name, ranks=True)} for name in crowd[0]}
    assert all("ring-0" in flagged[name] for name in ("ring-1", "ring-2"))
    assert all(flagged[name] <= set(accounts) for name in accounts)
    assert all(flagged[name] == set() for name in people)


def test_the_one_person_check_finds_a_swapping_ring_on_slider_scores_too(gmeg):
    """On PRWS the ring-swapped strategy's copies have two slider values swapped: they move by the gap
    between them, often more than the score rule's two points; the swap-aware ``score_gap`` (values
    sorted, when the order differs in one pair) flags each copy as the first account's twin, and none
    of the distinct careful-references people."""
    crowd, people, accounts = _ring_among_careful_people(gmeg, "ring-swapped", "prws")
    flagged = {name: {t.other for t in same_person(crowd, name, scores=True)} for name in crowd[0]}
    assert all("ring-0" in flagged[name] for name in ("ring-1", "ring-2"))
    assert all(flagged[name] <= set(accounts) for name in accounts)
    assert all(flagged[name] == set() for name in people)


def test_both_rings_are_judged_by_what_counts_once_not_by_exclusion():
    """bench/bot_report.goal_met: a ring's goal (either kind) is that no screen counts two of its
    accounts' answers, whatever share of them was excluded."""
    from bench.bot_report import RINGS, goal_met

    assert RINGS == ("ring", "ring-nudged", "ring-swapped")
    for ring in RINGS:
        assert goal_met(ring, {"excluded_share": 0.0, "screens_counted_twice": 0})
        assert not goal_met(ring, {"excluded_share": 1.0, "screens_counted_twice": 3})
    assert not goal_met("random", {"excluded_share": 0.0, "screens_counted_twice": 0})
