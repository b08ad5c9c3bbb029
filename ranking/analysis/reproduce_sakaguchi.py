"""``reproduce sakaguchi2016``: Sakaguchi et al. 2016 Tables 4 and 7 from the released files.

Computed by :func:`geceval.papers.sakaguchi2016.table4` and :func:`geceval.papers.sakaguchi2016_table7.table7`
directly (no database: the tables compare text files and MTurk exports). One row per published
cell and measure, with its unit, the published value, ours and the difference; a cell is within
tolerance when ours rounds to the printed value (Table 4: one decimal; Table 7: within half a unit
of the printed second decimal). A cell outside it carries the reason in ``REASONS`` (with its
evidence) or fails the command.

``skip_merged`` (``--skip-merged``) leaves out the 34 sentences of reassess-gec's ``merged_ids``
in every table. The paper did so for Table 4 (and the annotations of Tables 5 and 6: §3, "we
skipped these sentences in our analysis and experiments"), not for Table 7, whose 294 judged
sentences include 8 merged ones (its "588 system rankings yield 26,265 pairwise judgments",
which only all 294 give); each table's rows say so when the switch departs from the paper.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from geceval.papers.sakaguchi2016 import table4
from geceval.papers.sakaguchi2016_table6 import COMPUTED, table6
from geceval.papers.sakaguchi2016_table7 import table7
from ranking.analysis.reproduce_reasons import SAKAGUCHI_MERGED_TABLE4 as MERGED_TABLE4
from ranking.analysis.reproduce_reasons import SAKAGUCHI_MERGED_TABLE7 as MERGED_TABLE7
from ranking.analysis.reproduce_reasons import SAKAGUCHI_REASONS as REASONS
from ranking.analysis.reproduce_reasons import SAKAGUCHI_TABLE6_TRIED as TABLE6_TRIED
from ranking.analysis.reproduce_reasons import SAKAGUCHI_UNEXPLAINED as UNEXPLAINED

UNITS = {
    "identical": "% of sentences",
    "sTER": "edits per sentence",
    "TER x 100": "edits per 100 tokens",
    "kappa": "Cohen's kappa",
    "weighted kappa": "quadratic-weighted kappa",
    "rho": "Spearman's rho",
    "r": "Pearson's r",
}
TABLE6_METRICS: tuple[str, ...] = COMPUTED
"""Table 6's metrics the command computes: all four. I-measure joined them once the scorer remembered
the alignments it had solved (issue 43): its 91 -nomix scores took about 20 minutes before, 47 CPU-s
after (2026-11-27, docs/reproducing-papers.md)."""

HOW = (
    "sTER = mean over sentences of the number of TER edits (insertion, deletion, substitution, "
    "a phrase shift counting one; case-insensitive, as tercom by default) that turn annotator 2's "
    "correction into annotator 1's, not divided by the length (Sakaguchi et al. 2016, Section 3.2); "
    "TER x 100 = sacrebleu's case-sensitive sentence TER x 100, shown for comparison, not in the paper. "
    "The 34 sentences of reassess-gec's merged_ids are left out, as in the paper."
)
HOW_ALL = HOW.replace(
    "are left out, as in the paper.", "are kept (no --skip-merged); the paper left them out."
)
HOW7 = (
    "kappa over the pairs of candidates as shown (a candidate standing for systems with identical outputs "
    "is one; geceval.human.agreement unit 'shown'), pooled over every pair of judges who labelled the same pair "
    "of candidates of the same sentence. Non-experts: reassess-gec/inter_annotator_agreements/Ctrl_merged.csv "
    "(588 approved MTurk rankings). Experts: Grundkiewicz et al. 2015's data/judgments.xml under "
    "grammatical-evaluation/data/ (src-id 0-based) when present; gec-ranking's judges (Napoles et al. 2015) "
    "are shown for comparison only."
)


@dataclass(frozen=True)
class Table4Row:
    cell: str
    measure: str  # identical | sTER | TER x 100
    unit: str
    published: float | None
    ours: float | None
    why: str = ""
    table: str = "4"
    tried: str = ""  # what was tried on a cell outside tolerance for no known reason

    @property
    def ok(self) -> bool | None:
        if self.published is None or self.ours is None:
            return None
        if self.table == "4":
            return round(self.ours, 1) == self.published
        if self.table == "6":  # printed to 3 decimals
            return abs(self.ours - self.published) <= 0.0005 + 1e-12
        return abs(self.ours - self.published) <= 0.005 + 1e-12

    @property
    def failed(self) -> bool:
        """Outside tolerance with no reason given (the command exits 1)."""
        return self.ok is False and not self.why

    def as_json(self) -> dict:
        out = {
            "study": "sakaguchi2016",
            "table": self.table,
            "cell": self.cell,
            "measure": self.measure,
            "unit": self.unit,
            "published": self.published,
            "ours": self.ours,
            "difference": None if self.published is None or self.ours is None else self.ours - self.published,
            "ok": self.ok,
        }
        if self.why:
            out["known"] = self.ok is not True
            out["why"] = self.why
        if self.tried:
            out["known"] = False
            out["tried"] = self.tried
        return out


def _reason(row: Table4Row) -> Table4Row:
    """A cell outside tolerance gets its reason, or what was tried when none is known."""
    if row.ok is not False:
        return row
    key = (row.table, row.cell, row.measure)
    return replace(row, why=REASONS.get(key, ""), tried=UNEXPLAINED.get(key, ""))


def table4_rows(data: Path, *, skip_merged: bool = True) -> list[Table4Row]:
    """``data``: a folder laid out like ../shared/data (reassess-gec/, grammaticality-metrics/)."""
    rows = []
    why = "" if skip_merged else MERGED_TABLE4
    for c in table4(data, skip_merged=skip_merged):
        ident = Table4Row(c.cell, "identical", UNITS["identical"], c.published_pct_identical, c.pct_identical)
        ster = Table4Row(c.cell, "sTER", UNITS["sTER"], c.published_ster, c.mean_ster)
        rows += [
            Table4Row(r.cell, r.measure, r.unit, r.published, r.ours, why if r.ok is False else "")
            for r in (ident, ster)
        ]
        rows.append(Table4Row(c.cell, "TER x 100", UNITS["TER x 100"], None, c.mean_ter_x100))
    return rows


def table7_rows(data: Path, *, skip_merged: bool = False) -> list[Table4Row]:
    """Table 7 (kappa, weighted kappa per row); a row whose file is absent has ``ours`` None and says why."""
    rows = []
    for r in table7(data, skip_merged=skip_merged):
        for k, measure in enumerate(("kappa", "weighted kappa")):
            ours = r.kappa if measure == "kappa" else r.weighted_kappa
            published = None if r.published is None else r.published[k]
            row = _reason(Table4Row(r.row, measure, UNITS[measure], published, ours, table="7"))
            if r.missing:
                row = Table4Row(r.row, measure, row.unit, published, None, f"not computed: {r.missing}", "7")
            elif skip_merged and row.ok is False and not row.tried:
                row = replace(row, why=MERGED_TABLE7)
            rows.append(row)
    return rows


def table6_rows(data: Path, *, skip_merged: bool = False) -> list[Table4Row]:
    """Table 6: rho and r per (reference set, metric); metrics not computed say so."""
    rows = []
    for c in table6(data, skip_merged=skip_merged, metrics=TABLE6_METRICS):
        for k, measure in enumerate(("rho", "r")):
            ours = c.rho if measure == "rho" else c.r
            row = Table4Row(
                f"{c.reference_set} {c.metric}", measure, UNITS[measure], c.published[k], ours, table="6"
            )
            if ours is None:
                row = replace(row, why="not computed in this run (left out of TABLE6_METRICS)")
            elif row.ok is False:
                row = replace(row, tried=TABLE6_TRIED[c.metric])
            rows.append(row)
    return rows
