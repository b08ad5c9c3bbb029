"""M2 (MaxMatch): reference figures, parity with a literal implementation, fixtures, CLI."""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geceval.metrics.m2.scorer as m2mod
from geceval.errors import GecInputError
from geceval.formats.m2 import M2Edit, M2Sentence, parse_m2, read_m2
from geceval.formats.text import read_lines
from geceval.metrics.m2 import lattice as m2_lattice
from geceval.metrics.m2.scorer import cli_m2, gold_edits, m2_score
from tests.core.m2_reference import reference_score, reference_sentence_edits
from tests.shared_data import shared_path

REPO = Path(__file__).resolve().parents[2]
FIX = Path(__file__).parent / "fixtures" / "m2"


def _r4(x: float) -> str:
    return f"{x:.4f}"


def _prf(res) -> tuple[str, str, str]:
    return _r4(res.p), _r4(res.r), _r4(res.f)


def _reference(hyps: list[str], gold: list[M2Sentence], **kw):
    return reference_score(hyps, [s.source for s in gold], [gold_edits(s) for s in gold], **kw)


# --------------------------------------------------------------------------- hand-made fixtures


def test_fixture_counts_merge_choice_and_alternatives():
    gold = read_m2(FIX / "gold.m2")
    res = m2_score(read_lines(FIX / "hyp.txt"), gold, sentence=True)
    assert (res.tp, res.fp, res.fn) == (5, 1, 2)
    assert res.p == pytest.approx(5 / 6)
    assert res.r == pytest.approx(5 / 7)
    assert res.f == pytest.approx(1.25 * 5 / (0.25 * 7 + 6))
    s = res.sentences
    # alternatives ("went||goes") and -NONE- deletions match
    assert s[2].edits == [(3, 4, "the", ""), (1, 2, "go", "went")]
    assert (s[2].tp, s[2].fp, s[2].fn) == (2, 0, 0)
    # the unmatched change stays a separate edit next to the matched insertion
    assert s[1].annotator == 0
    assert s[1].edits == [(4, 4, "", "the"), (1, 2, "book", "books")]


def test_annotator_choice_depends_on_beta_and_unmatched_edits_merge():
    """At beta 1 annotator 1 (noop only) wins sentence 2, where fewest edits = one merged arc."""
    gold = read_m2(FIX / "gold.m2")
    res = m2_score(read_lines(FIX / "hyp.txt"), gold, beta=1.0, sentence=True)
    assert (res.tp, res.fp, res.fn) == (4, 1, 1)
    assert res.sentences[1].annotator == 1
    assert res.sentences[1].edits == [(1, 4, "book are on", "books are on the")]
    assert res.f == pytest.approx(0.8)


def test_merged_gold_edit_matches_as_one_edit():
    sent = parse_m2("S I has a apple .\nA 1 3|||R:OTHER|||have an|||REQUIRED|||-NONE-|||0\n")
    res = m2_score(["I have an apple ."], sent, sentence=True)
    assert res.sentences[0].edits == [(1, 3, "has a", "have an")]
    assert (res.p, res.r, res.f) == (1.0, 1.0, 1.0)


def test_nothing_proposed_gives_p_1_and_no_gold_gives_r_1():
    gold = parse_m2("S A b c .\nA 1 2|||X|||B|||REQUIRED|||-NONE-|||0\n")
    res = m2_score(["A b c ."], gold)
    assert (res.p, res.r, res.f) == (1.0, 0.0, 0.0)
    gold = parse_m2("S A b c .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n")
    res = m2_score(["A B c ."], gold)
    assert (res.p, res.r, res.tp, res.fp, res.fn) == (0.0, 1.0, 0, 1, 0)
    assert res.f == 0.0


def test_gold_edits_drop_noops_but_keep_their_annotator():
    sent = parse_m2(
        "S a b c\nA 0 1|||X|||-NONE-|||REQUIRED|||-NONE-|||2\n"
        "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||5\nA 1 2|||X|||B||b2|||REQUIRED|||-NONE-|||2\n"
    )[0]
    assert gold_edits(sent) == {2: [(0, 1, "a", ("",)), (1, 2, "b", ("B", "b2"))], 5: []}
    assert gold_edits(M2Sentence("a b c")) == {0: []}


def test_ignore_whitespace_casing_drops_case_only_edits():
    gold = parse_m2("S i like New York .\nA 0 1|||R:ORTH|||I|||REQUIRED|||-NONE-|||0\n")
    hyp = ["I like new york ."]
    plain = m2_score(hyp, gold, sentence=True)
    assert (plain.tp, plain.fp, plain.fn) == (1, 1, 0)
    # the reference's tie order picks the first-created merged arc, unchanged words and all
    assert plain.sentences[0].edits == [(1, 5, "like New York .", "like new york ."), (0, 1, "i", "I")]
    folded = m2_score(hyp, gold, ignore_whitespace_casing=True)
    assert (folded.tp, folded.fp, folded.fn) == (0, 0, 1)
    assert (folded.p, folded.r) == (1.0, 0.0)
    assert _reference(hyp, gold, ignore_whitespace_casing=True)[:3] == (folded.p, folded.r, folded.f)


def test_max_unchanged_words_limits_merging():
    gold = parse_m2("S a b c d e\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n")
    hyp = ["A b c D e"]
    assert m2_score(hyp, gold, max_unchanged_words=2).fp == 1
    assert m2_score(hyp, gold, max_unchanged_words=1).fp == 2
    assert m2_score(hyp, gold, max_unchanged_words=0).fp == 2


def test_guard_scores_without_merged_arcs_and_reports_sentences():
    gold = read_m2(FIX / "gold.m2")
    hyp = read_lines(FIX / "hyp.txt")
    res = m2_score(hyp, gold, max_lattice_edges=6, sentence=True)
    long = [
        i for i, (h, s) in enumerate(zip(hyp, gold)) if m2_lattice.Lattice(s.tokens, h.split()).n_edges > 6
    ]
    assert res.guarded == long and long
    assert all(res.sentences[i].guarded for i in long)
    assert m2_score(hyp, gold).guarded == []


def test_wrong_number_of_hypotheses_is_an_input_error():
    with pytest.raises(GecInputError, match="3 hypothesis lines for 4 gold"):
        m2_score(["a", "b", "c"], read_m2(FIX / "gold.m2"))


# --------------------------------------------------------------------------- parity with the literal reference

_WORDS = st.sampled_from(["a", "b", "c", "d"])
_SENT = st.lists(_WORDS, min_size=0, max_size=8)


@st.composite
def _cases(draw):
    n = draw(st.integers(1, 3))
    hyps, gold = [], []
    for _ in range(n):
        src = draw(_SENT)
        hyp = draw(_SENT)
        edits = []
        for annotator in range(draw(st.integers(0, 3))):
            for _ in range(draw(st.integers(0, 3))):
                s = draw(st.integers(0, len(src)))
                e = draw(st.integers(s, min(len(src), s + 3)))
                if hyp and draw(st.booleans()):
                    hs = draw(st.integers(0, len(hyp)))
                    corr = " ".join(hyp[hs : hs + draw(st.integers(0, 3))])
                else:
                    corr = " ".join(draw(st.lists(_WORDS, max_size=3)))
                alts = (corr, "x") if draw(st.booleans()) else (corr,)
                edits.append(M2Edit(s, e, "X", alts, annotator))
            if draw(st.booleans()):
                edits.append(M2Edit(-1, -1, "noop", ("",), annotator))
        gold.append(M2Sentence(" ".join(src), edits))
        hyps.append(" ".join(hyp))
    return hyps, gold, draw(st.sampled_from([0.5, 0.2, 1.0])), draw(st.sampled_from([0, 1, 2, 2, 3]))


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_fast_scorer_equals_literal_reference_on_random_cases(case):
    hyps, gold, beta, u = case
    fast = m2_score(hyps, gold, beta=beta, max_unchanged_words=u, sentence=True)
    p, r, f, ref = _reference(hyps, gold, beta=beta, max_unchanged=u)
    assert (fast.p, fast.r, fast.f) == (p, r, f)
    assert [(s.annotator, s.edits) for s in fast.sentences] == [(x.annotator, x.edits) for x in ref]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_array_implementation_equals_literal_reference(case):
    hyps, gold, beta, u = case
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(m2mod, "NUMPY_VERTICES", 0)
        fast = m2_score(hyps, gold, beta=beta, max_unchanged_words=u, sentence=True)
    p, r, f, ref = _reference(hyps, gold, beta=beta, max_unchanged=u)
    assert (fast.p, fast.r, fast.f) == (p, r, f)
    assert [s.edits for s in fast.sentences] == [x.edits for x in ref]


@st.composite
def _near_copies(draw):
    """Longer sentences over 3 words (runs, so optimal alignments slide) and hypotheses a few edits
    away, or unchanged: the banded distance tables and the unchanged-sentence shortcut."""
    hyps, gold = [], []
    for _ in range(draw(st.integers(1, 3))):
        src = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=8, max_size=16))
        hyp = list(src)
        for _ in range(draw(st.integers(0, 3))):
            at = draw(st.integers(0, len(hyp)))
            op = draw(st.sampled_from(["ins", "del", "sub"]))
            if op == "ins" or at == len(hyp):
                hyp.insert(at, draw(st.sampled_from(["a", "b", "X"])))
            elif op == "del":
                del hyp[at]
            else:
                hyp[at] = draw(st.sampled_from(["a", "X"]))
        edits = []
        for annotator in range(draw(st.integers(1, 3))):
            for _ in range(draw(st.integers(0, 3))):
                s = draw(st.integers(0, len(src)))
                e = draw(st.integers(s, min(len(src), s + 2)))
                same = draw(st.booleans())  # a correction equal to the original matches no-op arcs
                corr = " ".join(src[s:e]) if same else " ".join(draw(st.lists(_WORDS, max_size=2)))
                edits.append(M2Edit(s, e, "X", (corr,), annotator))
        gold.append(M2Sentence(" ".join(src), edits))
        hyps.append(" ".join(hyp))
    return hyps, gold, draw(st.sampled_from([0, 1, 2, 3]))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_near_copies())
def test_fast_scorer_equals_literal_reference_on_near_copies(case):
    hyps, gold, u = case
    fast = m2_score(hyps, gold, max_unchanged_words=u, sentence=True)
    p, r, f, ref = _reference(hyps, gold, beta=0.5, max_unchanged=u)
    assert (fast.p, fast.r, fast.f) == (p, r, f)
    assert [(s.annotator, s.edits) for s in fast.sentences] == [(x.annotator, x.edits) for x in ref]


def test_unchanged_sentence_is_guarded_like_its_lattice():
    gold = [M2Sentence("a b c d", [M2Edit(0, 1, "X", ("a",), 0)])]
    for limit, guarded in ((3, [0]), (4, [])):
        res = m2_score(["a b c d"], gold, max_lattice_edges=limit, sentence=True)
        assert res.guarded == guarded
        assert (res.tp, res.fp, res.fn, res.sentences[0].edits) == (0, 0, 1, [])


# --------------------------------------------------------------------------- properties


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(_SENT, st.lists(st.tuples(st.integers(0, 8), st.integers(0, 2)), max_size=3))))
def test_source_as_hypothesis_gives_p_1_r_0(items):
    gold, hyps = [], []
    for src, spans in items:
        edits = [M2Edit(min(s, len(src)), min(s + k, len(src)), "X", ("Z",), 0) for s, k in spans]
        gold.append(M2Sentence(" ".join(src), edits))
        hyps.append(" ".join(src))
    if not gold:
        return
    res = m2_score(hyps, gold)
    assert res.p == 1.0 and res.fp == 0 and res.tp == 0
    assert res.r == (0.0 if res.fn else 1.0)


@st.composite
def _applied(draw):
    """Sentences, annotator 0's non-adjacent edits with new words applied, other annotators random."""
    gold, hyps = [], []
    for _ in range(draw(st.integers(1, 3))):
        src = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=10))
        edits, out, i = [], [], 0
        while i <= len(src):
            if draw(st.integers(0, 3)) == 0:
                k = draw(st.integers(0, min(2, len(src) - i)))
                new = draw(st.lists(st.sampled_from(["X", "Y"]), max_size=2))
                if k or new:
                    edits.append(M2Edit(i, i + k, "X", (" ".join(new),), 0))
                    out += new
                    out += src[i + k : i + k + 1]
                    i += k + 1
                    continue
            out += src[i : i + 1]
            i += 1
        if not edits:  # a noop line makes annotator 0 present (absent ones are not considered)
            edits.append(M2Edit(-1, -1, "noop", ("",), 0))
        for annotator in range(1, draw(st.integers(1, 3))):
            s = draw(st.integers(0, len(src)))
            edits.append(M2Edit(s, s, "X", ("Q",), annotator))
        gold.append(M2Sentence(" ".join(src), edits))
        hyps.append(" ".join(out))
    return hyps, gold


@settings(max_examples=80, deadline=None)
@given(_applied())
def test_hypothesis_applying_one_annotators_edits_scores_1(case):
    hyps, gold = case
    for beta in (0.5, 2.0):
        res = m2_score(hyps, gold, beta=beta)
        assert (res.p, res.r, res.f) == (1.0, 1.0, 1.0)


# --------------------------------------------------------------------------- reference figures (../shared)


def _conll_gold():
    return read_m2(shared_path("gecmetrics", "data", "conll14st-test", "conll14st-test.m2"))


def _conll_hyp(name: str) -> list[str]:
    return read_lines(shared_path("grammatical-evaluation", "data", "original", "official_submissions", name))


@pytest.mark.shared
@pytest.mark.parametrize(
    ("system", "prf"),
    [
        ("AMU", ("0.4162", "0.2140", "0.3501")),
        ("CAMB", ("0.3971", "0.3010", "0.3733")),
        ("INPUT", ("1.0000", "0.0000", "0.0000")),
    ],
)
def test_conll14_official_gold_reference_figures(system, prf):
    assert _prf(m2_score(_conll_hyp(system), _conll_gold())) == prf


@pytest.mark.shared
def test_conll14_all_13_systems_f05_match_gecmetrics_m2score():
    path = shared_path("gecmetrics", "scores", "system_scores_metrics", "m2score.txt.gz")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [line.rstrip("\n").split("\t") for line in fh if line.strip()]
    want = {row[3]: row[4] for row in rows}
    assert len(want) == 13
    gold = _conll_gold()
    got = {name: _r4(m2_score(_conll_hyp(name), gold).f) for name in want}
    assert got == want


@pytest.mark.shared
@pytest.mark.parametrize(
    ("gold_parts", "beta", "prf"),
    [
        (("derived", "jfleg-test-errant", "jfleg.test.ref.errant.m2"), 0.5, ("0.2583", "0.1958", "0.2428")),
        (("derived", "jfleg-test-errant", "jfleg.test.ref.errant.m2"), 0.2, ("0.2587", "0.1945", "0.2554")),
        (("jfleg", "EACL_exp", "m2converter", "test.ref.m2"), 0.5, ("0.3124", "0.2264", "0.2903")),
    ],
)
def test_jfleg_spellchecked_reference_figures(gold_parts, beta, prf):
    hyp = read_lines(shared_path("jfleg", "test", "test.spellchecked.src"))
    assert _prf(m2_score(hyp, read_m2(shared_path(*gold_parts)), beta=beta)) == prf


@pytest.mark.shared
@pytest.mark.parametrize(
    ("system", "prf"), [("system", ("0.8000",) * 3), ("system2", ("0.7500", "0.6000", "0.7143"))]
)
def test_m2scorer_examples(system, prf):
    base = ("derived", "m2scorer-example")
    gold = read_m2(shared_path(*base, "source_gold"))
    assert _prf(m2_score(read_lines(shared_path(*base, system)), gold)) == prf


@pytest.mark.shared
def test_blowup_sentence_amu_equals_literal_reference():
    base = ("derived", "m2-blowup")
    gold = read_m2(shared_path(*base, "ref.m2"))
    hyp = read_lines(shared_path(*base, "amu"))
    fast = m2_score(hyp, gold, sentence=True)
    p, r, f, ref = _reference(hyp, gold)
    assert (fast.p, fast.r, fast.f) == (p, r, f) == (0.0, 0.0, 0.0)
    assert fast.sentences[0].edits == ref[0].edits == [(65, 66, "a", "")]
    for annotator, g in gold_edits(gold[0]).items():
        lat = m2_lattice.Lattice(gold[0].tokens, hyp[0].split())
        fast_edits = m2_lattice.best_edits(lat, m2_lattice.Arcs(lat, 2), g)
        assert fast_edits == reference_sentence_edits(gold[0].source, hyp[0], g), annotator


@pytest.mark.shared
def test_blowup_sentence_marian_is_scored_exactly_within_30s():
    """The reference ran over 11 minutes without finishing (|V| 13,929): we build all 8.4M merged arcs."""
    base = ("derived", "m2-blowup")
    gold = read_m2(shared_path(*base, "ref.m2"))
    hyp = read_lines(shared_path(*base, "marian"))
    assert len(hyp[0].split()) == 408
    t0 = time.process_time()
    res = m2_score(hyp, gold, sentence=True)
    elapsed = time.process_time() - t0
    assert elapsed < 30, elapsed
    assert (res.tp, res.fp, res.fn) == (0, 5, 2)
    assert res.sentences[0].annotator == 0
    assert [e[:2] for e in res.sentences[0].edits] == [(63, 70), (59, 63), (50, 59), (45, 46), (3, 4)]
    lat = m2_lattice.Lattice(gold[0].tokens, hyp[0].split())
    assert (len(lat.order), lat.n_edges) == (13929, 23524)


# --------------------------------------------------------------------------- command line


def _args(**kw) -> argparse.Namespace:
    base = {"refs": [str(FIX / "gold.m2")], "hyp": [str(FIX / "hyp.txt")], "source": None, "beta": 0.5}
    base.update({"align": "errant", "sentence": False, "json": True})
    base.update(kw)
    return argparse.Namespace(**base)


def test_cli_adapter_fields_and_sentences():
    (row,) = cli_m2(_args(sentence=True))
    assert row["hyp"] == str(FIX / "hyp.txt") and row["metric"] == "m2"
    assert (row["tp"], row["fp"], row["fn"], row["beta"]) == (5, 1, 2, 0.5)
    assert row["score"] == row["f"] == pytest.approx(0.806452, abs=1e-6)
    assert row["sentences"][1]["edits"] == [[4, 4, "", "the"], [1, 2, "book", "books"]]


def test_cli_adapter_names_the_file_with_the_wrong_line_count():
    with pytest.raises(GecInputError) as err:
        cli_m2(_args(hyp=[str(FIX / "hyp.txt"), str(FIX / "hyp_short.txt")]))
    assert err.value.path == str(FIX / "hyp_short.txt")
    assert "2 lines" in str(err.value)


def test_cli_adapter_converts_text_references_with_levenshtein_alignment():
    args = _args(
        refs=[str(FIX / "ref0.txt"), str(FIX / "ref1.txt")],
        source=str(FIX / "src.txt"),
        hyp=[str(FIX / "ref0.txt"), str(FIX / "src.txt")],
        align="levenshtein",
    )
    ref0, src = cli_m2(args)
    assert (ref0["p"], ref0["r"], ref0["f"], ref0["tp"]) == (1.0, 1.0, 1.0, 2)
    assert (src["p"], src["r"], src["tp"], src["fp"]) == (1.0, 0.0, 0, 0)


def test_cli_text_references_need_a_source():
    with pytest.raises(GecInputError, match="--source"):
        cli_m2(_args(refs=[str(FIX / "ref0.txt"), str(FIX / "ref1.txt")]))


def test_score_m2_command_prints_json():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "geceval",
            "score",
            "m2",
            "--refs",
            str(FIX / "gold.m2"),
            "--hyp",
            str(FIX / "hyp.txt"),
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    (row,) = json.loads(out.stdout)
    assert row["metric"] == "m2"
    assert (row["tp"], row["fp"], row["fn"]) == (5, 1, 2)
    assert row["p"] == pytest.approx(5 / 6) and row["r"] == pytest.approx(5 / 7)


def test_score_m2_command_reports_bad_line_count():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "geceval",
            "score",
            "m2",
            "--refs",
            str(FIX / "gold.m2"),
            "--hyp",
            str(FIX / "hyp_short.txt"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert out.returncode == 2
    assert "hyp_short.txt" in out.stderr and "4 sentences" in out.stderr
