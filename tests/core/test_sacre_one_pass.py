"""BLEU, chrF++ and TER in one pass (issue 43): the corpus score, the sentence scores and chrF's
precision and recall come from one extraction of sacrebleu's statistics, against references
preprocessed once for every system; every number equals what sacrebleu's own public API gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from geceval.formats.text import read_lines
from geceval.metrics import sacre
from tests.shared_data import shared_path

FIX = Path(__file__).parent / "fixtures" / "gleu"


def _fixture() -> tuple[list[list[str]], list[str]]:
    return [read_lines(FIX / "ref0.txt"), read_lines(FIX / "ref1.txt")], read_lines(FIX / "hyp.txt")


def _check_against_sacrebleu(refs: list[list[str]], hyp: list[str]) -> None:
    """Ours with sentence scores against sacrebleu's corpus_score and sentence_score, equal to the bit."""

    def per_sentence(metric, i: int) -> float:
        return metric.sentence_score(hyp[i], [r[i] for r in refs]).score

    b = sacre.bleu(refs, hyp, sentence=True)
    assert b.score == BLEU(force=True).corpus_score(hyp, refs).score
    sentence_bleu = BLEU(force=True, effective_order=True)
    assert b.sentence_scores == [per_sentence(sentence_bleu, i) for i in range(len(hyp))]

    c = sacre.chrf(refs, hyp, sentence=True)
    reference_chrf = CHRF(word_order=2)
    assert c.score == reference_chrf.corpus_score(hyp, refs).score
    assert c.sentence_scores == [per_sentence(reference_chrf, i) for i in range(len(hyp))]
    assert c.signature == str(reference_chrf.get_signature())

    for case_sensitive in (False, True):
        t = sacre.ter(refs, hyp, case_sensitive=case_sensitive, sentence=True)
        reference_ter = TER(case_sensitive=case_sensitive)
        assert t.score == reference_ter.corpus_score(hyp, refs).score
        assert t.num_edits == reference_ter.corpus_score(hyp, refs).num_edits
        assert t.sentence_scores == [per_sentence(reference_ter, i) for i in range(len(hyp))]
        assert t.signature == str(reference_ter.get_signature())


def test_one_pass_equals_sacrebleus_corpus_and_sentence_scores_on_the_fixture() -> None:
    _check_against_sacrebleu(*_fixture())


def test_references_are_prepared_once_for_every_system_scored_against_them() -> None:
    refs, hyp = _fixture()
    sacre._prepared.cache_clear()
    first = sacre.bleu(refs, hyp)
    other = [line.upper() for line in hyp]  # another system
    second = sacre.bleu(refs, other)
    info = sacre._prepared.cache_info()
    assert (info.misses, info.hits) == (1, 1)
    assert second.score == BLEU(force=True).corpus_score(other, refs).score
    assert first.score != second.score
    # other references or other options are prepared anew, never mixed up
    assert sacre.bleu([refs[0]], hyp).score == BLEU(force=True).corpus_score(hyp, [refs[0]]).score
    assert sacre.ter(refs, hyp).score == TER().corpus_score(hyp, refs).score
    assert sacre._prepared.cache_info().misses == 3


@pytest.mark.slow
@pytest.mark.shared
def test_one_pass_equals_sacrebleu_on_conll14_systems() -> None:
    trg = shared_path("gecmetrics", "data", "conll14st-test", "refs")
    refs = [read_lines(trg / "conll14st-test.tok.trg0"), read_lines(trg / "conll14st-test.tok.trg1")]
    systems = shared_path("grammatical-evaluation", "data", "original", "official_submissions")
    _check_against_sacrebleu(refs, read_lines(systems / "AMU", allow_empty=True))


def test_a_sentence_another_system_shares_is_recalled_and_every_score_stays_sacrebleus() -> None:
    refs, hyp = _fixture()
    sacre._prepared.cache_clear()
    half = [line.upper() if n % 2 else line for n, line in enumerate(hyp)]  # shares every other line
    for system in (hyp, half, hyp):
        assert sacre.chrf(refs, system).score == CHRF(word_order=2).corpus_score(system, refs).score
        assert sacre.bleu(refs, system).score == BLEU(force=True).corpus_score(system, refs).score
        assert sacre.ter(refs, system).score == TER().corpus_score(system, refs).score
    chrf = sacre._prepared("chrf", (("beta", 2), ("word_order", 2)), tuple(tuple(r) for r in refs))
    kept = chrf.__dict__["_geceval_segments"]
    assert len(kept) == len(hyp) + sum(1 for n, line in enumerate(hyp) if n % 2 and line != line.upper())
    # the same text at another sentence is another sentence: never taken for it
    shifted = hyp[1:] + hyp[:1]
    assert sacre.chrf(refs, shifted).score == CHRF(word_order=2).corpus_score(shifted, refs).score


@pytest.mark.shared
def test_systems_sharing_sentences_score_as_sacrebleu_scores_each() -> None:
    trg = shared_path("gecmetrics", "data", "conll14st-test", "refs")
    refs = [read_lines(trg / "conll14st-test.tok.trg0"), read_lines(trg / "conll14st-test.tok.trg1")]
    systems = shared_path("grammatical-evaluation", "data", "original", "official_submissions")
    sacre._prepared.cache_clear()
    for name in ("AMU", "CAMB", "UFC", "AMU"):
        hyp = read_lines(systems / name, allow_empty=True)
        assert sacre.chrf(refs, hyp).score == CHRF(word_order=2).corpus_score(hyp, refs).score
        assert sacre.bleu(refs, hyp).score == BLEU(force=True).corpus_score(hyp, refs).score


def test_chrf_recalls_a_line_that_differs_only_in_spacing_and_every_score_stays_sacrebleus() -> None:
    refs, hyp = _fixture()
    sacre._prepared.cache_clear()
    spaced = [f" {line.replace(' ', '  ')}\t" if n % 2 else line for n, line in enumerate(hyp)]
    for system in (hyp, spaced):
        assert sacre.chrf(refs, system).score == CHRF(word_order=2).corpus_score(system, refs).score
        per_sentence = sacre.chrf(refs, system, sentence=True).sentence_scores
        assert per_sentence == [
            CHRF(word_order=2).sentence_score(h, [r[i] for r in refs]).score for i, h in enumerate(system)
        ]
    chrf = sacre._prepared("chrf", (("beta", 2), ("word_order", 2)), tuple(tuple(r) for r in refs))
    assert len(chrf.__dict__["_geceval_segments"]) == len(hyp)  # the spaced lines were recalled
    # with whitespace counted, spacing is part of the line: never recalled across spacings
    counted = sacre._prepared(
        "chrf", (("whitespace", True), ("word_order", 2)), tuple(tuple(r) for r in refs)
    )
    sacre._statistics(counted, hyp)
    assert sacre._statistics(counted, spaced) == CHRF(
        word_order=2, whitespace=True
    )._extract_corpus_statistics(spaced, refs)
    assert sacre._statistics(counted, spaced) != sacre._statistics(counted, hyp)
