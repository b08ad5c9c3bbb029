"""Sakaguchi et al. 2016 Table 6: metric x reference set correlations with the expert ranking (partial).

Table 6 correlates each metric's system scores over each of seven reference sets with "the
expert human ranking reported in Grundkiewicz et al. (2015), Table 3c" (§4.1): Spearman's rho
and Pearson's r. This module computes two of its four metrics, GLEU (GLEU+, 500 sampled
iterations, :func:`geceval.metrics.gleu.plus.gleu_plus`; §4.1's "simpler, modified version ... mean score
over 500 iterations") and M2 F0.5 (:func:`geceval.metrics.m2.scorer.m2_score` against the release's ``.m2``
of each set), and since issue 42's second part BLEU (sacrebleu corpus BLEU, its defaults: 13a
tokenisation of the already tokenised lines, against the set's plain-text references; the paper names
no implementation) and I-measure (:func:`geceval.metrics.imeasure.scorer.imeasure` with ``mix=False``, as footnote 9
says the paper ran it, "with the -nomix flag"; its gold is the set's ``.m2`` converted as the
reference converter does, :func:`geceval.formats.ixml.gold_from_m2`; the score is the correction
improvement I).

Inputs under a ../shared/data root: ``grammaticality-metrics/references/`` (the plain-text
references per set, their ``.m2`` files and ``source``), the 13 CoNLL-14 outputs in
``grammatical-evaluation/data/original/official_submissions/`` and, with ``skip_merged``,
``reassess-gec/annotations/merged_ids`` (1-based lines).

Systems: the 13 of Table 3c, INPUT included. With the official CoNLL-14 M2 scores
(gecmetrics' ``m2score.txt.gz``) the 13 give rho 0.720, r 0.674 against the paper's NUCLE M2
cell 0.725 / 0.677; without INPUT 0.741 / 0.716. The 0.497 for GLEU E-min quoted in issue 42
was over the 12 without INPUT (13: 0.511).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from scipy.stats import pearsonr, spearmanr

from geceval.formats.ixml import gold_from_m2
from geceval.formats.m2 import read_m2
from geceval.formats.text import read_lines
from geceval.metrics.gleu.plus import gleu_plus
from geceval.metrics.imeasure.scorer import imeasure
from geceval.metrics.m2.scorer import m2_score
from geceval.metrics.sacre import bleu
from geceval.papers.sakaguchi2016 import ANNOTATIONS, read_skip_lines

REFERENCES = ("grammaticality-metrics", "references")
OUTPUTS = ("grammatical-evaluation", "data", "original", "official_submissions")
HUMAN_TS: dict[str, float] = {
    "AMU": 0.273, "CAMB": 0.182, "RAC": 0.114, "CUUI": 0.105, "POST": 0.080, "PKU": -0.001,
    "UMC": -0.022, "UFC": -0.041, "IITB": -0.055, "INPUT": -0.062, "SJTU": -0.074,
    "NTHU": -0.142, "IPN": -0.358,
}  # fmt: skip
"""Grundkiewicz et al. 2015 Table 3c ("Human TrueSkill ranking"), the paper's expert ranking."""
SETS: dict[str, tuple[tuple[str, ...], str]] = {
    "NUCLE": (("NUCLEA", "NUCLEB"), "NUCLE.m2"),
    "BN15": (tuple(f"BN{i}" for i in range(1, 11)), "BN.m2"),
    "E-fluency": (("EXPFLUENCYA", "EXPFLUENCYB"), "EXPFLUENCY.m2"),
    "N-fluency": (("TURKFLUENCYA", "TURKFLUENCYB"), "TURKFLUENCY.m2"),
    "E-min.": (("EXPMINA", "EXPMINB"), "EXPMIN.m2"),
    "N-min.": (("TURKMINA", "TURKMINB"), "TURKMIN.m2"),
}
SETS["All"] = (tuple(f for files, _ in SETS.values() for f in files), "ALL.m2")
PUBLISHED: dict[tuple[str, str], tuple[float, float]] = {
    ("NUCLE", "M2"): (0.725, 0.677), ("NUCLE", "GLEU"): (0.626, 0.646),
    ("NUCLE", "I-measure"): (-0.423, -0.313), ("NUCLE", "BLEU"): (-0.456, -0.310),
    ("BN15", "M2"): (0.692, 0.641), ("BN15", "GLEU"): (0.720, 0.697),
    ("BN15", "I-measure"): (-0.066, -0.007), ("BN15", "BLEU"): (-0.319, -0.255),
    ("E-fluency", "M2"): (0.758, 0.665), ("E-fluency", "GLEU"): (0.819, 0.731),
    ("E-fluency", "I-measure"): (-0.297, -0.256), ("E-fluency", "BLEU"): (-0.385, -0.230),
    ("N-fluency", "M2"): (0.703, 0.655), ("N-fluency", "GLEU"): (0.676, 0.668),
    ("N-fluency", "I-measure"): (-0.451, -0.319), ("N-fluency", "BLEU"): (-0.451, -0.388),
    ("E-min.", "M2"): (0.775, 0.655), ("E-min.", "GLEU"): (0.786, 0.676),
    ("E-min.", "I-measure"): (-0.467, -0.385), ("E-min.", "BLEU"): (-0.456, -0.396),
    ("N-min.", "M2"): (0.769, 0.641), ("N-min.", "GLEU"): (-0.187, -0.110),
    ("N-min.", "I-measure"): (-0.467, -0.402), ("N-min.", "BLEU"): (-0.495, -0.473),
    ("All", "M2"): (0.692, 0.617), ("All", "GLEU"): (0.725, 0.724),
    ("All", "I-measure"): (-0.055, 0.061), ("All", "BLEU"): (-0.462, -0.314),
}  # fmt: skip
"""(reference set, metric) -> (Spearman's rho, Pearson's r) as printed in Table 6."""
METRICS = ("M2", "GLEU", "I-measure", "BLEU")
COMPUTED = ("M2", "GLEU", "BLEU", "I-measure")


@dataclass(frozen=True)
class Table6Cell:
    reference_set: str
    metric: str
    rho: float | None
    r: float | None
    published: tuple[float, float]
    scores: dict[str, float] | None  # system -> metric score, None when not computed


def _keep(n: int, skip: set[int]) -> list[int]:
    return [i for i in range(n) if i not in skip]


@lru_cache(maxsize=4)
def _scores(root: Path, skip_merged: bool, metric: str, reference_set: str) -> tuple[tuple[str, float], ...]:
    refs_dir = root.joinpath(*REFERENCES)
    skip = read_skip_lines(root.joinpath(*ANNOTATIONS) / "merged_ids") if skip_merged else set()
    outputs = {
        s: [line.strip() for line in read_lines(root.joinpath(*OUTPUTS) / s, allow_empty=True)]
        for s in HUMAN_TS
    }
    files, m2_file = SETS[reference_set]
    if metric in ("GLEU", "BLEU"):
        source = read_lines(refs_dir / "source", allow_empty=True)
        keep = _keep(len(source), skip)
        refs = [read_lines(refs_dir / f, allow_empty=True) for f in files]
        picked_refs = [[ref[i] for i in keep] for ref in refs]
        if metric == "BLEU":
            return tuple((s, bleu(picked_refs, [out[i] for i in keep]).score) for s, out in outputs.items())
        src = [source[i] for i in keep]
        return tuple(
            (s, gleu_plus(src, picked_refs, [out[i] for i in keep]).score) for s, out in outputs.items()
        )
    gold = read_m2(refs_dir / m2_file)
    keep = _keep(len(gold), skip)
    picked = [gold[i] for i in keep]
    if metric == "I-measure":
        igold = gold_from_m2(picked)
        return tuple(
            (s, imeasure([out[i] for i in keep], igold, mix=False).correction.i) for s, out in outputs.items()
        )
    return tuple((s, m2_score([out[i] for i in keep], picked).f) for s, out in outputs.items())


def table6(
    data: str | Path,
    *,
    skip_merged: bool = False,
    metrics: tuple[str, ...] = COMPUTED,
    reference_sets: tuple[str, ...] | None = None,
) -> list[Table6Cell]:
    """Every cell of Table 6; the metrics not in ``metrics`` (or not computed here) and the sets not in
    ``reference_sets`` (None: all) have no value."""
    root = Path(data).resolve()
    out = []
    for reference_set in SETS:
        for metric in METRICS:
            published = PUBLISHED[(reference_set, metric)]
            wanted = reference_sets is None or reference_set in reference_sets
            if metric not in metrics or metric not in COMPUTED or not wanted:
                out.append(Table6Cell(reference_set, metric, None, None, published, None))
                continue
            scores = dict(_scores(root, skip_merged, metric, reference_set))
            names = list(HUMAN_TS)
            x = [scores[s] for s in names]
            y = [HUMAN_TS[s] for s in names]
            out.append(
                Table6Cell(
                    reference_set,
                    metric,
                    float(spearmanr(x, y)[0]),
                    float(pearsonr(x, y)[0]),
                    published,
                    scores,
                )
            )
    return out
