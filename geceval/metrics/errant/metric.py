"""The ERRANT metric object (:class:`ERRANT`) and the plain-data inputs the ERRANT-based metrics
share: a reference set from text or M2 references, a system's edits from lines or M2."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from geceval.errors import GecInputError
from geceval.formats.m2 import M2Sentence
from geceval.metrics.base import ALIGN, ERRANT_MODEL, ERRANT_PACKAGES, Metric, MetricScore, beta_parameter
from geceval.metrics.errant.scorer import (
    ReferenceSet,
    annotate_hypothesis,
    cli_errant,
    errant_annotate_references,
    errant_compare,
    reference_set_from_m2,
)
from geceval.metrics.references import references_to_m2


def reference_set_of(
    references: Sequence[Any], source: Sequence[str] | None, *, align: str = "errant"
) -> ReferenceSet:
    """The reference set of a metric object's ``references``: parsed M2 sentences, or one list of
    lines per reference (with ``source``), annotated by ERRANT or aligned by ``align``."""
    refs = list(references)
    if refs and isinstance(refs[0], M2Sentence):
        return reference_set_from_m2(refs, None if source is None else list(source))
    if source is None:
        raise GecInputError("text references need the source")
    src, ref_lines = list(source), [list(r) for r in refs]
    for i, lines in enumerate(ref_lines, start=1):
        if len(lines) != len(src):
            raise GecInputError(f"reference {i} has {len(lines)} lines but the source has {len(src)}")
    if align == "errant":
        return errant_annotate_references(src, ref_lines)
    return reference_set_from_m2(references_to_m2(src, ref_lines, align=align))


def hypothesis_m2(ref_set: ReferenceSet, hypotheses: Sequence[Any]) -> list[M2Sentence]:
    """A system's edits: its M2 sentences as they are, or its lines annotated against ``ref_set``."""
    hyps = list(hypotheses)
    if hyps and isinstance(hyps[0], M2Sentence):
        return hyps
    if len(hyps) != len(ref_set.sources):
        raise GecInputError(f"{len(hyps)} hypothesis lines for {len(ref_set.sources)} reference sentences")
    return annotate_hypothesis(ref_set, hyps)


def reference_count(gold: Sequence[M2Sentence]) -> int:
    return max([1, *(e.annotator + 1 for sent in gold for e in sent.edits)])


class ERRANT(Metric):
    """ERRANT's span-based correction P, R and F-beta, per category too (hypotheses: lines, or
    ERRANT M2 sentences)."""

    name = "errant"
    parameters = (beta_parameter(0.5), ALIGN)
    packages = ERRANT_PACKAGES
    model = ERRANT_MODEL
    file_adapter = cli_errant

    def _corpus(self, hypotheses: list, references: list, source: list | None, sentence: bool) -> MetricScore:
        ref_set = reference_set_of(references, source, align=self.options["align"])
        res = errant_compare(hypothesis_m2(ref_set, hypotheses), ref_set.m2, beta=float(self.options["beta"]))
        return self._result_of_row(reference_count(ref_set.m2), res.as_dict(sentences=sentence))
