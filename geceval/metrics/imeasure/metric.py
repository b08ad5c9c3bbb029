"""The I-measure's metric object (:class:`IMeasure`) and its command-line adapter: gold from an
I-measure XML, M2 or text references; fields as ``score imeasure`` prints them (percentages)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from geceval.errors import GecInputError
from geceval.formats.inputs import read_input
from geceval.formats.ixml import IGoldSentence, gold_from_m2, read_ixml
from geceval.formats.m2 import read_m2
from geceval.formats.text import read_lines
from geceval.metrics.base import (
    ALIGN,
    ERRANT_MODEL,
    ERRANT_PACKAGES,
    Metric,
    MetricScore,
    Parameter,
    beta_parameter,
)
from geceval.metrics.imeasure.scorer import IMeasureResult, imeasure
from geceval.metrics.m2.scorer import m2_gold, n_annotators
from geceval.metrics.references import references_to_m2
from geceval.progress import StderrProgress

# ----------------------------------------------------------------------------- command line


def _load_gold(args: Any, align: str) -> list[IGoldSentence]:
    refs = list(args.refs)
    if len(refs) == 1:
        path = refs[0]
        head = read_input(path).data[:4096].lstrip()  # gzip or not
        if head.startswith(b"<"):
            return read_ixml(path)
        if head.startswith((b"S ", b"S\n")):
            return gold_from_m2(read_m2(path))
    if not getattr(args, "source", None):
        raise GecInputError("text references need --source", path=refs[0])
    source_lines = read_lines(args.source)
    reference_lists = [read_lines(p) for p in refs]
    m2 = references_to_m2(source_lines, reference_lists, align=align)
    return gold_from_m2(m2)


def imeasure_fields(res: IMeasureResult, *, mix: bool, beta: float, sentence: bool) -> dict[str, Any]:
    """The score and fields ``score imeasure`` prints (rates in percent, the tool's scale)."""
    item: dict[str, Any] = {
        "score": res.correction.i * 100.0,
        "mode": "mix" if mix else "nomix",
        "beta": beta,
        "correction": res.correction.as_dict(),
        "detection": res.detection.as_dict(),
    }
    if mix:
        item["capped"] = len(res.capped)  # sentences whose mix search was approximated
        item["capped_sentences"] = [i + 1 for i in res.capped]
    if sentence:
        sents = []
        for ch in res.sentences:
            cs, ds = ch.scores(beta=beta)
            sents.append({"score": cs.i * 100.0, "correction": cs.as_dict(), "detection": ds.as_dict()})
        item["sentences"] = sents
    return item


def cli_imeasure(args: Any) -> list[dict[str, Any]]:
    """``score imeasure``: one result per hypothesis; rates in percent (the tool's scale)."""
    options = IMeasure.of_args(args).options
    gold = _load_gold(args, options["align"])
    if getattr(args, "source", None) and len(args.refs) == 1:
        n_src = len(read_lines(args.source))
        if n_src != len(gold):
            raise GecInputError(f"has {n_src} lines but the gold has {len(gold)} sentences", path=args.source)
    beta, mix = options["beta"], not options["nomix"]
    out = []
    for hyp_path in args.hyp:
        lines = read_lines(hyp_path, allow_empty=True)
        if len(lines) != len(gold):
            raise GecInputError(
                f"has {len(lines)} lines but the gold has {len(gold)} sentences", path=hyp_path
            )
        res = imeasure(
            lines,
            gold,
            mix=mix,
            beta=beta,
            progress=StderrProgress(f"imeasure {hyp_path}"),
        )
        fields = imeasure_fields(
            res,
            mix=mix,
            beta=beta,
            sentence=bool(getattr(args, "sentence", False)),
        )
        item: dict[str, Any] = {"hyp": hyp_path, "metric": "imeasure", **fields}
        out.append(item)
    return out


class IMeasure(Metric):
    """The I-measure (Felice & Briscoe 2015) as ieval.py computes it, in percent. References: parsed
    I-measure gold (``IGoldSentence``), parsed M2, or lines per reference with the source."""

    name = "imeasure"
    parameters = (
        replace(beta_parameter(0.5), provenance=False),
        Parameter("nomix", False, "imeasure: one reference per annotator", type=None),
        ALIGN,
    )
    packages = ERRANT_PACKAGES
    model = ERRANT_MODEL
    file_adapter = cli_imeasure

    @classmethod
    def gold_formats(cls) -> tuple[str, ...]:
        return ("ixml", "m2", "text")

    def _corpus(self, hypotheses: list, references: list, source: list | None, sentence: bool) -> MetricScore:
        refs = list(references)
        if refs and isinstance(refs[0], IGoldSentence):
            gold = refs
            n_refs = max([1, *(s.num_annotators for s in gold)])
        else:
            m2 = m2_gold(refs, source, align=self.options["align"])
            gold, n_refs = gold_from_m2(m2), n_annotators(m2)
        mix, beta = not self.options["nomix"], float(self.options["beta"])
        res = imeasure(list(hypotheses), gold, mix=mix, beta=beta)
        return self._result_of_row(n_refs, imeasure_fields(res, mix=mix, beta=beta, sentence=sentence))
