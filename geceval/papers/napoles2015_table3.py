"""Napoles et al. 2015 ("Ground Truth for GEC Metrics") Table 3: metric correlations with the human ranking.

Table 3 gives the "Correlation of metrics with the human ranking (excluding the reference), as
calculated with Pearson's r and Spearman's rho" for GLEU0, M2, GLEU0.1, I-measure and BLEU; Table 2
prints the 13 systems (the 12 CoNLL-14 submissions and the source) "ranked best to worst" by the
human ranking and by each metric. What this module computes, from a ../shared/data root:

- **Systems**: the 13 of Table 2 (the 12 official CoNLL-14 submissions and the source, ``INPUT``),
  the reference left out as the caption says; outputs from
  ``grammatical-evaluation/data/original/official_submissions``.
- **Human scores**: the caller's (``reproduce napoles2015`` passes the TrueSkill mu of its Table 2
  run over gec-ranking's ``all_judgments.xml``, ``non-native`` left out: "We collected data from
  three native English speakers"; the source is ``src`` there, ``INPUT`` here).
- **GLEU0, GLEU0.1**: GLEU as the paper's code computed it (:func:`geceval.metrics.gleu.gleu2015.gleu2015`
  with ``denominator="acl2015"``, the "original, erroneous" denominator the 2015 script used, kept
  as a comment in gec-ranking's ``scripts/original_gleu/gleu.py``), lambda 0 and 0.1 (§4: "report
  results on lambda = {0.1, 0}"), n = 1..4, against the two official references
  (gecmetrics' ``refs/conll14st-test.tok.trg0``, ``trg1``) and ``conll14st-test.tok.src``.
- **M2**: F0.5 of :func:`geceval.metrics.m2.scorer.m2_score` against the official gold
  ``conll14st-test.m2`` (two annotators); equal to the official CoNLL-14 scores (gecmetrics'
  ``m2score.txt.gz``, pinned by ``reproduce conll14-metrics``).
- **I-measure**: the correction improvement I of :func:`geceval.metrics.imeasure.scorer.imeasure`
  with ``mix=False`` on the official gold converted by :func:`geceval.formats.ixml.gold_from_m2` (as
  ``m2_to_ixml.py`` converts it: equal to gecmetrics' ``imeasure.txt.gz`` to its two decimals); the
  paper names no mode.
- **BLEU**: sacrebleu corpus BLEU with its defaults against the two references (the paper names
  no implementation).

The paper prints neither the human scores nor the metric scores, only Table 2's orders.
:func:`printed_order_rho` is Spearman's rho between two of Table 2's printed columns: it gives
Table 3's rho to the third decimal for four of the five metrics, which shows that Table 3's rho are
the rank correlations of Table 2's columns (so a rho cell of ours is off exactly where our order of
the systems differs from the printed one).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from scipy.stats import pearsonr, spearmanr

from geceval.formats.ixml import gold_from_m2
from geceval.formats.m2 import read_m2
from geceval.formats.text import read_lines
from geceval.metrics.gleu.gleu2015 import gleu2015
from geceval.metrics.imeasure.scorer import imeasure
from geceval.metrics.m2.scorer import m2_score
from geceval.metrics.sacre import bleu

CONLL = ("gecmetrics", "data", "conll14st-test")
OUTPUTS = ("grammatical-evaluation", "data", "original", "official_submissions")
SYSTEMS = ("AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC")
"""The 13 systems of Table 2: the 12 CoNLL-14 submissions and the source (``INPUT``, Table 2's
"source", gec-ranking's ``src``)."""
METRICS = ("GLEU0", "M2", "GLEU0.1", "I-measure", "BLEU")
"""Table 3's rows, in its order."""
PUBLISHED: dict[str, tuple[float, float]] = {
    "GLEU0": (0.542, 0.555),
    "M2": (0.358, 0.429),
    "GLEU0.1": (0.200, 0.412),
    "I-measure": (-0.051, -0.005),
    "BLEU": (-0.125, -0.225),
}
"""metric -> (Pearson's r, Spearman's rho) as printed in Table 3."""
TABLE2: dict[str, tuple[str, ...]] = {
    "Human": ("CAMB", "AMU", "RAC", "CUUI", "INPUT", "POST", "UFC", "SJTU", "IITB", "PKU", "UMC", "NTHU", "IPN"),
    "BLEU": ("UFC", "INPUT", "IITB", "SJTU", "UMC", "CUUI", "PKU", "AMU", "IPN", "NTHU", "CAMB", "RAC", "POST"),
    "I-measure": (
        "UFC", "INPUT", "IITB", "SJTU", "CUUI", "PKU", "AMU", "UMC", "IPN", "POST", "RAC", "CAMB", "NTHU",
    ),
    "M2": ("CUUI", "CAMB", "AMU", "POST", "UMC", "NTHU", "PKU", "RAC", "SJTU", "UFC", "IPN", "IITB", "INPUT"),
    "GLEU0": ("CUUI", "AMU", "UFC", "CAMB", "INPUT", "IITB", "SJTU", "PKU", "UMC", "NTHU", "POST", "RAC", "IPN"),
    "GLEU0.1": (
        "CUUI", "AMU", "CAMB", "UFC", "IITB", "SJTU", "PKU", "UMC", "NTHU", "POST", "RAC", "IPN", "INPUT",
    ),
}  # fmt: skip
"""Table 2 ("System outputs scored by different metrics, ranked best to worst"), column by column,
best first; the paper's "source" is ``INPUT``."""


@dataclass(frozen=True)
class Table3Cell:
    metric: str
    r: float
    rho: float
    published: tuple[float, float]
    """(r, rho) as printed"""
    printed_rho: float
    """Spearman's rho of Table 2's printed metric column against its printed human column"""
    scores: dict[str, float]
    """system -> our metric score"""


def _ranks(order: tuple[str, ...] | list[str]) -> list[int]:
    return [list(order).index(s) for s in SYSTEMS]


def printed_order_rho(metric: str, human: tuple[str, ...] | list[str] = TABLE2["Human"]) -> float:
    """Spearman's rho between Table 2's column ``metric`` and ``human`` (default: the printed human order)."""
    return float(spearmanr(_ranks(TABLE2[metric]), _ranks(human))[0])


def order_of(scores: dict[str, float]) -> list[str]:
    """The systems best first (ties by name)."""
    return sorted(SYSTEMS, key=lambda s: (-scores[s], s))


def metric_scores(data: str | Path, metrics: tuple[str, ...] = METRICS) -> dict[str, dict[str, float]]:
    """metric -> system -> score over the 1,312 CoNLL-14 test sentences (see the module docstring);
    each metric's scores are computed once per data folder and process (I-measure takes about 10 s
    a system)."""
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise ValueError(f"not a Table 3 metric: {', '.join(unknown)}")
    root = Path(data).resolve()
    return {metric: dict(_scores(root, metric)) for metric in metrics}


@lru_cache(maxsize=8)
def _scores(root: Path, metric: str) -> tuple[tuple[str, float], ...]:
    conll = root.joinpath(*CONLL)
    outputs = {
        s: [line.strip() for line in read_lines(root.joinpath(*OUTPUTS) / s, allow_empty=True)]
        for s in SYSTEMS
    }
    refs = [read_lines(conll / "refs" / f"conll14st-test.tok.trg{i}", allow_empty=True) for i in (0, 1)]
    if metric in ("GLEU0", "GLEU0.1"):
        source = read_lines(conll / "conll14st-test.tok.src", allow_empty=True)
        lam = 0.0 if metric == "GLEU0" else 0.1
        return tuple(
            (s, gleu2015(source, refs, hyp, lam=lam, denominator="acl2015")) for s, hyp in outputs.items()
        )
    if metric == "BLEU":
        return tuple((s, bleu(refs, hyp).score) for s, hyp in outputs.items())
    gold = read_m2(conll / "conll14st-test.m2")
    if metric == "M2":
        return tuple((s, m2_score(hyp, gold).f) for s, hyp in outputs.items())
    igold = gold_from_m2(gold)
    return tuple((s, imeasure(hyp, igold, mix=False).correction.i) for s, hyp in outputs.items())


def table3(human: dict[str, float], scores: dict[str, dict[str, float]]) -> list[Table3Cell]:
    """Table 3's cells: each metric's scores against ``human`` (system -> human score, the 13 of
    :data:`SYSTEMS`; the reference, if given, is left out), r on the scores, rho on their ranks."""
    missing = [s for s in SYSTEMS if s not in human]
    if missing:
        raise ValueError(f"human scores lack {', '.join(missing)}")
    y = [human[s] for s in SYSTEMS]
    cells = []
    for metric in METRICS:
        if metric not in scores:
            continue
        x = [scores[metric][s] for s in SYSTEMS]
        cells.append(
            Table3Cell(metric, float(pearsonr(x, y)[0]), float(spearmanr(x, y)[0]), PUBLISHED[metric],
                       printed_order_rho(metric), dict(scores[metric]))
        )  # fmt: skip
    return cells
