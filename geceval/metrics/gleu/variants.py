"""Named GLEU variants: which public implementation a GLEU number comes from (``score gleu --variant``).

Published GLEU figures of the same outputs differ between papers because the
public GLEU code changed several times (docs/metric-versions.md has the
history, the papers that used each version, and the tests that pin each
variant's numbers). Every variant tokenises with whitespace ``split()``
and is case-sensitive, as every public release does; none lower-cases or
re-tokenises.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from geceval.errors import GecInputError
from geceval.metrics.base import Metric, MetricScore, Parameter
from geceval.metrics.gleu.gleu2015 import gleu2015
from geceval.metrics.gleu.green import green_gleu
from geceval.metrics.gleu.plus import (
    DEFAULT_ITERATIONS,
    gleu_inputs,
    gleu_plus,
    read_cli_hypothesis,
    read_cli_inputs,
)


class GleuVariant(NamedTuple):
    name: str
    implementation: str
    description: str


VARIANTS: dict[str, GleuVariant] = {
    v.name: v
    for v in (
        GleuVariant(
            "jfleg",
            "keisks/jfleg eval/gleu.py (2016-11-04) = cnap/gec-ranking scripts/compute_gleu after the "
            "2 May 2016 update, run with Python 2.7",
            "GLEU+: per sentence one reference drawn per iteration with Python 2's randint after "
            "random.seed(j*101), 500 iterations, mean of the iteration scores; BLEU's brevity term",
        ),
        GleuVariant(
            "jfleg-py3",
            "the same script run with Python 3 (xrange -> range, print())",
            "as jfleg, but Python 3's randint draws other reference indices (getrandbits rejection "
            "sampling): slightly different, unpublished scores",
        ),
        GleuVariant(
            "2015",
            "cnap/gec-ranking scripts/original_gleu/gleu.py (the 2015 GLEU after the 10 March 2016 fix)",
            "GLEU with penalty weight lambda (--lambda), references merged by highest n-gram count, "
            "denominator |h & R\\S| + |h| - n + 1, inverted brevity term",
        ),
        GleuVariant(
            "2015-acl",
            "the same script before the 10 March 2016 fix (the code behind Napoles et al. 2015)",
            "as 2015, but the denominator is |R\\S| + |h| - n + 1: every reference-only n-gram, "
            "whether the hypothesis has it or not ('the original, erroneous way')",
        ),
        GleuVariant(
            "gec-metrics",
            "gotutiyan/gec-metrics (PyPI 0.1.1) gec_metrics.metrics.GLEU, the GREEN reformulation "
            "(INLG 2024, ACL Anthology 2024.inlg-main.25); its GLEUOfficial is our jfleg-py3",
            "as jfleg-py3, but source n-grams missing from the reference count with their frequency "
            "and a sentence's total is not clipped at 0 (geceval.metrics.gleu.green): 1.5-3.7 points lower on CoNLL-14",
        ),
    )
}
DEFAULT_VARIANT = "jfleg"


def variant_fields(
    name: str,
    source: list[str],
    refs: list[list[str]],
    hyp: list[str],
    *,
    lam: float = 0.0,
    sentence: bool = False,
) -> dict[str, Any]:
    """GLEU of one system as the variant ``name`` computes it: score and the variant's own fields."""
    variant = VARIANTS[name]
    row: dict[str, Any] = {"variant": name}
    if name in ("jfleg", "jfleg-py3"):
        res = gleu_plus(source, refs, hyp, sentence=sentence, draws="py3" if name == "jfleg-py3" else "py2")
        row.update({"score": res.score, "std": res.std, "ci": [res.ci[0], res.ci[1]]})
        row["parameters"] = {"order": 4, "iterations": DEFAULT_ITERATIONS, "seeds": "j*101"}
        if res.sentence_scores is not None:
            row["sentences"] = res.sentence_scores
    elif name == "gec-metrics":
        if sentence:
            raise GecInputError("--sentence is not offered for the gec-metrics variant")
        row["score"] = green_gleu(source, refs, hyp)
        row["parameters"] = {"order": 4, "iterations": DEFAULT_ITERATIONS, "seeds": "j*101", "draws": "py3"}
    else:
        denominator = "fixed" if name == "2015" else "acl2015"
        row["score"] = gleu2015(source, refs, hyp, lam=lam, denominator=denominator)
        row["parameters"] = {"order": 4, "lambda": lam, "denominator": denominator}
    row["implementation"] = variant.implementation
    return row


def cli_gleu_variant(args: Any) -> list[dict[str, Any]]:
    """``score gleu --variant NAME``: GLEU per hypothesis file as that implementation computes it."""
    options = GLEU.of_args(args).options
    name, lam = options["variant"], float(options["lam"])
    source, refs, _ = read_cli_inputs(args, "gleu")
    out: list[dict[str, Any]] = []
    for path in args.hyp:
        hyp = read_cli_hypothesis(args, path, source)
        fields = variant_fields(
            name, source, refs, hyp, lam=lam, sentence=bool(getattr(args, "sentence", False))
        )
        out.append({"hyp": path, "metric": "gleu", **fields})
    return out


class GLEU(Metric):
    """GLEU as one public implementation computes it (``variant``; default jfleg: GLEU+ as the
    JFLEG script run with Python 2). Needs the source."""

    name = "gleu"
    parameters = (
        Parameter(
            "variant",
            DEFAULT_VARIANT,
            "gleu: which public implementation (default jfleg; docs/metric-versions.md)",
            type=str,
            choices=("jfleg", "jfleg-py3", "2015", "2015-acl", "gec-metrics"),
            provenance=False,
        ),
        Parameter("lam", 0.0, "gleu2015 penalty weight", flag="--lambda", label="lambda", provenance=False),
    )
    file_adapter = cli_gleu_variant

    def _corpus(self, hypotheses: list, references: list, source: list | None, sentence: bool) -> MetricScore:
        src, refs, hyp = gleu_inputs(self.name, source, references, hypotheses)
        fields = variant_fields(
            self.options["variant"], src, refs, hyp, lam=float(self.options["lam"]), sentence=sentence
        )
        return self._result_of_row(len(refs), fields)


NAPOLES2015_TABLE2: dict[str, tuple[str, ...]] = {
    "GLEU0": (
        "CUUI",
        "AMU",
        "UFC",
        "CAMB",
        "source",
        "IITB",
        "SJTU",
        "PKU",
        "UMC",
        "NTHU",
        "POST",
        "RAC",
        "IPN",
    ),
    "GLEU0.1": (
        "CUUI",
        "AMU",
        "CAMB",
        "UFC",
        "IITB",
        "SJTU",
        "PKU",
        "UMC",
        "NTHU",
        "POST",
        "RAC",
        "IPN",
        "source",
    ),
}
"""Napoles et al. (2015), Table 2: CoNLL-14 system outputs ranked best to worst by GLEU with
lambda 0 and 0.1 (``source`` = the uncorrected input, INPUT in the official submissions)."""
