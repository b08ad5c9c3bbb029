"""Sakaguchi et al. 2016 Table 6 (M2, GLEU, BLEU and I-measure) against Grundkiewicz et al. 2015 Table 3c."""

from __future__ import annotations

import pytest

from geceval.papers.sakaguchi2016_table6 import HUMAN_TS, PUBLISHED, SETS, table6
from tests.shared_data import shared_path


def _root():
    shared_path("grammatical-evaluation", "data", "original", "official_submissions", "AMU")
    shared_path("reassess-gec", "annotations", "merged_ids")
    return shared_path("grammaticality-metrics", "references", "ALL.m2").parents[2]


def test_table6_lists_every_published_cell_and_leaves_uncomputed_metrics_empty(tmp_path):
    cells = table6(tmp_path, metrics=())  # reads no file
    assert len(cells) == 28 == len(PUBLISHED)
    assert len(HUMAN_TS) == 13 and len(SETS) == 7
    assert all(c.rho is None and c.r is None for c in cells)
    assert PUBLISHED[("E-fluency", "GLEU")] == (0.819, 0.731)


@pytest.mark.shared
@pytest.mark.slow
def test_table6_m2_reproduces_bn15_n_fluency_and_all_rho():
    cells = {
        c.reference_set: c for c in table6(_root(), skip_merged=True, metrics=("M2",)) if c.metric == "M2"
    }
    for name in ("BN15", "N-fluency", "All"):
        assert round(cells[name].rho, 3) == PUBLISHED[(name, "M2")][0], name
    # measured, outside tolerance and unexplained (UNEXPLAINED in ranking/analysis/reproduce_sakaguchi.py)
    assert round(cells["NUCLE"].rho, 3) == 0.720  # published 0.725
    assert round(cells["E-min."].rho, 3) == 0.703  # published 0.775


@pytest.mark.shared
@pytest.mark.slow
def test_table6_gleu_e_min_is_not_the_published_value_with_or_without_merged_sentences():
    for skip in (False, True):
        (cell,) = [c for c in table6(_root(), skip_merged=skip, metrics=("GLEU",), reference_sets=("E-min.",)) if c.reference_set == "E-min."
                   and c.metric == "GLEU"]  # fmt: skip
        assert round(cell.rho, 3) == 0.511  # published 0.786; 12 systems without INPUT: 0.497


@pytest.mark.shared
@pytest.mark.slow
def test_table6_bleu_has_the_papers_sign_on_every_set_and_all_r_within_0_005():
    """Issue 42: BLEU was "not computed". sacrebleu's corpus BLEU (defaults) over all 1,312 sentences:
    All r -0.310 against the paper's -0.314; rho and the other sets off (reasons module: unexplained,
    with what was tried)."""
    cells = {c.reference_set: c for c in table6(_root(), metrics=("BLEU",)) if c.metric == "BLEU"}
    assert all(c.rho < 0 and c.r < 0 for c in cells.values())
    assert (round(cells["All"].rho, 3), round(cells["All"].r, 3)) == (-0.451, -0.310)
    assert (round(cells["E-fluency"].rho, 3), round(cells["E-fluency"].r, 3)) == (-0.242, -0.184)
    # every system scored: INPUT (the source) scores highest of all, as the paper's footnote 12 says
    scores = cells["All"].scores
    assert max(scores, key=scores.get) == "INPUT"


@pytest.mark.shared
@pytest.mark.slow
def test_table6_imeasure_reproduces_rho_on_six_of_seven_sets():
    """I-measure -nomix (footnote 9) with ieval.py's figures: rho is the paper's on every set but
    N-fluency; the r cells are off and unexplained (reasons module, with what was tried). About 50
    CPU-s since the scorer remembers solved alignments (it took 20 minutes)."""
    cells = {c.reference_set: c for c in table6(_root(), metrics=("I-measure",)) if c.metric == "I-measure"}
    for name in ("NUCLE", "BN15", "E-fluency", "E-min.", "N-min.", "All"):
        assert round(cells[name].rho, 3) == PUBLISHED[(name, "I-measure")][0], name
    assert round(cells["N-fluency"].rho, 3) == -0.484  # published -0.451
    assert {name: round(c.r, 3) for name, c in cells.items()} == {
        "NUCLE": -0.318,  # published -0.313
        "BN15": -0.026,  # -0.007
        "E-fluency": -0.271,  # -0.256
        "N-fluency": -0.332,  # -0.319
        "E-min.": -0.391,  # -0.385
        "N-min.": -0.409,  # -0.402
        "All": 0.041,  # 0.061
    }


@pytest.mark.shared
@pytest.mark.slow
def test_table6_every_m2_gleu_and_bleu_cell_pinned_as_the_command_prints_it():
    """Every M2, GLEU and BLEU cell (rho, r) of ``reproduce sakaguchi2016`` without --skip-merged
    (I-measure's are pinned above). Most are off and unexplained (ranking/analysis/reproduce_reasons.py,
    SAKAGUCHI_TABLE6_TRIED): pinned so that what the reasons and the doc say stays true."""
    got = {
        (c.reference_set, c.metric): (round(c.rho, 3), round(c.r, 3))
        for c in table6(_root(), metrics=("M2", "GLEU", "BLEU"))
        if c.metric in ("M2", "GLEU", "BLEU")
    }
    sets = ("NUCLE", "BN15", "E-fluency", "N-fluency", "E-min.", "N-min.", "All")
    pinned = {
        "M2": [(0.720, 0.673), (0.692, 0.612), (0.709, 0.661), (0.703, 0.651), (0.703, 0.651),
               (0.648, 0.636), (0.692, 0.592)],
        "GLEU": [(0.555, 0.750), (0.780, 0.760), (0.758, 0.773), (0.819, 0.770), (0.511, 0.512),
                 (-0.044, -0.101), (0.846, 0.817)],
        "BLEU": [(-0.544, -0.350), (-0.264, -0.246), (-0.242, -0.184), (-0.495, -0.378), (-0.451, -0.361),
                 (-0.522, -0.460), (-0.451, -0.310)],
    }  # fmt: skip
    assert {(name, m): cell for m, cells in pinned.items() for name, cell in zip(sets, cells)} == got
    # the published cells these are held against (rho, r)
    assert PUBLISHED[("E-min.", "GLEU")] == (0.786, 0.676) and PUBLISHED[("All", "BLEU")] == (-0.462, -0.314)


def _head_root(tmp_path, n: int = 60):
    """The first ``n`` sentences of every file Table 6 reads, in the shared layout."""
    from geceval.papers import sakaguchi2016_table6 as t6

    root = _root()
    out = tmp_path / "data"
    refs, new_refs = root.joinpath(*t6.REFERENCES), out.joinpath(*t6.REFERENCES)
    new_refs.mkdir(parents=True)
    for f in ["source", *SETS["All"][0]]:
        lines = (refs / f).read_text(encoding="utf-8").splitlines()[:n]
        (new_refs / f).write_text("\n".join(lines) + "\n", encoding="utf-8")
    for _files, m2 in SETS.values():
        blocks = (refs / m2).read_text(encoding="utf-8").strip("\n").split("\n\n")[:n]
        (new_refs / m2).write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    outputs = out.joinpath(*t6.OUTPUTS)
    outputs.mkdir(parents=True)
    for s in HUMAN_TS:
        lines = (root.joinpath(*t6.OUTPUTS) / s).read_text(encoding="utf-8").splitlines()[:n]
        (outputs / s).write_text("\n".join(lines) + "\n", encoding="utf-8")
    merged = out / "reassess-gec" / "annotations" / "merged_ids"
    merged.parent.mkdir(parents=True)
    ids = (root / "reassess-gec" / "annotations" / "merged_ids").read_text().split()
    merged.write_text("\n".join(i for i in ids if int(i) <= n) + "\n")
    return out


@pytest.mark.shared
@pytest.mark.parametrize("skip", [False, True])
def test_table6_m2_and_gleu_scored_once_per_line_equal_each_set_scored_apart(tmp_path, skip):
    # reproduce sakaguchi2016's profile (issue 42, part 2): each line's M2 lattice was built once per
    # reference set, and All's GLEU statistics counted again although All is the other six sets'
    # files; the shared computation must give the same figures as m2_score and gleu_plus per set
    from geceval.formats.m2 import read_m2
    from geceval.formats.text import read_lines
    from geceval.metrics.gleu.plus import gleu_plus
    from geceval.metrics.m2.scorer import m2_score
    from geceval.papers import sakaguchi2016_table6 as t6

    root = _head_root(tmp_path).resolve()
    refs = root.joinpath(*t6.REFERENCES)
    keep = t6._keep(60, t6._skip(root, skip))
    assert len(keep) < 60 or not skip
    m2 = t6._m2_scores(root, skip, tuple(SETS))
    gleu = t6._gleu_scores(root, skip, tuple(SETS))
    source = read_lines(refs / "source", allow_empty=True)
    for name, (files, m2_file) in SETS.items():
        gold = read_m2(refs / m2_file)
        ref_lines = [read_lines(refs / f, allow_empty=True) for f in files]
        for system, lines in t6._outputs(root).items():
            hyp = [lines[i] for i in keep]
            assert m2[name][system] == m2_score(hyp, [gold[i] for i in keep]).f, (name, system)
            alone = gleu_plus([source[i] for i in keep], [[r[i] for i in keep] for r in ref_lines], hyp)
            assert gleu[name][system] == alone.score, (name, system)
