"""PRWS and GMEG score files: ratings (one per row), GMEG's segment-score and corpus-score CSVs.

The readers of :mod:`geceval.human.prws`'s statistics (Napoles et al. 2019, GMEG); the streaming
PRWS reader of the compact import (:mod:`geceval.formats.judgment_stream`) shares their columns.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence

from geceval.errors import GecInputError
from geceval.formats.inputs import Source
from geceval.formats.judgments import PrwsRating
from geceval.formats.text import open_text

Segments = dict[str, dict[str, float]]
"""system -> item -> segment score (mean of that output's ratings)."""

Rating = PrwsRating


def _open_csv(source: Source, limit: int | None = None) -> tuple[str, list[list[str]]]:
    path, text = open_text(source, limit=limit)
    with io.StringIO(text, newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        raise GecInputError("file is empty", path=path)
    return path, rows


def _float(text: str, path: str, line: int, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GecInputError(f"{what} {text!r} is not a number", path=path, line=line) from None
    if math.isnan(value) or math.isinf(value):
        raise GecInputError(f"{what} {text!r} is not a finite number", path=path, line=line)
    return value


def read_gmeg_segment_csv(source: Source, *, limit: int | None = None) -> Segments:
    """GMEG ``*-segment-scores.csv``: a header of system names, one row per sentence.

    Items are the 0-based sentence index as a string (``"0"`` = first line of
    the source), so they line up with the GMEG text files. Empty cell = not
    scored (absent from the result).
    """
    path, rows = _open_csv(source, limit)
    header = [h.strip() for h in rows[0]]
    if not header or any(not h for h in header):
        raise GecInputError("header must name every system column", path=path, line=1)
    if len(set(header)) != len(header):
        raise GecInputError("duplicate system name in header", path=path, line=1)
    out: Segments = {name: {} for name in header}
    for index, row in enumerate(rows[1:]):
        line = index + 2
        if len(row) != len(header):
            raise GecInputError(f"{len(row)} cells, header has {len(header)}", path=path, line=line)
        for name, cell in zip(header, row):
            if cell.strip():
                out[name][str(index)] = _float(cell, path, line, f"score of {name}")
    return out


def read_system_scores_csv(source: Source, *, limit: int | None = None) -> dict[str, float]:
    """A ``system,score`` CSV (GMEG ``*-corpus-scores.csv``; also meta-eval's inputs).

    Columns are found by header name (case-insensitive, any order; other
    columns ignored).
    """
    path, rows = _open_csv(source, limit)
    cols = _columns(rows[0], {"system": ("system", "name"), "score": ("score",)}, path)
    out: dict[str, float] = {}
    for index, row in enumerate(rows[1:]):
        line = index + 2
        if not any(c.strip() for c in row):
            continue
        if len(row) <= max(cols.values()):
            raise GecInputError("too few cells", path=path, line=line)
        name = row[cols["system"]].strip()
        if not name:
            raise GecInputError("empty system name", path=path, line=line)
        if name in out:
            raise GecInputError(f"system {name!r} listed twice", path=path, line=line)
        out[name] = _float(row[cols["score"]], path, line, "score")
    return out


read_gmeg_corpus_csv = read_system_scores_csv

_PRWS_COLUMNS = {
    "item": ("item", "segment", "segmentid", "segment_id", "sentence", "sentence_id", "itemid", "item_id"),
    "annotator": ("worker", "annotator", "judge", "workerid", "worker_id", "judgeid", "judge_id"),
    "system": ("system", "systemid", "system_id"),
    "score": ("score", "rating"),
}
_TRUE = {"1", "true", "yes", "y", "t"}
_FALSE = {"0", "false", "no", "n", "f", ""}


def _columns(header: Sequence[str], wanted: Mapping[str, Sequence[str]], path: str) -> dict[str, int]:
    norm = [h.strip().lower() for h in header]
    cols = {}
    for key, names in wanted.items():
        for name in names:
            if name in norm:
                cols[key] = norm.index(name)
                break
        else:
            raise GecInputError(f"no {key!r} column (looked for {', '.join(names)})", path=path, line=1)
    return cols


def read_prws_csv(source: Source, *, limit: int | None = None) -> list[Rating]:
    """One row per rating: item, worker, system, score[, meaning_changed].

    Columns by header name, case-insensitive, any order (aliases: item/segment
    /sentence, worker/annotator/judge, score/rating). ``meaning_changed`` is
    optional: 1/0, true/false, yes/no, empty = false.
    """
    path, rows = _open_csv(source, limit)
    cols = _columns(rows[0], _PRWS_COLUMNS, path)
    norm = [h.strip().lower() for h in rows[0]]
    mc_col = next((norm.index(n) for n in ("meaning_changed", "meaningchanged") if n in norm), None)
    needed = max([*cols.values(), mc_col or 0])
    out = []
    for index, row in enumerate(rows[1:]):
        line = index + 2
        if not any(c.strip() for c in row):
            continue
        if len(row) <= needed:
            raise GecInputError(f"{len(row)} cells, expected at least {needed + 1}", path=path, line=line)
        fields = {k: row[i].strip() for k, i in cols.items()}
        for key in ("item", "annotator", "system"):
            if not fields[key]:
                raise GecInputError(f"empty {key}", path=path, line=line)
        score = _float(fields["score"], path, line, "score")
        meaning = False
        if mc_col is not None:
            flag = row[mc_col].strip().lower()
            if flag not in _TRUE | _FALSE:
                raise GecInputError(f"meaning_changed {row[mc_col]!r} is not a yes/no", path=path, line=line)
            meaning = flag in _TRUE
        out.append(Rating(fields["item"], fields["annotator"], fields["system"], score, meaning))
    if not out:
        raise GecInputError("no ratings", path=path)
    return out
