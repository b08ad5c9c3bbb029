"""``reproduce seeda2024``: SEEDA (Kobayashi, Mita and Komachi 2024) from its release as laid out.

``DIR`` (``--data``) holds ``data/judgments_sent.xml`` and ``data/judgments_edit.xml`` (Appraise XML,
``src-id`` the 1-based CoNLL-14 test line, a ``system`` attribute joining systems with identical
outputs by spaces), ``outputs/all/<SYSTEM>.txt`` (one line per CoNLL-14 test sentence) and
``scores/human/{TS,EW}_{sent,edit}.txt`` (one score a line, the 15 systems in
:data:`seeda_published.SYSTEMS` order). The references (``--references``) are a folder holding
``conll14st-test.m2`` (M2, SentM2, ERRANT, SentERRANT, GoToScorer), ``conll14st-test.tok.src`` and
``refs/conll14st-test.tok.trg0``/``trg1`` (GLEU).

Computed directly with geceval (no database: every input is a file): the readers
(:func:`geceval.formats.judgments.read_appraise_xml_keyed` with ``src_id_base=1``), the rankers
(:func:`geceval.human.system_ranking.rank`), the scorers and :mod:`geceval.metaeval.kobayashi2024`; joins of judged
systems and pairs refuse under 90% matched (:mod:`geceval.formats.joins`). One :class:`SeedaRow` per cell:

- ``human``: our TrueSkill and Expected Wins from each judgments file beside the release's files;
- ``metric``: our system scores (x100) beside the release's (:data:`seeda_published.PUBLISHED`);
- ``system``: Pearson and Spearman of each metric (ours) against each human score (the release's)
  per subset, beside what the release's own metric scores give;
- ``window``: the same within each window of k = 4 adjacent systems of the human order (base);
- ``sentence``: accuracy and tau (WMT variant) of each metric's sentence scores against each
  judgments file's pairs per subset (nothing to compare: the release has no sentence scores).
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from geceval.errors import GecInputError
from geceval.formats import joins
from geceval.formats.judgments import PairwiseJudgment, expand_pairwise, read_appraise_xml_keyed
from geceval.formats.m2 import read_m2
from geceval.formats.text import read_lines
from geceval.human.system_ranking import rank
from geceval.metaeval import kobayashi2024 as m24
from geceval.metaeval.correlation import sentence_agreement
from geceval.metrics.errant.annotation import annotate_hypothesis, reference_set_from_m2
from geceval.metrics.errant.scorer import errant_compare
from geceval.metrics.gleu.plus import gleu_plus
from geceval.metrics.gotoscorer import gotoscorer, gotoscorer_sentences
from geceval.metrics.m2.scorer import score_candidates, sentence_candidates
from geceval.metrics.sentence_averaged import mean, sent_errant_scores
from ranking.analysis import seeda_published as pub
from ranking.analysis.reproduce_reasons import SEEDA_UNEXPLAINED
from ranking.analysis.reproduce_reasons import UNEXPLAINED_KIND as UNEXPLAINED

DEFAULT_REFERENCES = (
    Path(os.environ.get("GEC_SHARED_DIR") or Path(__file__).resolve().parents[3] / "shared")
    / "data" / "gecmetrics" / "data" / "conll14st-test"
)  # fmt: skip
"""The CoNLL-14 references of gecmetrics in ../shared (``GEC_SHARED_DIR`` when elsewhere)."""


@dataclass
class SeedaRow:
    table: str
    subset: str
    row: str
    column: str
    published: float | None
    ours: float | None
    tolerance: float | None
    ok: bool | None
    known: str | None = None
    why: str | None = None

    @property
    def failed(self) -> bool:
        return self.ok is False and self.known in (None, UNEXPLAINED)

    @property
    def difference(self) -> float | None:
        return None if self.ours is None or self.published is None else self.ours - self.published

    def as_json(self) -> dict[str, Any]:
        out = {"study": "seeda2024", **asdict(self), "difference": self.difference}
        out["published_from"] = pub.PUBLISHED_FROM[self.table]
        for key in ("published", "ours", "difference"):
            if isinstance(out[key], float) and not math.isfinite(out[key]):
                out[key] = None
        return out


def _row(table: str, subset: str, row: str, column: str, published, ours, tol, **kw) -> SeedaRow:
    if ours is not None and math.isnan(ours):
        ours = None
    if published is not None and math.isnan(published):
        published = None
    ok = None
    if published is not None and ours is not None and tol is not None:
        ok = abs(ours - published) <= tol + 1e-9
    known, why = kw.get("known"), kw.get("why")
    if ok is not False and kw.get("only_if_off"):
        known = why = None
    return SeedaRow(table, subset, row, column, published, ours, tol, ok, known, why)


# --------------------------------------------------------------------------- reading the release


@dataclass
class Release:
    judgments: dict[str, list[PairwiseJudgment]]
    """granularity (sent, edit) -> pairwise judgments, items 0-based sentence indices."""
    item_key: dict[str, str]
    outputs: dict[str, list[str]]
    human: dict[str, dict[str, float]]
    """``TS_sent`` ... -> system -> the release's human score."""


def _need(path: Path, what: str) -> Path:
    if not path.is_file():
        raise FileNotFoundError(
            f"missing {what}: {path} (the SEEDA release layout: docs/reproducing-papers.md)"
        )
    return path


def read_human_scores(path: Path) -> dict[str, float]:
    """One score a line for the 15 systems in :data:`seeda_published.SYSTEMS` order."""
    lines = [x for x in read_lines(_need(path, "human scores")) if x.strip()]
    if len(lines) != len(pub.SYSTEMS):
        raise GecInputError(f"{len(lines)} scores, expected one a line for the {len(pub.SYSTEMS)} systems "
                            f"({', '.join(pub.SYSTEMS)})", path=str(path))  # fmt: skip
    out = {}
    for n, (system, text) in enumerate(zip(pub.SYSTEMS, lines), start=1):
        try:
            out[system] = float(text.split()[-1])
        except ValueError:
            raise GecInputError(f"score {text!r} is not a number", path=str(path), line=n) from None
    return out


def read_outputs(folder: Path, lines: int) -> dict[str, list[str]]:
    """``outputs/all/<SYSTEM>.txt`` of the 15 systems, each with ``lines`` lines."""
    missing = [s for s in pub.SYSTEMS if not (folder / f"{s}.txt").is_file()]
    if missing:
        raise FileNotFoundError(
            f"missing system outputs in {folder}: {', '.join(f'{s}.txt' for s in missing)}"
        )
    out = {}
    for system in pub.SYSTEMS:
        path = folder / f"{system}.txt"
        out[system] = read_lines(path, allow_empty=True)
        if len(out[system]) != lines:
            raise GecInputError(f"{len(out[system])} lines, the references have {lines}", path=str(path))
    return out


def read_judgments(path: Path, lines: int) -> tuple[list[PairwiseJudgment], str]:
    """Pairwise judgments of a SEEDA judgments file (src-id base 1; joined systems split into tied
    entries by the reader) and how its items were keyed."""
    # the reader refuses a src-id outside 1..lines (a 0-based file read as 1-based)
    rankings, key = read_appraise_xml_keyed(_need(path, "judgments"), src_id_base=1, corpus_lines=lines)
    pairs = expand_pairwise(rankings)
    judged = {s for p in pairs for s in (p.sys1, p.sys2)}
    joins.require_share(
        joins.system_join(judged, pub.SYSTEMS, judged_as=path.name, scored_as="the 15 SEEDA systems"),
        where=str(path),
        hint="rename the systems to the release's names",
    )
    return pairs, key.describe()


def read_release(data: Path, references: Path) -> tuple[Release, dict[str, Any]]:
    refs = _read_references(references)
    judgments, keys = {}, {}
    for g in pub.GRANULARITIES:
        judgments[g], keys[g] = read_judgments(data / "data" / f"judgments_{g}.xml", len(refs["gold"]))
    outputs = read_outputs(data / "outputs" / "all", len(refs["gold"]))
    human = {name: read_human_scores(data / "scores" / "human" / f"{name}.txt") for name in pub.HUMAN_SCORES}
    return Release(judgments, keys, outputs, human), refs


def _read_references(folder: Path) -> dict[str, Any]:
    gold = read_m2(_need(folder / "conll14st-test.m2", "CoNLL-14 gold M2"))
    source = read_lines(_need(folder / "conll14st-test.tok.src", "CoNLL-14 source"))
    trg = [read_lines(_need(folder / "refs" / f"conll14st-test.tok.trg{i}", "GLEU reference"), allow_empty=True)
           for i in (0, 1)]  # fmt: skip
    if len(source) != len(gold) or any(len(t) != len(gold) for t in trg):
        raise GecInputError(f"{folder}: the source, references and gold M2 differ in length")
    return {"gold": gold, "source": source, "refs": trg}


# --------------------------------------------------------------------------- scores


def metric_scores(
    outputs: dict[str, list[str]], refs: dict[str, Any]
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, dict[str, float]]]]:
    """(system -> metric -> score x100, sentence metric -> system -> item -> score). GoToScorer's
    weights come from all the systems given, scored together as the release scores its 15."""
    gold, ref_set = refs["gold"], reference_set_from_m2(refs["gold"])
    system: dict[str, dict[str, float]] = {s: {} for s in outputs}
    sentence: dict[str, dict[str, dict[str, float]]] = {m: {} for m in pub.SENTENCE_METRICS}
    hyp_m2 = {}
    for name, lines in outputs.items():
        cands = [sentence_candidates(h, g) for h, g in zip(lines, gold)]
        per_m2 = [
            score_candidates([c]).f for c in cands
        ]  # SentM2's sentence scores (geceval.metrics.sentence_averaged)
        hyp_m2[name] = annotate_hypothesis(ref_set, lines)
        per_errant = sent_errant_scores(hyp_m2[name], ref_set.m2)
        gleu = gleu_plus(refs["source"], refs["refs"], lines, sentence=True)
        system[name].update(
            M2=100 * score_candidates(cands).f, SentM2=100 * mean(per_m2),
            ERRANT=100 * errant_compare(hyp_m2[name], ref_set.m2).f, SentERRANT=100 * mean(per_errant),
            GLEU=100 * gleu.score,
        )  # fmt: skip
        for metric, values in (("M2", per_m2), ("ERRANT", per_errant), ("GLEU", gleu.sentence_scores or [])):
            sentence[metric][name] = {str(i): float(v) for i, v in enumerate(values)}
    names = list(hyp_m2)
    for name, res in zip(names, gotoscorer(ref_set.m2, [hyp_m2[n] for n in names])):
        system[name]["GoToScorer"] = 100 * res.f
    for name, values in zip(names, gotoscorer_sentences(ref_set.m2, [hyp_m2[n] for n in names])):
        sentence["GoToScorer"][name] = {str(i): float(v) for i, v in enumerate(values)}
    return system, sentence


def human_scores(
    judgments: dict[str, list[PairwiseJudgment]], *, runs: int, seed: int
) -> dict[str, dict[str, float]]:
    """Our ``TS_<g>`` (mean mu over ``runs`` TrueSkill runs) and ``EW_<g>`` (Expected Wins on all
    judgments) of each granularity."""
    out = {}
    for g, pairs in judgments.items():
        for method, label in (("trueskill", "TS"), ("ew", "EW")):
            result = rank(pairs, method=method, runs=runs if method == "trueskill" else 1, seed=seed)
            out[f"{label}_{g}"] = {s.name: s.mu for s in result.systems}
    return out


# --------------------------------------------------------------------------- rows


def human_rows(ours: dict[str, dict[str, float]], release: dict[str, dict[str, float]]) -> list[SeedaRow]:
    rows = []
    for name in pub.HUMAN_SCORES:
        tol = pub.TOLERANCE[name.split("_")[0]]
        for system in pub.SYSTEMS:
            value = ours.get(name, {}).get(system)
            row = _row("human", "-", system, name, release[name][system], value, tol)
            if value is None:  # the release scores a system no judgment names: not reproduced
                row.ok, row.why = False, "no judgment names this system"
            rows.append(row)
    return rows


def metric_rows(ours: dict[str, dict[str, float]]) -> list[SeedaRow]:
    rows = []
    for system in pub.SYSTEMS:
        for k, metric in enumerate(pub.METRICS):
            known, why = pub.KNOWN.get((metric, system), (None, None))
            if known is None and (metric, system) in SEEDA_UNEXPLAINED:
                known, why = UNEXPLAINED, SEEDA_UNEXPLAINED[(metric, system)]
            rows.append(_row("metric", "-", system, metric, pub.PUBLISHED[system][k], ours[system][metric],
                             pub.TOLERANCE["metric"], known=known, why=why, only_if_off=True))  # fmt: skip
    return rows


def _published_metric(metric: str) -> dict[str, float]:
    k = pub.METRICS.index(metric)
    return {s: v[k] for s, v in pub.PUBLISHED.items()}


def _off(metric_table: list[SeedaRow], metric: str, members: list[str]) -> str | None:
    """Why a correlation over ``members`` may differ: those systems' scores of ``metric`` differ."""
    off = [r.row for r in metric_table if r.column == metric and r.row in members and r.ok is False]
    if not off:
        return None
    return (
        f"the correlation follows {metric}'s system scores, which differ for {', '.join(off)} (metric rows)"
    )


def system_rows(
    ours: dict[str, dict[str, float]], release: dict[str, dict[str, float]], metric_table: list[SeedaRow]
) -> list[SeedaRow]:
    rows = []
    tol = pub.TOLERANCE["correlation"]
    for subset, name in pub.SUBSETS.items():
        members = m24.subset_members(name, pub.SYSTEMS, pub.TAGS)
        for metric in pub.METRICS:
            mine = {s: ours[s][metric] for s in members}
            theirs = _published_metric(metric)
            why = _off(metric_table, metric, members)
            for human in pub.HUMAN_SCORES:
                a = m24.subset_correlations(mine, release[human], pub.TAGS, name, exclude=())
                b = m24.subset_correlations(theirs, release[human], pub.TAGS, name, exclude=())
                for column, x, y in (("pearson", a.pearson, b.pearson), ("spearman", a.spearman, b.spearman)):
                    rows.append(_row("system", subset, metric, f"{column} {human}", y, x, tol,
                                     known="metric scores differ" if why else None, why=why, only_if_off=True))  # fmt: skip
    return rows


def window_rows(
    ours: dict[str, dict[str, float]],
    release: dict[str, dict[str, float]],
    metric_table: list[SeedaRow],
    k: int = m24.DEFAULT_WINDOW,
) -> list[SeedaRow]:
    rows = []
    tol = pub.TOLERANCE["correlation"]
    members = m24.subset_members(pub.SUBSETS[pub.WINDOW_SUBSET], pub.SYSTEMS, pub.TAGS)
    for metric in pub.METRICS:
        mine = {s: ours[s][metric] for s in members}
        theirs = _published_metric(metric)
        for human in pub.HUMAN_SCORES:
            a = m24.window_correlations(mine, release[human], members, k)
            b = m24.window_correlations({s: theirs[s] for s in members}, release[human], members, k)
            for wa, wb in zip(a, b):
                why = _off(metric_table, metric, wa.systems)
                label = f"{human} k={k} from {wa.start} ({', '.join(wa.systems)})"
                for column, x, y in (
                    ("pearson", wa.pearson, wb.pearson),
                    ("spearman", wa.spearman, wb.spearman),
                ):
                    rows.append(_row("window", pub.WINDOW_SUBSET, metric, f"{column} {label}", y, x, tol,
                                     known="metric scores differ" if why else None, why=why, only_if_off=True))  # fmt: skip
    return rows


def sentence_rows(
    judgments: dict[str, list[PairwiseJudgment]], scores: dict[str, dict[str, dict[str, float]]]
) -> list[SeedaRow]:
    """Accuracy and tau per judgments file, subset and metric; the join of judged pairs and sentence
    scores is refused under 90% (:mod:`geceval.formats.joins`)."""
    rows = []
    for g, pairs in judgments.items():
        for metric, per in scores.items():
            joins.require_share(
                joins.pair_join(pairs, per, exclude=()), where=f"{metric} / judgments_{g}.xml"
            )
        for subset, name in pub.SUBSETS.items():
            chosen = m24.judgments_in(pairs, m24.subset_members(name, pub.SYSTEMS, pub.TAGS))
            for metric, per in scores.items():
                a = sentence_agreement(chosen, per, exclude=())
                why = f"{a.concordant + a.discordant} pairs ranked apart; the release has no sentence-level figures"
                for column, value in (("accuracy", a.accuracy), ("tau", a.tau)):
                    rows.append(_row("sentence", subset, metric, f"{column} {g}", None, value, None, why=why))
    return rows


def seeda_rows(data: Path, references: Path, *, runs: int = 1000, seed: int = 0) -> list[SeedaRow]:
    """Every cell of ``reproduce seeda2024`` (module docstring)."""
    release, refs = read_release(data, references)
    ours_human = human_scores(release.judgments, runs=runs, seed=seed)
    system, sentence = metric_scores(release.outputs, refs)
    metric_table = metric_rows(system)
    return (
        human_rows(ours_human, release.human)
        + metric_table
        + system_rows(system, release.human, metric_table)
        + window_rows(system, release.human, metric_table)
        + sentence_rows(release.judgments, sentence)
    )


# --------------------------------------------------------------------------- printing
