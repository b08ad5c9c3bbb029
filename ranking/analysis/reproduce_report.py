"""One report shape for every ``reproduce`` study (issue 42): published | ours | difference | reason.

Each study computes its own rows (``reproduce.Row``, ``reproduce_gmeg.TableRow``,
``reproduce_sakaguchi.Table4Row``, ``reproduce_seeda.SeedaRow``); :func:`cells` turns any of them into
:class:`Cell`, and the command prints cells one way for every paper: text, ``--json`` or LaTeX.

JSON (``--json``): one list, one object per published cell, with exactly these keys for every study:
``study``, ``table``, ``where`` (the split and domain, subset or "" where a table has one part),
``row``, ``column`` (or measure), ``unit`` ("" when the paper gives none), ``published``, ``ours``,
``difference`` (ours - published; null unless both are numbers: ``published`` and ``ours`` are numbers,
null, or the printed text of a cell that is not one number, e.g. "0.162 (2,2)", a TrueSkill mu with its
rank range, or "yes"/"no" for a cluster boundary; a printed rank is a number), ``tolerance``
(null where a cell is shown, not compared), ``status`` and ``reason``. ``status`` is one of ``ok``
(within tolerance), ``explained`` (outside, with a reason in ``reason``), ``unexplained`` (outside;
``reason`` says what was tried), ``off`` (outside, nothing known) or ``shown`` (not compared: no
published figure, or one the study shows beside ours without checking it; ``reason`` says which).

The command exits 1 when a cell is ``unexplained`` or ``off`` (:func:`failed`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from ranking.analysis.exports import latex_escape

STATUSES = ("ok", "explained", "unexplained", "off", "shown")
FAILING = ("unexplained", "off")
JSON_KEYS = ("study", "table", "where", "row", "column", "unit", "published", "ours", "difference",
             "tolerance", "status", "reason")  # fmt: skip
"""The keys of every ``--json`` object, in order, for every study."""


@dataclass(frozen=True)
class Cell:
    study: str
    table: str
    where: str
    row: str
    column: str
    unit: str
    published: float | str | None
    ours: float | str | None
    tolerance: float | None
    status: str
    reason: str

    @property
    def difference(self) -> float | None:
        if not isinstance(self.published, float) or not isinstance(self.ours, float):
            return None
        return self.ours - self.published

    @property
    def failed(self) -> bool:
        return self.status in FAILING

    @property
    def name(self) -> str:
        return " ".join(x for x in (self.study, f"table {self.table}" if self.table else "", self.where,
                                    self.row, self.column) if x)  # fmt: skip

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["difference"] = self.difference
        for key in ("published", "ours", "difference", "tolerance"):
            if isinstance(out[key], float) and not math.isfinite(out[key]):
                out[key] = None
        return {k: out[k] for k in JSON_KEYS}


def _num(x: Any) -> float | None:
    if x is None or x == "":
        return None
    try:
        value = float(x)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _value(x: Any) -> float | str | None:
    """A printed figure: a number where it is one, else its text ("0.162 (2,2)": mu and rank range)."""
    number = _num(x)
    if number is not None or x is None or x == "":
        return number
    return str(x)


def _status(ok: bool | None, explained: bool, unexplained: bool) -> str:
    if ok is None:
        return "shown"
    if ok:
        return "ok"
    if explained:
        return "explained"
    return "unexplained" if unexplained else "off"


def cell_of(row: Any) -> Cell:
    """Any study's row as a :class:`Cell` (see the module docstring for the status rule)."""
    kind = type(row).__name__
    if kind == "TableRow":  # gmeg: ``known`` is the reason's label; "unexplained" is what was tried
        unexplained = row.known == "unexplained"
        explained = bool(row.known) and not unexplained
        reason = row.why or ""
        if row.known and not unexplained:
            reason = f"{row.known}: {reason}" if reason else row.known
        return Cell(row.study, row.table, f"{row.split} {row.domain}".strip(), row.row, row.column, "",
                    _num(row.published), _num(row.ours), row.tolerance,
                    _status(row.ok, explained, unexplained or bool(reason)), reason)  # fmt: skip
    if kind == "Table4Row":  # sakaguchi2016: ``why`` explains, ``tried`` is what was tried
        tolerance = {"4": 0.05, "6": 0.0005}.get(row.table, 0.005)
        if row.published is None:
            tolerance = None
        return Cell("sakaguchi2016", row.table, "", row.cell, row.measure, row.unit, _num(row.published),
                    _num(row.ours), tolerance, _status(row.ok, bool(row.why), bool(row.tried)),
                    row.why or row.tried)  # fmt: skip
    if kind == "SeedaRow":  # as gmeg: ``known`` "unexplained" marks what was tried
        unexplained = row.known == "unexplained"
        reason = row.why or ""
        if row.known and not unexplained:
            reason = f"{row.known}: {reason}" if reason else row.known
        return Cell("seeda2024", row.table, row.subset, row.row, row.column, "", _num(row.published),
                    _num(row.ours), row.tolerance, _status(row.ok, bool(row.known) and not unexplained,
                    unexplained), reason)  # fmt: skip
    if kind == "Row":  # reproduce.Row: gec-ranking, jfleg, conll14-metrics, napoles2015
        shown = "shown not checked" in row.note
        unexplained = row.note.startswith("unexplained")
        explained = row.note.startswith("explained")
        table, what = _table_of(row.what)
        return Cell(row.study, table, "", what, "", "", _value(row.reference), _value(row.ours), None,
                    "shown" if shown else _status(row.ok, explained, unexplained), row.note)  # fmt: skip
    raise TypeError(f"not a reproduce row: {kind}")


def _table_of(what: str) -> tuple[str, str]:
    """ "Table 1 judges 1 and 2 r" -> ("1", "judges 1 and 2 r"); other names keep no table."""
    if what.startswith("Table "):
        number, _sep, rest = what[len("Table ") :].partition(" ")
        return number, rest
    return "", what


def cells(rows: list[Any]) -> list[Cell]:
    return [cell_of(r) for r in rows]


def failed(report: list[Cell]) -> list[Cell]:
    return [c for c in report if c.failed]


def _fmt(x: float | str | None) -> str:
    if isinstance(x, str):
        return x
    return "-" if x is None else f"{x:.3f}"


def format_text(report: list[Cell]) -> str:
    """table | where | row | column | published | ours | difference | status, then each reason once,
    with the cells it applies to."""
    header = ("table", "where", "row", "column", "published", "ours", "difference", "status")
    lines_in = [header] + [
        (c.table, c.where, c.row, c.column + (f" ({c.unit})" if c.unit else ""), _fmt(c.published),
         _fmt(c.ours), "-" if c.difference is None else f"{c.difference:+.3f}", c.status)
        for c in report
    ]  # fmt: skip
    widths = [max(len(r[k]) for r in lines_in) for k in range(len(header))]
    lines = ["  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip() for r in lines_in]
    reasons: dict[tuple[str, str], list[str]] = {}
    for c in report:
        if c.reason:
            reasons.setdefault((c.status, c.reason), []).append(
                " ".join(x for x in (f"table {c.table}" if c.table else "", c.where, c.row, c.column) if x)
            )
    for (status, reason), names in reasons.items():
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        lines.append(f"  {status} ({shown}): {reason}")
    return "\n".join(lines)


def summary(report: list[Cell], seconds: float) -> str:
    count = {s: sum(1 for c in report if c.status == s) for s in STATUSES}
    compared = len(report) - count["shown"]
    return (
        f"{count['ok']} of {compared} compared cells within tolerance, {count['explained']} outside with a "
        f"stated reason, {count['unexplained']} outside and unexplained, {count['off']} outside with "
        f"nothing known; {count['shown']} shown, not compared ({seconds:.1f} s)"
    )


def format_latex(report: list[Cell]) -> str:
    """One ``longtable`` per study and table: where & row & column & published & ours & difference &
    status & reason."""
    out: list[str] = []
    for study, table in dict.fromkeys((c.study, c.table) for c in report):
        title = f"{study}, Table {table}" if table else study
        out += [
            r"\begin{longtable}{lllrrrll}",
            r"\toprule",
            rf"\multicolumn{{8}}{{l}}{{{latex_escape(title)}}} \\",
            r"Where & Row & Column & Published & Ours & Difference & Status & Reason \\",
            r"\midrule",
        ]
        for c in report:
            if (c.study, c.table) != (study, table):
                continue
            pub = "--" if c.published is None else latex_escape(_fmt(c.published))
            ours = "--" if c.ours is None else latex_escape(_fmt(c.ours))
            diff = "--" if c.difference is None else f"{c.difference:+.3f}"
            words = [latex_escape(x) for x in (c.where, c.row, c.column)]
            out.append(" & ".join([*words, pub, ours, diff, c.status, latex_escape(c.reason)]) + r" \\")
        out += [r"\bottomrule", r"\end{longtable}", ""]
    return "\n".join(out)
