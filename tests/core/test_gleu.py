"""GLEU+, charGLEU and GLEU 2015: reference figures, a plain re-implementation, fixtures, CLI."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geceval.errors import GecInputError
from geceval.formats.text import read_jfleg, read_lines
from geceval.metrics.gleu.gleu2015 import cli_gleu2015, gleu2015, gleu2015_sentence_scores
from geceval.metrics.gleu.plus import (
    char_gleu,
    cli_chargleu,
    cli_gleu,
    gleu_from_stats,
    gleu_human_bound,
    gleu_plus,
    gleu_plus_stats,
    sampled_reference_indices,
    tokenize,
)
from tests.shared_data import shared_path

REPO = Path(__file__).resolve().parents[2]
FIX = Path(__file__).parent / "fixtures" / "gleu"
CONLL_SYSTEMS = {
    "AMU": 0.589564,
    "CAMB": 0.595956,
    "CUUI": 0.594286,
    "IITB": 0.573747,
    "INPUT": 0.573192,
    "IPN": 0.560378,
    "NTHU": 0.579269,
    "PKU": 0.584522,
    "POST": 0.572846,
    "RAC": 0.571464,
    "SJTU": 0.575410,
    "UFC": 0.576201,
    "UMC": 0.576852,
}


# --------------------------------------------------------------------------- plain reference implementation
# Written straight from the description in REFERENCE_FIGURES.md (Counters, the global-style
# seeded generator, Python 2 randint as int(random() * k)); the fast code must agree with it.


def _plain_units(line: str, unit: str):
    toks = line.split()
    return toks if unit == "word" else " ".join(toks)


def _plain_ngrams(units, n: int) -> Counter:
    return Counter(tuple(units[i : i + n]) for i in range(len(units) - n + 1))


def plain_pair_stats(s: str, r: str, h: str, order: int = 4, unit: str = "word") -> list[int]:
    hu, su, ru = (_plain_units(x, unit) for x in (h, s, r))
    stats = [len(hu), len(ru)]
    for n in range(1, order + 1):
        hc, sc, rc = _plain_ngrams(hu, n), _plain_ngrams(su, n), _plain_ngrams(ru, n)
        s_diff = Counter({g: c for g, c in sc.items() if g not in rc})
        stats.append(max(0, sum((hc & rc).values()) - sum((hc & s_diff).values())))
        stats.append(max(0, len(hu) - n + 1))
    return stats


def plain_score(stats: list[int]) -> float:
    if any(x == 0 for x in stats):
        return 0.0
    c, r = stats[:2]
    order = (len(stats) - 2) // 2
    log_prec = sum(math.log(x / y) for x, y in zip(stats[2::2], stats[3::2], strict=True)) / order
    return math.exp(min(0, 1 - r / c) + log_prec)


def plain_gleu_plus(source, refs, hyp, iterations=500, order=4, unit="word") -> float:
    k = len(refs)
    per = [
        [plain_pair_stats(source[i], refs[r][i], hyp[i], order, unit) for r in range(k)]
        for i in range(len(hyp))
    ]
    scores = []
    rng = random.Random()
    for j in range(iterations):
        rng.seed(j * 101)
        idx = [int(rng.random() * k) for _ in hyp]
        total = [sum(col) for col in zip(*(per[i][idx[i]] for i in range(len(hyp))), strict=True)]
        scores.append(plain_score(total))
    return sum(scores) / len(scores)


def _fixture():
    src = read_lines(FIX / "src.txt")
    refs = [read_lines(FIX / "ref0.txt"), read_lines(FIX / "ref1.txt")]
    hyp = read_lines(FIX / "hyp.txt")
    return src, refs, hyp


# --------------------------------------------------------------------------- hand-computed cases


def test_stats_count_hypothesis_ngrams_kept_from_source_but_absent_from_reference_as_penalty():
    # h = s = "a b c d", r = "a b x d". Unigrams: a, b, d match (3) and "c" is a source
    # unigram absent from r (1): 3 - 1 = 2. Bigrams: "a b" matches (1), "b c" and "c d"
    # are penalised (2): max(0, -1) = 0. Trigrams/4-gram: 0 matches, penalties -> 0.
    stats = gleu_plus_stats(["a b c d"], [["a b x d"]], ["a b c d"])
    assert stats.tolist() == [[[4, 4, 2, 4, 0, 3, 0, 2, 0, 1]]]


def test_sentence_score_replaces_zero_statistics_by_one():
    res = gleu_plus(["a b c d"], [["a b x d"]], ["a b c d"], sentence=True)
    assert res.score == 0.0  # a zero n-gram count zeroes the corpus score
    # smoothed [4, 4, 2, 4, 1, 3, 1, 2, 1, 1]: exp(0 + log(2/4 * 1/3 * 1/2 * 1) / 4) = 12**-0.25
    assert res.sentence_scores == [pytest.approx(12**-0.25, rel=1e-15)]


def test_single_reference_corpus_score_has_brevity_penalty_and_zero_std():
    # S1 h = r: [4,4, 4,4, 3,3, 2,2, 1,1]; S2 "the cat sat" vs "the cat sat down":
    # [3,4, 3,3, 2,2, 1,1, 0,0]. Sum [7,8, 7,7, 5,5, 3,3, 1,1] -> exp(1 - 8/7).
    res = gleu_plus(["a b c d", "the cat sat"], [["a b x d", "the cat sat down"]], ["a b x d", "the cat sat"])
    assert res.score == pytest.approx(math.exp(-1 / 7), rel=1e-15)
    assert res.std == 0.0
    assert res.ci == (res.score, res.score)
    assert len(res.iteration_scores) == 500


def test_gleu_from_stats_is_zero_when_any_count_is_zero_and_smooths_on_request():
    assert gleu_from_stats([3, 3, 0, 3, 1, 2, 1, 1, 1, 1]) == 0.0
    assert gleu_from_stats([3, 3, 0, 3, 1, 2, 1, 1, 1, 1], smooth=True) == pytest.approx(
        math.exp((math.log(1 / 3) + math.log(1 / 2)) / 4)
    )


def test_tokenize_splits_only_at_ascii_whitespace_like_python2_bytes():
    assert tokenize("a  b\tc\r\n") == ["a", "b", "c"]
    assert tokenize("a\u00a0b c") == ["a\u00a0b", "c"]  # NBSP is not a separator in Python 2


def test_fixture_gleu_plus_with_two_references_matches_plain_implementation():
    src, refs, hyp = _fixture()
    res = gleu_plus(src, refs, hyp, sentence=True)
    assert round(res.score, 6) == 0.391600
    assert round(res.std, 6) == 0.113056
    assert res.score == pytest.approx(plain_gleu_plus(src, refs, hyp), rel=1e-12)
    lo, hi = res.ci
    assert lo == pytest.approx(res.score - 1.959963984540054 * res.std)
    assert hi == pytest.approx(res.score + 1.959963984540054 * res.std)
    expected_sentences = [
        float(np.mean([plain_score([x or 1 for x in plain_pair_stats(s, r[i], h)]) for r in refs]))
        for i, (s, h) in enumerate(zip(src, hyp, strict=True))
    ]
    assert res.sentence_scores == pytest.approx(expected_sentences, rel=1e-12)
    assert round(res.sentence_scores[3], 6) == 0.682778


def test_fixture_char_gleu_matches_plain_character_implementation():
    src, refs, hyp = _fixture()
    res = char_gleu(src, refs, hyp)
    assert round(res.score, 6) == 0.655948
    assert res.score == pytest.approx(plain_gleu_plus(src, refs, hyp, order=5, unit="char"), rel=1e-12)


def test_char_gleu_counts_single_spaces_between_tokens_as_characters():
    # "a b" has 3 characters; extra spaces in the file do not count.
    stats = gleu_plus_stats(["a  b"], [["a b"]], ["a   b "], order=5, unit="char")
    assert stats[0, 0, :2].tolist() == [3, 3]


def test_human_bound_scores_each_reference_against_the_others():
    src, refs, _ = _fixture()
    mean, per_ref = gleu_human_bound(src, refs)
    assert per_ref == [gleu_plus(src, [refs[1]], refs[0]).score, gleu_plus(src, [refs[0]], refs[1]).score]
    assert mean == pytest.approx((per_ref[0] + per_ref[1]) / 2)
    assert round(mean, 6) == 0.373341
    with pytest.raises(GecInputError):
        gleu_human_bound(src, refs[:1])


def test_sampled_indices_replay_python2_randint_stream():
    for k in (2, 3, 4, 7):
        for n in (1, 5, 333):
            idx = sampled_reference_indices(30, n, k)
            rng = random.Random()
            for j in range(30):
                rng.seed(j * 101)
                assert idx[j].tolist() == [int(rng.random() * k) for _ in range(n)]


def test_sampled_indices_are_all_zero_for_one_reference():
    assert not sampled_reference_indices(5, 4, 1).any()


def test_misaligned_inputs_are_rejected():
    with pytest.raises(GecInputError, match="reference 1 has 1 sentences"):
        gleu_plus(["a", "b"], [["a", "b"], ["a"]], ["a", "b"])
    with pytest.raises(GecInputError, match="hypothesis has 1"):
        gleu_plus(["a", "b"], [["a", "b"]], ["a"])


# --------------------------------------------------------------------------- GLEU 2015 hand-computed


def test_gleu2015_penalises_source_ngrams_missing_from_references_by_lambda():
    src, ref = "a b c d e f g h", "a b c d e f g x"
    # nums 7-λ, 6-λ, 5-λ, 4-λ over dens 8, 7, 6, 5; equal lengths.
    assert gleu2015([src], [[ref]], [src], lam=0.0) == pytest.approx(0.5**0.25, rel=1e-15)
    assert gleu2015([src], [[ref]], [src], lam=1.0) == pytest.approx((3 / 14) ** 0.25, rel=1e-15)
    assert gleu2015([src], [[ref]], [ref], lam=1.0) == pytest.approx(1.0, rel=1e-15)


def test_gleu2015_brevity_term_is_inverted_shorter_hypothesis_is_not_penalised():
    assert gleu2015(["a b c d e"], [["a b c d e"]], ["a b c d"]) == pytest.approx(1.0, rel=1e-15)
    longer = gleu2015(["a b c d"], [["a b c d"]], ["a b c d e"])
    assert longer == pytest.approx(math.exp(1 - 5 / 4) * 0.2**0.25, rel=1e-15)


def test_gleu2015_uses_the_first_reference_closest_in_length():
    # Reference lengths 3 and 5 are both 1 away from 4: the first one (3) is used.
    assert gleu2015(["a b c d"], [["a b c"], ["a b c d e"]], ["a b c d"]) == pytest.approx(
        math.exp(1 - 4 / 3), rel=1e-15
    )
    assert gleu2015(["a b c d"], [["a b c d e"], ["a b c"]], ["a b c d"]) == pytest.approx(1.0)


def test_gleu2015_fixture_values_and_sentence_scores():
    src, refs, hyp = _fixture()
    assert [round(gleu2015(src, refs, hyp, lam=lam), 6) for lam in (0.0, 0.1, 1.0)] == [
        0.818163,
        0.805234,
        0.688104,
    ]
    sent = gleu2015_sentence_scores(src, refs, hyp, lam=0.0)
    assert len(sent) == 5
    assert sent[4] == pytest.approx(1.0)  # "We discussed the problem yesterday ." is ref0


# --------------------------------------------------------------------------- properties

_word = st.sampled_from(["a", "b", "c", "d", "e"])
_sentence = st.lists(_word, min_size=0, max_size=9).map(" ".join)


@st.composite
def _corpora(draw):
    n = draw(st.integers(1, 6))
    k = draw(st.integers(1, 4))
    src = draw(st.lists(_sentence, min_size=n, max_size=n))
    refs = [draw(st.lists(_sentence, min_size=n, max_size=n)) for _ in range(k)]
    hyp = draw(st.lists(_sentence, min_size=n, max_size=n))
    return src, refs, hyp


@settings(max_examples=150, deadline=None)
@given(_corpora())
def test_vectorised_stats_equal_plain_counter_stats(corpus):
    src, refs, hyp = corpus
    for unit, order in (("word", 4), ("char", 5)):
        fast = gleu_plus_stats(src, refs, hyp, order=order, unit=unit).tolist()
        plain = [
            [plain_pair_stats(src[i], refs[r][i], hyp[i], order, unit) for r in range(len(refs))]
            for i in range(len(src))
        ]
        assert fast == plain


@settings(max_examples=40, deadline=None)
@given(_corpora())
def test_gleu_plus_equals_plain_implementation(corpus):
    src, refs, hyp = corpus
    assert gleu_plus(src, refs, hyp, iterations=20).score == pytest.approx(
        plain_gleu_plus(src, refs, hyp, iterations=20), rel=1e-12, abs=1e-15
    )


_long_sentence = st.lists(_word, min_size=4, max_size=10).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_sentence, _long_sentence), min_size=1, max_size=5))
def test_hypothesis_equal_to_single_reference_scores_one(pairs):
    src = [s for s, _ in pairs]
    ref = [r for _, r in pairs]
    assert gleu_plus(src, [ref], ref).score == pytest.approx(1.0, rel=1e-15)
    assert gleu_plus(src, [ref], ref, sentence=True).sentence_scores == pytest.approx([1.0] * len(ref))
    assert char_gleu(src, [ref], ref).score == pytest.approx(1.0, rel=1e-15)
    for lam in (0.0, 0.5, 1.0):
        assert gleu2015(src, [ref], ref, lam=lam) == pytest.approx(1.0, rel=1e-15)


# --------------------------------------------------------------------------- command line


def _args(**kw) -> argparse.Namespace:
    base = {
        "source": str(FIX / "src.txt"),
        "refs": [str(FIX / "ref0.txt"), str(FIX / "ref1.txt")],
        "hyp": [str(FIX / "hyp.txt")],
        "lam": 0.0,
        "sentence": False,
        "json": True,
        "beta": 0.5,
    }
    base.update(kw)
    return argparse.Namespace(**base)


def test_cli_gleu_returns_one_row_per_hypothesis_with_std_and_interval():
    rows = cli_gleu(_args(hyp=[str(FIX / "hyp.txt"), str(FIX / "src.txt")], sentence=True))
    assert [r["hyp"] for r in rows] == [str(FIX / "hyp.txt"), str(FIX / "src.txt")]
    assert rows[0]["metric"] == "gleu"
    assert round(rows[0]["score"], 6) == 0.391600
    assert round(rows[0]["std"], 6) == 0.113056
    assert len(rows[0]["ci"]) == 2
    assert len(rows[0]["sentences"]) == 5


def test_cli_chargleu_and_gleu2015():
    assert round(cli_chargleu(_args())[0]["score"], 6) == 0.655948
    row = cli_gleu2015(_args(lam=0.1))[0]
    assert row["metric"] == "gleu2015"
    assert row["lambda"] == 0.1
    assert round(row["score"], 6) == 0.805234
    assert "sentences" not in row


def test_cli_requires_source():
    with pytest.raises(GecInputError, match="needs --source"):
        cli_gleu(_args(source=None))


def test_cli_names_a_misaligned_hypothesis_file():
    short = str(FIX / "short.txt")
    with pytest.raises(GecInputError) as err:
        cli_gleu(_args(hyp=[short]))
    assert err.value.path == short


def test_cli_names_a_misaligned_reference_file():
    short = str(FIX / "short.txt")
    with pytest.raises(GecInputError) as err:
        cli_gleu2015(_args(refs=[str(FIX / "ref0.txt"), short]))
    assert err.value.path == short


def test_cli_names_an_empty_file():
    empty = str(FIX / "empty.txt")
    with pytest.raises(GecInputError, match="empty") as err:
        cli_chargleu(_args(hyp=[empty]))
    assert err.value.path == empty


def test_cli_names_a_file_with_bad_utf8_and_its_line():
    bad = str(FIX / "bad_utf8.txt")
    with pytest.raises(GecInputError, match="UTF-8") as err:
        cli_gleu(_args(refs=[bad]))
    assert (err.value.path, err.value.line) == (bad, 2)


def test_score_gleu_command_prints_json():
    cmd = [sys.executable, "-m", "geceval", "score", "gleu", "--source", str(FIX / "src.txt")]
    cmd += ["--refs", str(FIX / "ref0.txt"), str(FIX / "ref1.txt"), "--hyp", str(FIX / "hyp.txt"), "--json"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True)
    [row] = json.loads(proc.stdout)
    # issue 21: every metric's JSON names the variant, parameters and versions that produced it
    assert set(row) == {
        "hyp",
        "metric",
        "score",
        "std",
        "ci",
        "variant",
        "parameters",
        "implementation",
        "versions",
        "metric_signature",
    }
    assert row["metric"] == "gleu"
    assert round(row["score"], 6) == 0.391600


def test_score_gleu_command_without_source_fails_with_message():
    cmd = [sys.executable, "-m", "geceval", "score", "gleu", "--refs", str(FIX / "ref0.txt")]
    cmd += ["--hyp", str(FIX / "hyp.txt")]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 2
    assert "needs --source" in proc.stderr


# --------------------------------------------------------------------------- reference figures (../shared)


def _jfleg(split: str):
    return read_jfleg(shared_path("jfleg", split) / split)


@pytest.mark.shared
@pytest.mark.parametrize(
    ("split", "hyp", "score", "std"),
    [
        ("dev", "dev.src", 0.382146, 0.009891),
        ("test", "test.src", 0.405430, 0.007643),
        ("dev", "dev.spellchecked.src", 0.434434, None),
        ("test", "test.spellchecked.src", 0.434632, 0.007923),
    ],
)
def test_jfleg_gleu_plus_reference_figures(split, hyp, score, std):
    corpus = _jfleg(split)
    res = gleu_plus(corpus.source, corpus.references, read_lines(shared_path("jfleg", split, hyp)))
    assert f"{res.score:.6f}" == f"{score:.6f}"
    if std is not None:
        assert f"{res.std:.6f}" == f"{std:.6f}"


@pytest.mark.shared
@pytest.mark.parametrize(
    ("split", "mean", "per_ref"),
    [
        ("dev", 0.552679, [0.557264, 0.556300, 0.556366, 0.540787]),
        ("test", 0.623828, [0.613398, 0.615779, 0.630851, 0.635284]),
    ],
)
def test_jfleg_human_bound_reference_figures(split, mean, per_ref):
    corpus = _jfleg(split)
    got_mean, got_per_ref = gleu_human_bound(corpus.source, corpus.references)
    assert round(got_mean, 6) == mean
    assert [round(x, 6) for x in got_per_ref] == per_ref


@pytest.mark.shared
def test_tiny_gleu_reference_figure():
    d = shared_path("derived", "tiny-gleu")
    res = gleu_plus(
        read_lines(d / "src.txt"),
        [read_lines(d / "ref0.txt"), read_lines(d / "ref1.txt")],
        read_lines(d / "hyp.txt"),
    )
    assert f"{res.score:.6f}" == "0.372800"


@pytest.mark.shared
def test_conll14_gleu_plus_of_all_13_systems():
    base = shared_path("gecmetrics", "data", "conll14st-test")
    src = read_lines(base / "conll14st-test.tok.src")
    refs = [read_lines(base / "refs" / f"conll14st-test.tok.trg{i}") for i in (0, 1)]
    outputs = shared_path("grammatical-evaluation", "data", "original", "official_submissions")
    got = {name: round(gleu_plus(src, refs, read_lines(outputs / name)).score, 6) for name in CONLL_SYSTEMS}
    assert got == CONLL_SYSTEMS


@pytest.mark.shared
def test_jfleg_gleu2015_reference_figures():
    corpus = _jfleg("test")
    expected = {
        "test.src": [0.806831, 0.787763, 0.636326],
        "test.spellchecked.src": [0.783584, 0.773670, 0.691940],
    }
    for hyp_name, values in expected.items():
        hyp = read_lines(shared_path("jfleg", "test", hyp_name))
        got = [round(gleu2015(corpus.source, corpus.references, hyp, lam=lam), 6) for lam in (0, 0.1, 1)]
        assert got == values, hyp_name


@pytest.mark.shared
def test_jfleg_char_gleu_reference_figures():
    corpus = _jfleg("test")
    for hyp_name, value in (("test.src", 0.786169), ("test.spellchecked.src", 0.799372)):
        hyp = read_lines(shared_path("jfleg", "test", hyp_name))
        assert f"{char_gleu(corpus.source, corpus.references, hyp).score:.6f}" == f"{value:.6f}"


def _pypi_gleu(src: str, refs: list[str], hyp: str) -> float:
    """PyPI gleu 1.1.0 as its ``gleu --fix-seed`` command runs, printed to 10 digits of 100·score."""
    gleu_main = pytest.importorskip("gleu.corpus_main")
    gleu_count = pytest.importorskip("gleu.count")
    gleu_count.set_tokenization("word")
    args = argparse.Namespace(
        n=4, source_path=src, ref_path_list=refs, hyp_path_list=[hyp], iter=500, digit=10,
        proc=1, token="word", max=False, fix_seed=True, verbose=False,
    )  # fmt: skip
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        gleu_main.corpus_main(args)
    return float(out.getvalue().split("\t")[1]) / 100


def test_gleu_plus_equals_pypi_gleu_with_fixed_seed_on_fixture():
    refs = [str(FIX / "ref0.txt"), str(FIX / "ref1.txt")]
    theirs = _pypi_gleu(str(FIX / "src.txt"), refs, str(FIX / "hyp.txt"))
    src, ref_lines, hyp = _fixture()
    assert gleu_plus(src, ref_lines, hyp).score == pytest.approx(theirs, abs=1e-12)


@pytest.mark.shared
def test_gleu_plus_equals_pypi_gleu_with_fixed_seed_on_jfleg_dev():
    d = shared_path("jfleg", "dev")
    src, hyp = str(d / "dev.src"), str(d / "dev.spellchecked.src")
    refs = [str(d / f"dev.ref{i}") for i in range(4)]
    theirs = _pypi_gleu(src, refs, hyp)
    ours = gleu_plus(read_lines(src), [read_lines(r) for r in refs], read_lines(hyp)).score
    assert ours == pytest.approx(theirs, abs=1e-12)
