"""Campaign and corpus statistics on hand-worked examples, and GMEG dev's % unchanged."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest
from django.core.management import call_command

from annotate.models import Corpus
from annotate.stats import (
    RewriteRow,
    bar_chart_svg,
    campaign_stats,
    corpus_statistics,
    format_pm,
    rewrite_stats,
)
from tests import factories
from tests.shared_data import shared_path

# Hand-worked: sentence 0 "He go home ." -> A "He goes home ." (char LD 2, word LD 1, sTER 1 edit,
# TER x 100 1/4 = 25), B unchanged (0, 0, 0, 0); sentence 1 "I like cat ." -> A and B "I like cats ."
# (1, 1, 1, 25 each).
ROWS = [
    RewriteRow(0, "He go home .", "A", "expert", "He goes home .", 3, 1),
    RewriteRow(0, "He go home .", "B", "expert", "He go home . ", 1, 2),  # trailing space: still unchanged
    RewriteRow(1, "I like cat .", "A", "expert", "I like cats .", 2, 3),
    RewriteRow(1, "I like cat .", "B", "expert", "I like cats .", 2, 4),
]


def test_rewrite_statistics_match_the_hand_worked_example():
    s = rewrite_stats(ROWS, group="expert")
    assert (s.n_rewrites, s.n_sentences, s.n_annotators) == (4, 2, 2)
    assert s.pct_changed == 75.0
    assert s.mean_char_ld == 1.0  # (2 + 0 + 1 + 1) / 4
    assert s.mean_word_ld == 0.75
    assert s.mean_ster == pytest.approx(0.75)  # (1 + 0 + 1 + 1) / 4 edits per sentence
    assert s.mean_ter_x100 == pytest.approx(18.75)  # (25 + 0 + 25 + 25) / 4 edits per 100 tokens
    # pairs: sentence 0 differs (B against A: 1 edit, 1 / 4 tokens), sentence 1 identical
    assert (s.n_pairs, s.pct_identical, s.mean_pair_ster) == (2, 50.0, pytest.approx(0.5))
    assert s.mean_pair_ter_x100 == pytest.approx(12.5)
    # difficulty 3, 1, 2, 2: mean 2, sample sd sqrt(2/3); LD = difficulty - 1 so r = 1
    assert s.difficulty_n == 4 and s.difficulty_mean == 2.0
    assert s.difficulty_sd == pytest.approx(math.sqrt(2 / 3))
    assert s.difficulty_ld_r == pytest.approx(1.0)
    assert s.types == {"NOUN:NUM": 2, "VERB:SVA": 1}


def test_groups_are_reported_apart_and_pairs_never_cross_groups():
    rows = [*ROWS, RewriteRow(0, "He go home .", "C", "crowd", "He goes home .", None, 5)]
    c = campaign_stats(rows, flags={"merge": 1}, with_types=False)
    assert [g.group for g in c.groups] == ["crowd", "expert"]
    crowd = c.groups[0]
    assert (crowd.n_rewrites, crowd.pct_changed, crowd.n_pairs, crowd.pct_identical) == (1, 100.0, 0, None)
    assert (crowd.difficulty_n, crowd.difficulty_mean, crowd.difficulty_sd, crowd.difficulty_ld_r) == (
        0,
        None,
        None,
        None,
    )
    assert c.overall.n_rewrites == 5 and c.overall.n_pairs == 2 + 2  # sentence 0 now has 3 rewrites: 3 pairs
    assert c.overall.pct_identical == 50.0  # A=C on sentence 0, A=B on sentence 1 of 4 pairs
    assert c.flags == {"merge": 1}
    assert c.overall.types == {}


def test_a_constant_difficulty_has_no_correlation():
    rows = [RewriteRow(i, "a b", "A", "", t, 2, i) for i, t in enumerate(["a c", "a b", "x y"])]
    s = rewrite_stats(rows, with_types=False)
    assert (s.difficulty_mean, s.difficulty_sd, s.difficulty_ld_r) == (2.0, 0.0, None)
    assert format_pm(s.difficulty_mean, s.difficulty_sd) == "2.00 ± 0.00"
    assert format_pm(None, None) == "–"


def test_the_type_chart_is_well_formed_svg_with_escaped_labels():
    svg = bar_chart_svg({"NOUN:NUM": 3, "<b>&": 1}, title="Edit types")
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == ["NOUN:NUM", "3 (75.0%)", "<b>&", "1 (25.0%)"]
    widths = [float(r.get("width")) for r in root.iter("{http://www.w3.org/2000/svg}rect")]
    assert widths[0] == pytest.approx(3 * widths[1], abs=0.2)  # one decimal in the file
    many = bar_chart_svg({f"T{i}": 30 - i for i in range(30)}, title="t", top=5)
    assert many.count("<rect") == 6 and "other types" in many


@pytest.mark.django_db
@pytest.mark.shared
def test_gmeg_dev_fce_and_wiki_unchanged_percentages_match_the_reference_figures():
    dev = shared_path("GMEG", "data", "dev")
    owner = factories.project(factories.user("res", "researcher"))
    for domain in ("fce", "wiki"):
        call_command(
            "import_corpus", str(dev / domain), format="gmeg", name=f"gmeg-{domain}", project=owner.name
        )
    expected = {
        "fce": {
            "amu": 60.7,
            "lstm": 34.7,
            "lstm-r": 30.7,
            "marian": 38.8,
            "nus": 50.7,
            "transformer": 26.8,
            "source+error": 0.0,
            "ref0": 17.0,
            "ref1": 20.5,
            "ref2": 22.9,
            "ref3": 27.9,
        },
        "wiki": {
            "amu": 70.5,
            "lstm": 41.1,
            "lstm-r": 35.6,
            "marian": 64.6,
            "nus": 66.3,
            "transformer": 15.9,
            "source+error": 0.1,
            "ref0": 19.0,
            "ref1": 17.6,
            "ref2": 19.1,
            "ref3": 24.5,
        },
    }
    for domain, figures in expected.items():
        stats = corpus_statistics(Corpus.objects.get(name=f"gmeg-{domain}"))
        assert {s.domain for s in stats} == {domain}
        got = {s.name: round(s.stats.pct_unchanged, 1) for s in stats}
        assert got == figures, domain
        kinds = {s.name: s.kind for s in stats}
        assert (
            kinds["source+error"] == "source+error"
            and kinds["ref0"] == "reference"
            and kinds["amu"] == "model"
        )
