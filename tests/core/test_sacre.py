"""sacrebleu-based BLEU / chrF++ / TER, sTER and Levenshtein distances."""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geceval.errors import GecInputError
from geceval.formats.text import read_jfleg, read_lines
from geceval.metrics.sacre import (
    bleu,
    char_ld,
    chrf,
    chrf_precision_recall,
    cli_bleu,
    cli_chrf,
    cli_ter,
    ster,
    ter,
    ter_x100,
    word_ld,
)
from tests.shared_data import shared_path

REPO = Path(__file__).resolve().parents[2]
FIX = Path(__file__).parent / "fixtures" / "gleu"


def _fixture():
    refs = [read_lines(FIX / "ref0.txt"), read_lines(FIX / "ref1.txt")]
    return refs, read_lines(FIX / "hyp.txt")


def _f_beta(p: float, r: float, beta: float) -> float:
    return (1 + beta**2) * p * r / (beta**2 * p + r)


# --------------------------------------------------------------------------- fixture values


def test_bleu_on_fixture_is_geometric_mean_of_precisions_with_signature():
    refs, hyp = _fixture()
    res = bleu(refs, hyp)
    assert round(res.score, 4) == 78.9807
    assert [round(p, 4) for p in res.precisions] == [91.4286, 80.0, 76.0, 70.0]
    assert (res.sys_len, res.ref_len, res.bp) == (35, 34, 1.0)
    assert res.score == pytest.approx(math.exp(sum(math.log(p) for p in res.precisions) / 4))
    assert res.signature == "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
    assert res.sentence_scores is None


def test_chrf_reports_precision_and_recall_whose_f_beta_is_the_score():
    refs, hyp = _fixture()
    res = chrf(refs, hyp)
    assert (round(res.score, 4), round(res.precision, 4), round(res.recall, 4)) == (92.9919, 90.4928, 93.6384)
    assert res.score == pytest.approx(_f_beta(res.precision, res.recall, 2.0), rel=1e-12)
    assert res.beta == 2.0
    assert "nw:2" in res.signature and "nc:6" in res.signature


def test_chrf_beta_one_weights_precision_and_recall_equally():
    refs, hyp = _fixture()
    res = chrf(refs, hyp, beta=1)
    assert res.score == pytest.approx(_f_beta(res.precision, res.recall, 1.0), rel=1e-12)
    assert res.score < chrf(refs, hyp).score  # recall > precision here, so beta 2 scores higher


def test_chrf_precision_recall_averages_only_effective_orders():
    # order 1: 2 matches of 4 hyp / 5 ref n-grams; order 2: no hypothesis n-grams (not effective).
    assert chrf_precision_recall([4, 5, 2, 0, 3, 0], 2) == (50.0, 40.0)
    assert chrf_precision_recall([0, 5, 0], 1) == (0.0, 0.0)


def test_ter_is_case_insensitive_by_default_and_counts_case_edits_when_asked():
    refs, hyp = _fixture()
    res = ter(refs, hyp)
    assert (round(res.score, 4), res.num_edits, res.ref_length) == (8.6957, 3, 34.5)
    assert "case:lc" in res.signature
    assert ter([["The cat sat ."]], ["the cat sat ."]).score == 0.0
    cs = ter([["The cat sat ."]], ["the cat sat ."], case_sensitive=True)
    assert (cs.score, cs.num_edits) == (25.0, 1)
    assert "case:mixed" in cs.signature


def test_sentence_scores_have_one_value_per_sentence():
    refs, hyp = _fixture()
    for res in (
        bleu(refs, hyp, sentence=True),
        chrf(refs, hyp, sentence=True),
        ter(refs, hyp, sentence=True),
    ):
        assert len(res.sentence_scores) == 5
    # "We discussed the problem yesterday ." equals ref0.
    assert bleu(refs, hyp, sentence=True).sentence_scores[4] == pytest.approx(100.0)
    assert ter(refs, hyp, sentence=True).sentence_scores[4] == 0.0


def test_misaligned_references_are_rejected():
    with pytest.raises(GecInputError, match="reference 1 has 1 sentences"):
        bleu([["a", "b"], ["a"]], ["a", "b"])


# --------------------------------------------------------------------------- sTER and distances


def test_ter_x100_is_case_sensitive_ter_against_the_source():
    # "this is test ." -> "This is a test .": 1 substitution (case) + 1 insertion over 5 source words.
    assert ter_x100("This is a test .", "this is test .") == 40.0
    assert ter_x100("This is a test .", "This is a test .") == 0.0
    assert ter_x100("a b", "") == 100.0


def test_ster_counts_edits_per_sentence_ignoring_case():
    # Sakaguchi et al. 2016: the number of TER edits, not divided by the length; tercom ignores case.
    assert ster("This is a test .", "this is test .") == 1.0
    assert ster("a b", "") == 2.0
    assert ster("", "a b c") == 3.0


def test_levenshtein_distances_on_characters_and_whitespace_tokens():
    assert char_ld("kitten", "sitting") == 3
    assert char_ld("", "abc") == 3
    assert word_ld("a b c d", "a x  c") == 2
    assert word_ld("He go to school .", "He goes to school .") == 1


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab c", max_size=12), st.text(alphabet="ab c", max_size=12))
def test_levenshtein_is_symmetric_and_zero_only_for_equal_strings(a, b):
    assert char_ld(a, b) == char_ld(b, a)
    assert (char_ld(a, b) == 0) == (a == b)
    assert word_ld(a, b) <= max(len(a.split()), len(b.split()))


_sentence = st.lists(st.sampled_from(["the", "cat", "sat", "on", "mat", "."]), min_size=4, max_size=10).map(
    " ".join
)


@settings(max_examples=25, deadline=None)
@given(st.lists(_sentence, min_size=1, max_size=4))
def test_hypothesis_equal_to_the_reference_scores_the_maximum(sentences):
    assert bleu([sentences], sentences).score == pytest.approx(100.0)
    assert chrf([sentences], sentences).score == pytest.approx(100.0)
    assert ter([sentences], sentences).score == 0.0
    assert all(ster(s, s) == 0.0 for s in sentences)


# --------------------------------------------------------------------------- command line


def _args(**kw) -> argparse.Namespace:
    base = {
        "source": None,
        "refs": [str(FIX / "ref0.txt"), str(FIX / "ref1.txt")],
        "hyp": [str(FIX / "hyp.txt")],
        "sentence": False,
        "json": True,
        "beta": 2.0,
        "case_sensitive": False,
    }
    base.update(kw)
    return argparse.Namespace(**base)


def test_cli_adapters_return_sacrebleu_values_and_signature():
    [b] = cli_bleu(_args())
    assert (b["metric"], round(b["score"], 4)) == ("bleu", 78.9807)
    assert {"precisions", "bp", "sys_len", "ref_len", "signature"} <= set(b)
    [c] = cli_chrf(_args(sentence=True))
    assert (c["metric"], round(c["score"], 4), round(c["precision"], 4), round(c["recall"], 4)) == (
        "chrf",
        92.9919,
        90.4928,
        93.6384,
    )
    assert len(c["sentences"]) == 5
    [t] = cli_ter(_args())
    assert (t["metric"], round(t["score"], 4), t["num_edits"]) == ("ter", 8.6957, 3)


def test_cli_ter_case_sensitive_flag(tmp_path):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("The cat sat .\n")
    hyp.write_text("the cat sat .\n")
    args = _args(refs=[str(ref)], hyp=[str(hyp)])
    assert cli_ter(args)[0]["score"] == 0.0
    args.case_sensitive = True
    assert cli_ter(args)[0]["score"] == 25.0


def test_cli_names_misaligned_empty_and_bad_utf8_files():
    short, empty, bad = (str(FIX / n) for n in ("short.txt", "empty.txt", "bad_utf8.txt"))
    with pytest.raises(GecInputError) as err:
        cli_bleu(_args(hyp=[short]))
    assert err.value.path == short
    with pytest.raises(GecInputError, match="empty") as err:
        cli_chrf(_args(hyp=[empty]))
    assert err.value.path == empty
    with pytest.raises(GecInputError, match="UTF-8") as err:
        cli_ter(_args(refs=[bad]))
    assert (err.value.path, err.value.line) == (bad, 2)


def test_score_chrf_command_prints_json_with_default_beta_two():
    cmd = [sys.executable, "-m", "geceval", "score", "chrf", "--refs", str(FIX / "ref0.txt")]
    cmd += [str(FIX / "ref1.txt"), "--hyp", str(FIX / "hyp.txt"), "--json"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True)
    [row] = json.loads(proc.stdout)
    assert row["metric"] == "chrf"
    assert row["beta"] == 2.0
    assert round(row["score"], 4) == 92.9919


# --------------------------------------------------------------------------- reference figures (../shared)


@pytest.mark.shared
def test_jfleg_test_source_bleu_chrf_ter_reference_figures():
    corpus = read_jfleg(shared_path("jfleg", "test") / "test")
    b = bleu(corpus.references, corpus.source)
    c = chrf(corpus.references, corpus.source)
    t = ter(corpus.references, corpus.source)
    assert f"{b.score:.4f}" == "80.6323"
    assert f"{c.score:.4f}" == "89.4506"
    assert f"{t.score:.4f}" == "10.5579"
    assert c.score == pytest.approx(_f_beta(c.precision, c.recall, 2.0), rel=1e-12)
    assert t.signature == "nrefs:4|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0"
