"""score gleu --variant: each public GLEU implementation's numbers, and every metric's provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geceval import cli
from geceval.formats.text import read_lines
from geceval.metrics.gleu.gleu2015 import gleu2015
from geceval.metrics.gleu.variants import NAPOLES2015_TABLE2
from tests.shared_data import shared_path

REPO = Path(__file__).resolve().parents[2]


def _jfleg_args(*, source: bool = True) -> list[str]:
    """JFLEG test; ``source=False`` for sacrebleu's metrics, which refuse a --source they do not read."""
    test = shared_path("jfleg", "test")
    refs = [str(test / f"test.ref{i}") for i in range(4)]
    src = ["--source", str(test / "test.src")] if source else []
    return [*src, "--refs", *refs, "--hyp", str(test / "test.src"), "--json"]


@pytest.mark.parametrize(
    ("variant", "extra", "expected"),
    [
        ("jfleg", [], 0.405430),  # REFERENCE_FIGURES: jfleg eval/gleu.py under Python 2.7
        ("jfleg-py3", [], 0.404740),  # the same script under Python 3's randint
        ("2015", [], 0.806831),  # REFERENCE_FIGURES: GLEU 2015, lambda 0
        ("2015", ["--lambda", "0.1"], 0.787763),  # REFERENCE_FIGURES: lambda 0.1
        ("2015-acl", [], 0.449314),  # before the 10 March 2016 denominator fix
        ("gec-metrics", [], 0.186169),  # gec-metrics' default GLEU (GREEN reformulation)
    ],
)
def test_score_gleu_variant_gives_that_implementations_number_on_jfleg_test(
    variant: str, extra: list[str], expected: float, capsys: pytest.CaptureFixture
) -> None:
    assert cli.main(["score", "gleu", "--variant", variant, *extra, *_jfleg_args()]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["variant"] == variant
    assert round(row["score"], 6) == expected
    assert row["versions"]["geceval"] and row["versions"]["python"]
    assert "implementation" in row


def test_score_gleu_without_variant_is_jfleg(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["score", "gleu", *_jfleg_args()]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["variant"] == "jfleg" and round(row["score"], 6) == 0.405430
    assert row["parameters"] == {"order": 4, "iterations": 500, "seeds": "j*101"}


def test_every_metric_json_names_its_parameters_and_library_versions(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["score", "chrf", *_jfleg_args(source=False)]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["variant"] == "chrf" and row["parameters"] == {"beta": 2.0}
    assert row["versions"]["sacrebleu"] == "2.6.0"
    assert cli.main(["score", "gleu2015", "--lambda", "0.1", *_jfleg_args()]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["parameters"] == {"lambda": 0.1} and round(row["score"], 6) == 0.787763


def test_variant_applies_to_gleu_only(capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["score", "chrf", "--variant", "jfleg", *_jfleg_args(source=False)]) == 2
    assert "--variant applies to gleu only" in capsys.readouterr().err


@pytest.mark.slow
def test_napoles_2015_table2_gleu0_order_comes_back_with_the_acl2015_denominator() -> None:
    gold = shared_path("gecmetrics", "data", "conll14st-test")
    subs = shared_path("grammatical-evaluation", "data", "original", "official_submissions")
    source = read_lines(gold / "conll14st-test.tok.src")
    refs = [read_lines(gold / "refs" / f"conll14st-test.tok.trg{i}") for i in (0, 1)]
    names = [n for n in NAPOLES2015_TABLE2["GLEU0"] if n != "source"] + ["INPUT"]
    scores = {}
    for den in ("fixed", "acl2015"):
        for name in names:
            lines = (subs / name).read_text(encoding="utf-8").split("\n")
            lines = lines[:-1] if lines[-1] == "" else lines
            scores[(den, "source" if name == "INPUT" else name)] = gleu2015(
                source, refs, lines, denominator=den
            )
    order = {
        den: sorted(NAPOLES2015_TABLE2["GLEU0"], key=lambda n: -scores[(den, n)])
        for den in ("fixed", "acl2015")
    }
    # the fixed code (ours before this variant) puts UFC and the source first
    assert order["fixed"][:2] == ["UFC", "source"]
    # the code the paper ran: CUUI first and the same last four as the paper
    assert order["acl2015"] == [
        "CUUI", "UFC", "CAMB", "source", "AMU", "IITB", "SJTU", "UMC", "PKU", "NTHU", "POST", "RAC", "IPN",
    ]  # fmt: skip
    assert order["acl2015"][0] == NAPOLES2015_TABLE2["GLEU0"][0]
    assert order["acl2015"][-4:] == list(NAPOLES2015_TABLE2["GLEU0"][-4:])


# gec-metrics 0.1.1's own test case (gec_metrics/metrics/gleu_test.py): its inputs and the scores
# it pins for its default GLEU and for GLEUOfficial (the official script under Python 3).
GM_SOURCES = [
    "This sentences contain gramamtical error .",
    "This is a sentence .",
    "This is no change .",
    "I bought a pen to write a letter to a friend .",
]
GM_HYPOTHESES = [
    "This sentence contains a grammatical error .",
    "the sentence was corrected into completely different one .",
    "This is no change .",
    "I bought a pen to write a letter to a friend .",
]
GM_REFERENCES = [
    [
        "This sentence contains a grammatical error .",
        "dummy sentence .",
        "This is no change .",
        "I bought a pen to write a letter to the friend .",
    ],
    [
        "These sentences contain grammatical errors .",
        "another dummy sentence .",
        "This is no change .",
        "I bought a pen to write the letter to the friend .",
    ],
]


def test_gec_metrics_variant_gives_the_librarys_own_pinned_scores() -> None:
    from geceval.metrics.gleu.green import green_gleu
    from geceval.metrics.gleu.plus import gleu_plus

    assert green_gleu(GM_SOURCES, GM_REFERENCES, GM_HYPOTHESES) == 0.2913773302697463  # its GLEU
    official = gleu_plus(GM_SOURCES, GM_REFERENCES, GM_HYPOTHESES, draws="py3").score
    assert abs(official - 0.369131) <= 1e-5  # its GLEUOfficial is our jfleg-py3
    assert (
        abs(gleu_plus(GM_SOURCES, GM_REFERENCES, GM_HYPOTHESES).score - 0.369131) > 1e-5
    )  # py2 draws differ


def test_gec_metrics_variant_is_well_below_the_official_script_on_conll14() -> None:
    """docs/metric-versions.md's table: 1.5-3.7 points lower on the official CoNLL-14 outputs."""
    from geceval.metrics.gleu.green import green_gleu
    from geceval.metrics.gleu.plus import gleu_plus

    data = shared_path("gecmetrics", "data", "conll14st-test")
    source = read_lines(data / "conll14st-test.tok.src")
    refs = [read_lines(data / "refs" / f"conll14st-test.tok.trg{i}") for i in range(2)]
    outputs = shared_path("grammatical-evaluation", "data", "original", "official_submissions")
    expected = {"AMU": (0.589564, 0.568205), "INPUT": (0.573192, 0.536467)}
    for system, (official, gec_metrics) in expected.items():
        hyp = read_lines(outputs / system)
        assert round(gleu_plus(source, refs, hyp).score, 6) == official
        assert round(green_gleu(source, refs, hyp), 6) == gec_metrics


def test_the_variant_choices_are_the_variants() -> None:
    import argparse

    from geceval.cli.score import add_arguments
    from geceval.metrics.gleu.variants import VARIANTS

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    (action,) = [a for a in parser._actions if a.dest == "variant"]
    assert sorted(action.choices) == sorted(VARIANTS)
