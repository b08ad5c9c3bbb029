"""SentM2 and SentERRANT (issue 24): per-sentence F_0.5 averaged, equal to the reference tools
run sentence by sentence on the CoNLL-14 outputs."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from geceval.formats.m2 import M2Edit, M2Sentence, read_m2, write_m2
from geceval.formats.text import read_lines
from geceval.metrics.m2.scorer import m2_score
from geceval.metrics.sentence_averaged import cli_sentm2, mean, sent_errant_scores, sent_m2_scores
from tests.conftest import skip_or_fail
from tests.shared_data import REPO, shared_path

GOLD = ("gecmetrics", "data", "conll14st-test", "conll14st-test.m2")
OUTPUTS = ("grammatical-evaluation", "data", "original", "official_submissions")


def _conll(n: int, *systems: str) -> tuple[list[M2Sentence], dict[str, list[str]]]:
    gold = read_m2(shared_path(*GOLD, required_in_ci=True))[:n]
    outs = {s: read_lines(shared_path(*OUTPUTS, s), allow_empty=True)[:n] for s in systems}
    return gold, outs


# --------------------------------------------------------------------------- conventions


def test_a_sentence_with_no_edit_anywhere_counts_one_and_a_missed_or_wrong_edit_zero() -> None:
    gold = [
        M2Sentence("This is fine .", []),
        M2Sentence("He go home .", [M2Edit(1, 2, "R:VERB:SVA", ("goes",))]),
        M2Sentence("He go home .", [M2Edit(1, 2, "R:VERB:SVA", ("goes",))]),
        M2Sentence("This is fine .", []),
        M2Sentence("He go home .", [M2Edit(1, 2, "R:VERB:SVA", ("goes",))]),
    ]
    hyps = ["This is fine .", "He go home .", "He goes home .", "This is good .", "He went home ."]
    scores = sent_m2_scores(hyps, gold)
    # untouched and nothing to do: 1; missed: R = 0; right: 1; needless edit: P = 0; wrong: 0
    assert scores == [1.0, 0.0, 1.0, 0.0, 0.0]
    assert mean(scores) == pytest.approx(2 / 5)
    # the pooled corpus M2 is a different number: tp 1, proposed 3, gold 3
    assert m2_score(hyps, gold).f == pytest.approx(1.25 * (1 / 3) * (1 / 3) / (0.25 * (1 / 3) + 1 / 3))


def test_sent_errant_uses_the_same_conventions() -> None:
    src = "He go home ."
    ref = [
        M2Sentence(src, [M2Edit(1, 2, "R:VERB:SVA", ("goes",))]),
        M2Sentence("Fine .", [M2Edit(-1, -1, "noop", ("-NONE-",))]),
    ]
    hyp = [M2Sentence(src, [M2Edit(1, 2, "R:VERB:SVA", ("goes",))]), M2Sentence("Fine .", [])]
    assert sent_errant_scores(hyp, ref) == [1.0, 1.0]
    hyp[0] = M2Sentence(src, [])
    assert sent_errant_scores(hyp, ref) == [0.0, 1.0]


def test_score_sentm2_command_prints_the_mean_and_the_sentences(tmp_path: Path) -> None:
    gold = tmp_path / "gold.m2"
    gold.write_text("S He go home .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n\nS Fine .\n\n")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("He go home .\nFine .\n")
    out = subprocess.run(
        [
            *(sys.executable, "-m", "geceval", "score", "sentm2"),
            *("--refs", str(gold), "--hyp", str(hyp), "--sentence", "--json"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    (row,) = json.loads(out.stdout)
    assert (row["metric"], row["score"], row["n_sentences"]) == ("sentm2", 0.5, 2)
    assert row["sentences"] == [{"f": 0.0}, {"f": 1.0}]
    assert row["parameters"] == {"beta": 0.5}


# --------------------------------------------------------------------------- parity on CoNLL-14


@pytest.mark.shared
@pytest.mark.slow
def test_sentm2_equals_m2scorer_run_sentence_by_sentence_on_conll14(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO))
    from bench.reference import TOOLS, Skip, py2_driver

    n = 300
    gold, outs = _conll(n, "AMU", "CUUI", "UFC")
    gold_path = tmp_path / "gold.m2"
    blocks = shared_path(*GOLD).read_text(encoding="utf-8").strip().split("\n\n")[:n]
    gold_path.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    for system, lines in outs.items():
        hyp = tmp_path / system
        hyp.write_text("\n".join(lines) + "\n", encoding="utf-8")
        try:
            ref = py2_driver(
                "m2scorer_sentences_driver.py", str(TOOLS / "m2scorer" / "scripts"), str(hyp), str(gold_path)
            )
        except Skip as exc:
            skip_or_fail(str(exc))
        ours = sent_m2_scores(lines, gold)
        assert len(ref["f"]) == n
        assert max(abs(a - b) for a, b in zip(ours, ref["f"])) < 1e-4, system
        # and not a metric that is 1 or 0 everywhere
        assert 0.2 < mean(ours) < 0.8 and len({round(x, 4) for x in ours}) > 3


def _errant_reference_sentence_by_sentence(hyp_path: Path, ref_path: Path) -> list[float]:
    """ERRANT's own compare_m2 logic, each sentence evaluated against zero running counts (its
    computeFScore rounds F to 4 places)."""
    import errant.commands.compare_m2 as cm

    saved = sys.argv
    sys.argv = ["compare_m2", "-hyp", str(hyp_path), "-ref", str(ref_path)]
    try:
        args = cm.parse_args()
    finally:
        sys.argv = saved
    hyp_m2 = hyp_path.read_text(encoding="utf-8").strip().split("\n\n")
    ref_m2 = ref_path.read_text(encoding="utf-8").strip().split("\n\n")
    out = []
    for sent_id, (h, r) in enumerate(zip(hyp_m2, ref_m2)):
        hyp_dict = cm.process_edits(cm.simplify_edits(h), args)
        ref_dict = cm.process_edits(cm.simplify_edits(r), args)
        count, _cats = cm.evaluate_edits(
            hyp_dict, ref_dict, Counter({"tp": 0, "fp": 0, "fn": 0}), sent_id, "", args
        )
        out.append(cm.computeFScore(count["tp"], count["fp"], count["fn"], args.beta)[2])
    return out


@pytest.mark.shared
@pytest.mark.slow
def test_senterrant_equals_errant_compare_run_sentence_by_sentence_on_conll14(tmp_path: Path) -> None:
    pytest.importorskip("errant")
    from geceval.metrics.errant.scorer import annotate_hypothesis, reference_set_from_m2

    n = 200
    gold, outs = _conll(n, "AMU", "CAMB")
    ref_set = reference_set_from_m2(gold)
    ref_path = tmp_path / "ref.m2"
    write_m2(ref_path, gold)
    for system, lines in outs.items():
        hyp_m2 = annotate_hypothesis(ref_set, lines)
        hyp_path = tmp_path / f"{system}.m2"
        write_m2(hyp_path, hyp_m2)
        ours = sent_errant_scores(read_m2(hyp_path), read_m2(ref_path))
        theirs = _errant_reference_sentence_by_sentence(hyp_path, ref_path)
        assert len(theirs) == n
        # computeFScore rounds to 4 places; ours is the full float
        assert max(abs(a - b) for a, b in zip(ours, theirs)) <= 5e-5 + 1e-12, system
        assert 0.2 < mean(ours) < 0.8


@pytest.mark.shared
def test_cli_sentm2_matches_the_core_on_real_outputs(tmp_path: Path) -> None:
    gold, outs = _conll(120, "AMU")
    gold_path = tmp_path / "gold.m2"
    write_m2(gold_path, gold)
    hyp = tmp_path / "AMU"
    hyp.write_text("\n".join(outs["AMU"]) + "\n", encoding="utf-8")
    args = argparse.Namespace(refs=[str(gold_path)], hyp=[str(hyp)], beta=None, sentence=True, source=None)
    (row,) = cli_sentm2(args)
    assert row["score"] == pytest.approx(mean(sent_m2_scores(outs["AMU"], gold)))
    assert len(row["sentences"]) == 120
