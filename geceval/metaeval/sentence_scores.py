"""Sentence-level scores of our metrics for the sentences people judged, for sentence-level
meta-evaluation (``python -m geceval meta-eval --sentence-level --outputs DIR ...``).

Only the judged sentences are scored (the CoNLL-14 Appraise judgments cover 736 of 1312), each
metric's sentence score being the one it defines for one sentence:

- ``m2``: M2 F_0.5 of the sentence alone, which is SentM2's per-sentence value
  (:mod:`geceval.metrics.sentence_averaged`); ``errant``: likewise ERRANT's (SentERRANT's per-sentence value);
- ``gotoscorer``: the sentence's weighted F_0.5, weights from all the systems given;
- ``gleu``: GLEU+'s sentence score (JFLEG's ``--sent``: every 0 statistic replaced by 1,
  averaged over the references); ``bleu``: sacrebleu sentence BLEU with effective order;
  ``chrf``: sacrebleu sentence chrF++ (beta 2).

I-measure is not offered at sentence level here (its per-sentence score needs the full
alignment search, minutes on CoNLL-14); import it as a file if wanted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from geceval.errors import GecInputError
from geceval.formats.m2 import M2Sentence
from geceval.metrics.errant.scorer import annotate_hypothesis, reference_set_from_m2
from geceval.metrics.gleu.plus import gleu_plus
from geceval.metrics.gotoscorer import gotoscorer_sentences
from geceval.metrics.sentence_averaged import sent_errant_scores, sent_m2_scores

SENTENCE_METRICS: tuple[str, ...] = ("m2", "errant", "gotoscorer", "gleu", "bleu", "chrf")
NEEDS_GOLD = {"m2", "errant", "gotoscorer"}
NEEDS_REFS = {"gleu", "bleu", "chrf"}


def sentence_level_scores(
    metric: str,
    items: Sequence[int],
    outputs: Mapping[str, Sequence[str]],
    *,
    source: Sequence[str] | None = None,
    references: Sequence[Sequence[str]] | None = None,
    gold: Sequence[M2Sentence] | None = None,
) -> dict[str, dict[str, float]]:
    """system -> str(item) -> score of ``metric`` on the sentences ``items`` (0-based)."""
    if metric not in SENTENCE_METRICS:
        raise GecInputError(
            f"unknown sentence-level metric {metric!r}; choose from {', '.join(SENTENCE_METRICS)}"
        )
    items = sorted(set(items))
    for name, lines in outputs.items():
        if items and items[-1] >= len(lines):
            raise GecInputError(
                f"system {name!r} has {len(lines)} lines; a judgment names sentence {items[-1]}"
            )
    names = sorted(outputs)
    hyps = {name: [outputs[name][i] for i in items] for name in names}
    if metric in NEEDS_GOLD:
        if gold is None:
            raise GecInputError(f"{metric} needs --gold M2")
        sub_gold = [gold[i] for i in items]
        per = _gold_metric(metric, sub_gold, hyps)
    else:
        if references is None or source is None:
            raise GecInputError(f"{metric} needs --source and --refs (text references)")
        sub_src = [source[i] for i in items]
        sub_refs = [[ref[i] for i in items] for ref in references]
        per = {name: _text_metric(metric, sub_src, sub_refs, hyps[name]) for name in names}
    return {name: {str(i): float(s) for i, s in zip(items, per[name])} for name in names}


def _gold_metric(metric: str, gold: list[M2Sentence], hyps: dict[str, list[str]]) -> dict[str, list[float]]:
    if metric == "m2":
        return {name: sent_m2_scores(lines, gold) for name, lines in hyps.items()}
    ref_set = reference_set_from_m2(gold)
    hyp_m2 = {name: annotate_hypothesis(ref_set, lines) for name, lines in hyps.items()}
    if metric == "errant":
        return {name: sent_errant_scores(m2, ref_set.m2) for name, m2 in hyp_m2.items()}
    names = list(hyp_m2)
    scores = gotoscorer_sentences(ref_set.m2, [hyp_m2[n] for n in names])
    return dict(zip(names, scores))


def _text_metric(metric: str, source: list[str], refs: list[list[str]], hyp: list[str]) -> list[float]:
    if metric == "gleu":
        return list(gleu_plus(source, refs, hyp, sentence=True, iterations=1).sentence_scores or [])
    # lazy: sacrebleu is slow to import and only bleu/chrf need it
    from geceval.metrics import sacre

    if metric == "bleu":
        return list(sacre.bleu(refs, hyp, sentence=True).sentence_scores or [])
    return list(sacre.chrf(refs, hyp, sentence=True).sentence_scores or [])
