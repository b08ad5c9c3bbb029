"""``reproduce sakaguchi2016``: Sakaguchi et al. 2016 Table 4 from the released rewrites.

Computed by :func:`geceval.sakaguchi2016.table4` directly (no database: the
table compares text files). One row per published cell and measure, with its
unit, the published value, ours and the difference; a cell is within
tolerance when ours rounds to the printed value (one decimal).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from geceval.sakaguchi2016 import table4

UNITS = {
    "identical": "% of sentences",
    "sTER": "edits per sentence",
    "TER x 100": "edits per 100 tokens",
}
HOW = (
    "sTER = mean over sentences of the number of TER edits (insertion, deletion, substitution, "
    "a phrase shift counting one; case-insensitive, as tercom by default) that turn annotator 2's "
    "correction into annotator 1's, not divided by the length (Sakaguchi et al. 2016, Section 3.2); "
    "TER x 100 = sacrebleu's case-sensitive sentence TER x 100, shown for comparison, not in the paper. "
    "The 34 sentences of reassess-gec's merged_ids are left out, as in the paper."
)


@dataclass(frozen=True)
class Table4Row:
    cell: str
    measure: str  # identical | sTER | TER x 100
    unit: str
    published: float | None
    ours: float

    @property
    def ok(self) -> bool | None:
        return None if self.published is None else round(self.ours, 1) == self.published

    def as_json(self) -> dict:
        return {
            "study": "sakaguchi2016",
            "table": "4",
            "cell": self.cell,
            "measure": self.measure,
            "unit": self.unit,
            "published": self.published,
            "ours": self.ours,
            "difference": None if self.published is None else self.ours - self.published,
            "ok": self.ok,
        }


def table4_rows(data: Path) -> list[Table4Row]:
    """``data``: a folder laid out like ../shared/data (reassess-gec/, grammaticality-metrics/)."""
    rows = []
    for c in table4(data):
        rows.append(
            Table4Row(c.cell, "identical", UNITS["identical"], c.published_pct_identical, c.pct_identical)
        )
        rows.append(Table4Row(c.cell, "sTER", UNITS["sTER"], c.published_ster, c.mean_ster))
        rows.append(Table4Row(c.cell, "TER x 100", UNITS["TER x 100"], None, c.mean_ter_x100))
    return rows


def format_table4(rows: list[Table4Row]) -> str:
    header = ("cell", "measure", "unit", "published", "ours", "difference", "ok")
    cells = [header]
    for r in rows:
        cells.append(
            (
                r.cell,
                r.measure,
                r.unit,
                "-" if r.published is None else f"{r.published:.1f}",
                f"{r.ours:.3f}",
                "-" if r.published is None else f"{r.ours - r.published:+.3f}",
                "-" if r.ok is None else ("ok" if r.ok else "FAIL"),
            )
        )
    widths = [max(len(row[k]) for row in cells) for k in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells)
