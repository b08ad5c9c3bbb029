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
from geceval.metrics.gleu.counts import pair_statistics
from geceval.metrics.gleu.plus import GLEU_ORDER, gleu_plus_of_statistics
from geceval.metrics.imeasure.scorer import imeasure
from geceval.metrics.m2.scorer import score_candidates, sentence_candidates
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


def _outputs(root: Path) -> dict[str, list[str]]:
    return {
        s: [line.strip() for line in read_lines(root.joinpath(*OUTPUTS) / s, allow_empty=True)]
        for s in HUMAN_TS
    }


def _skip(root: Path, skip_merged: bool) -> set[int]:
    return read_skip_lines(root.joinpath(*ANNOTATIONS) / "merged_ids") if skip_merged else set()


@lru_cache(maxsize=4)
def _scores(root: Path, skip_merged: bool, metric: str, reference_set: str) -> tuple[tuple[str, float], ...]:
    """BLEU and I-measure of the 13 systems against one reference set (M2 and GLEU: see below)."""
    refs_dir = root.joinpath(*REFERENCES)
    skip = _skip(root, skip_merged)
    outputs = _outputs(root)
    files, m2_file = SETS[reference_set]
    if metric == "BLEU":
        source = read_lines(refs_dir / "source", allow_empty=True)
        keep = _keep(len(source), skip)
        refs = [read_lines(refs_dir / f, allow_empty=True) for f in files]
        picked_refs = [[ref[i] for i in keep] for ref in refs]
        return tuple((s, bleu(picked_refs, [out[i] for i in keep]).score) for s, out in outputs.items())
    gold = read_m2(refs_dir / m2_file)
    keep = _keep(len(gold), skip)
    igold = gold_from_m2([gold[i] for i in keep])
    return tuple(
        (s, imeasure([out[i] for i in keep], igold, mix=False).correction.i) for s, out in outputs.items()
    )


@lru_cache(maxsize=2)
def _m2_scores(root: Path, skip_merged: bool, sets: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """M2 F0.5 (``m2_score``'s defaults) of the 13 systems against each set's ``.m2``: reference set
    -> system -> F. Each line is scored against every set at once, sharing its edit lattice and each
    annotator's best edits (``sentence_candidates(lattices=...)``): the seven files share their
    source, and ``ALL.m2``'s annotators are the other six files'. Same figures as ``m2_score`` per
    set (tests/core/test_sakaguchi2016_table6.py)."""
    refs_dir = root.joinpath(*REFERENCES)
    golds = {name: read_m2(refs_dir / SETS[name][1]) for name in sets}
    sizes = {len(g) for g in golds.values()}
    if len(sizes) != 1:
        raise ValueError(f"the .m2 files of {', '.join(sets)} differ in length: {sorted(sizes)}")
    keep = _keep(sizes.pop(), _skip(root, skip_merged))
    out: dict[str, dict[str, float]] = {name: {} for name in sets}
    for system, lines in _outputs(root).items():
        per_set: dict[str, list] = {name: [] for name in sets}
        for i in keep:
            lattices: dict = {}  # one sentence at a time
            for name in sets:
                per_set[name].append(sentence_candidates(lines[i], golds[name][i], lattices=lattices))
        for name in sets:
            out[name][system] = score_candidates(per_set[name], beta=0.5).f
    return out


@lru_cache(maxsize=2)
def _gleu_scores(root: Path, skip_merged: bool, sets: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """GLEU+ (500 iterations) of the 13 systems against each set's plain-text references: reference
    set -> system -> score. Each (sentence, reference file) pair is counted once per system, and a
    set's statistics are its files' joined per sentence (``gleu_plus_of_statistics``), so All (the
    20 files of the other six sets) costs no counting of its own. Same figures as ``gleu_plus``."""
    refs_dir = root.joinpath(*REFERENCES)
    source = read_lines(refs_dir / "source", allow_empty=True)
    keep = _keep(len(source), _skip(root, skip_merged))
    src = [source[i] for i in keep]
    files = list(dict.fromkeys(f for name in sets for f in SETS[name][0]))
    refs = {}
    for f in files:
        lines = read_lines(refs_dir / f, allow_empty=True)
        if len(lines) != len(source):
            raise ValueError(f"{f} has {len(lines)} lines but the source has {len(source)}")
        refs[f] = [lines[i] for i in keep]
    out: dict[str, dict[str, float]] = {name: {} for name in sets}
    for system, lines in _outputs(root).items():
        if len(lines) != len(source):
            raise ValueError(f"{system} has {len(lines)} lines but the source has {len(source)}")
        hyp = [lines[i] for i in keep]
        per_file = {f: pair_statistics(src, [refs[f]], hyp, GLEU_ORDER, "word") for f in files}
        for name in sets:
            joined = [[row for f in SETS[name][0] for row in per_file[f][i]] for i in range(len(hyp))]
            out[name][system] = gleu_plus_of_statistics(joined).score
    return out


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
    wanted_sets = tuple(s for s in SETS if reference_sets is None or s in reference_sets)
    shared = {
        metric: fn(root, skip_merged, wanted_sets)
        for metric, fn in (("M2", _m2_scores), ("GLEU", _gleu_scores))
        if metric in metrics and wanted_sets
    }
    out = []
    for reference_set in SETS:
        for metric in METRICS:
            published = PUBLISHED[(reference_set, metric)]
            wanted = reference_set in wanted_sets
            if metric not in metrics or metric not in COMPUTED or not wanted:
                out.append(Table6Cell(reference_set, metric, None, None, published, None))
                continue
            if metric in shared:
                scores = shared[metric][reference_set]
            else:
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
                    dict(scores),
                )
            )
    return out
