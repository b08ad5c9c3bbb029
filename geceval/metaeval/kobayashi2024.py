"""Meta-evaluation as Kobayashi, Mita and Komachi (2024, "Revisiting Meta-evaluation for
Grammatical Error Correction", TACL) do it, beside the classic tables of :mod:`geceval.metaeval.correlation`.

- System tags, set by the researcher: ``classic`` (a GEC system of the kind the 2014-2019 papers
  ranked), ``fluent`` (fluency references, LLM rewrites), ``input`` (the unchanged source). A
  system may carry several tags or none.
- Named subsets of systems (:data:`SUBSETS`): ``classic``, ``classic+fluent`` and ``all``, each
  without or with ``+input``. ``classic`` holds the systems tagged classic; ``classic+fluent``
  those tagged classic or fluent; ``all`` every system (tagged or not) except those tagged
  input; a ``+input`` subset adds the systems tagged input. A system tagged both input and
  classic is in ``classic``: tags are read as "is one of these", and input only removes a system
  from ``all``.
- System level: Pearson and Spearman over a subset (:func:`subset_correlations`, using
  :func:`geceval.metaeval.correlation.system_correlations`).
- Window analysis (:func:`window_correlations`): the systems sorted by human score, best first
  (ties in the human score keep name order), and for every run of ``k`` adjacent systems the
  Pearson and Spearman correlation within it; window ``i`` starts at human rank ``i`` (1-based).
  It shows whether a metric still orders the close, strong systems, which one correlation over
  all systems hides.
- Sentence level: :func:`geceval.metaeval.correlation.sentence_agreement` already is the WMT tau variant
  (human ties left out, a metric tie discordant) and pairwise accuracy C / (C + D); here the
  judgments can be restricted to a subset (:func:`judgments_in`: both systems of a pair in it).
- Imported scores (:func:`read_system_scores`, :func:`read_sentence_scores`): a metric run
  elsewhere (SOME, IMPARA, PT-M2, ...) as CSV, TSV or JSON, meta-evaluated like ours.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from geceval.errors import GecInputError
from geceval.formats.inputs import Source
from geceval.formats.stream import iter_bytes, iter_lines, source_name
from geceval.human.agreement import PairwiseLike
from geceval.metaeval.correlation import (
    Correlations,
    SentenceAgreement,
    sentence_agreement,
    system_correlations,
)

TAGS: tuple[str, ...] = ("classic", "fluent", "input")
SUBSETS: dict[str, tuple[frozenset[str] | None, bool]] = {
    "classic": (frozenset({"classic"}), False),
    "classic+input": (frozenset({"classic"}), True),
    "classic+fluent": (frozenset({"classic", "fluent"}), False),
    "classic+fluent+input": (frozenset({"classic", "fluent"}), True),
    "all": (None, False),
    "all+input": (None, True),
}
"""Subset name -> (tags a system needs one of, or None for every system; whether ``input``
systems are added)."""

DEFAULT_WINDOW = 4


# --------------------------------------------------------------------------- tags and subsets


def parse_tags(text: str, *, where: str = "tags") -> dict[str, frozenset[str]]:
    """``SYSTEM<sep>TAG[+TAG...]`` lines (sep: tab, comma or spaces; ``#`` comments, an optional
    ``system,tags`` header), or a JSON object ``{"SYSTEM": ["tag", ...]}``."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise GecInputError(f"not valid JSON: {exc.msg}", path=where) from None
        items = [(str(k), v if isinstance(v, list) else [v]) for k, v in data.items()]
        return {name: _check_tags([str(t) for t in tags], where, name) for name, tags in items}
    out: dict[str, frozenset[str]] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.replace("\t", ",").split(",") if ("\t" in line or "," in line) else line.split(None, 1)
        if len(parts) < 2:
            raise GecInputError("expected a system name and its tags", path=where, line=n)
        name, tag_text = parts[0].strip(), ",".join(parts[1:])
        if n == 1 and name.lower() == "system":
            continue
        tags = [t for t in tag_text.replace("+", " ").replace(",", " ").split() if t]
        if name in out:
            raise GecInputError(f"system {name!r} listed twice", path=where, line=n)
        out[name] = _check_tags(tags, where, name, n)
    return out


def _check_tags(tags: list[str], where: str, name: str, line: int | None = None) -> frozenset[str]:
    bad = [t for t in tags if t.lower() not in TAGS]
    if bad:
        raise GecInputError(
            f"system {name!r}: unknown tag {bad[0]!r} (tags are {', '.join(TAGS)})", path=where, line=line
        )
    return frozenset(t.lower() for t in tags)


def subset_members(subset: str, systems: Iterable[str], tags: Mapping[str, frozenset[str]]) -> list[str]:
    """The systems of ``systems`` in the named subset (sorted)."""
    if subset not in SUBSETS:
        raise GecInputError(f"unknown subset {subset!r}; choose from {', '.join(SUBSETS)}")
    need, with_input = SUBSETS[subset]
    out = []
    for s in systems:
        t = tags.get(s, frozenset())
        if need is None:
            member = "input" not in t or with_input
        else:
            member = bool(t & need) or (with_input and "input" in t)
        if member:
            out.append(s)
    return sorted(out)


def subset_correlations(
    metric: Mapping[str, float],
    human: Mapping[str, float],
    tags: Mapping[str, frozenset[str]],
    subset: str,
    *,
    exclude: Iterable[str] = (),
) -> Correlations:
    members = set(subset_members(subset, set(metric) | set(human), tags))
    return system_correlations(
        {s: v for s, v in metric.items() if s in members},
        {s: v for s, v in human.items() if s in members},
        exclude=exclude,
    )


# --------------------------------------------------------------------------- windows


@dataclass
class Window:
    start: int
    """1-based human rank of the window's first (best) system."""
    systems: list[str]
    pearson: float
    spearman: float


def human_order(human: Mapping[str, float], systems: Iterable[str]) -> list[str]:
    """Best first; equal human scores in name order."""
    return sorted(systems, key=lambda s: (-human[s], s))


def window_correlations(
    metric: Mapping[str, float], human: Mapping[str, float], systems: Iterable[str], k: int = DEFAULT_WINDOW
) -> list[Window]:
    """Pearson and Spearman within every window of ``k`` adjacent systems in human order
    (NaN where either side is constant within the window)."""
    if k < 3:
        raise GecInputError("a window needs at least 3 systems (--window K with K >= 3)")
    order = human_order(human, [s for s in systems if s in metric and s in human])
    out = []
    for i in range(len(order) - k + 1):
        names = order[i : i + k]
        x = np.array([metric[s] for s in names], dtype=float)
        y = np.array([human[s] for s in names], dtype=float)
        p = r = math.nan
        if np.ptp(x) > 0 and np.ptp(y) > 0:
            p = float(stats.pearsonr(x, y)[0])
            r = float(stats.spearmanr(x, y)[0])
        out.append(Window(i + 1, names, p, r))
    return out


# --------------------------------------------------------------------------- sentence level


def judgments_in(judgments: Iterable[PairwiseLike], members: Iterable[str]) -> list[PairwiseLike]:
    keep = set(members)
    return [j for j in judgments if j.sys1 in keep and j.sys2 in keep]


PAIR_COUNT_FIELDS = ("concordant", "discordant", "metric_ties", "human_ties", "missing")


def sentence_pair_counts(
    judgments: Iterable[PairwiseLike],
    metric_scores: Mapping[str, Mapping[str, float]],
    *,
    exclude: Iterable[str] = (),
) -> list[list]:
    """:func:`geceval.metaeval.correlation.sentence_agreement`'s counts split by the two systems judged:
    rows ``[system a, system b, *PAIR_COUNT_FIELDS]`` (a < b), so that the agreement over any
    subset of systems is a sum (:func:`agreement_from_pair_counts`) and a page can show every
    subset without the sentence scores."""
    groups: dict[tuple[str, str], list[PairwiseLike]] = {}
    for j in judgments:
        groups.setdefault((min(j.sys1, j.sys2), max(j.sys1, j.sys2)), []).append(j)
    exclude = list(exclude)
    rows = []
    for (a, b), chosen in sorted(groups.items()):
        r = sentence_agreement(chosen, metric_scores, exclude=exclude)
        counts = [r.concordant, r.discordant, r.metric_ties, r.human_ties, r.missing]
        if any(counts):
            rows.append([a, b, *counts])
    return rows


def agreement_from_pair_counts(
    rows: Iterable[Sequence], members: Iterable[str] | None = None
) -> SentenceAgreement:
    """The sentence-level agreement of the judgments whose two systems are both in ``members``
    (every row when None), from :func:`sentence_pair_counts` rows."""
    keep = None if members is None else set(members)
    c = d = ties = human_ties = missing = 0
    for a, b, *counts in rows:
        if keep is None or (a in keep and b in keep):
            c, d, ties, human_ties, missing = (
                x + int(y) for x, y in zip((c, d, ties, human_ties, missing), counts)
            )
    total = c + d
    return SentenceAgreement(
        c,
        d,
        ties,
        human_ties,
        missing,
        (c - d) / total if total else math.nan,
        c / total if total else math.nan,
    )


# --------------------------------------------------------------------------- imported scores
#
# A score file is read as it streams (issue 36): a CSV or TSV a line at a time through
# ``geceval.formats.stream.iter_lines`` (bytes after decompression, lines and line length counted as
# they are read), its scores handed on one by one; only the JSON forms are parsed whole, so they have
# their own, smaller bound (``ScoreLimits.json_bytes``): a JSON text costs up to ~25 times its size
# as Python objects (8 MB of ``[{},{},...]``: +210 MB), a CSV row nothing once it is read.

CHECK_ROWS = 1 << 16
"""Rows between two calls of ``ScoreLimits.check`` (the caller's memory guard)."""


@dataclass(frozen=True)
class ScoreLimits:
    """What one score file may hold; None is no limit (``bytes``: ``DEFAULT_LIMIT``)."""

    bytes: int | None = None
    """after decompression"""
    lines: int | None = None
    """of a CSV or TSV"""
    line_chars: int | None = None
    json_bytes: int | None = None
    """a JSON file, parsed whole, after decompression (None: ``bytes``)"""
    scores: int | None = None
    """scores in the file, counted as they are read"""
    check: Callable[[int], None] | None = None
    """called every ``CHECK_ROWS`` rows with the line or record reached (a memory guard may raise)"""


@dataclass
class ScoreRows:
    """A score file opened: its name, its level and its scores, read as they are iterated:
    ``(system, item or None, score, where)``, each score a finite float."""

    path: str
    level: str
    rows: Iterator[tuple[str, str | None, float, str]]


_BOM = "\ufeff"


def _first_byte(source: Source, path: str, limits: ScoreLimits) -> bytes:
    """The first byte that is not white space (b"" for an empty or blank file), read as it streams."""
    for chunk in iter_bytes(source, limit=limits.bytes, name=path):
        text = chunk.lstrip()
        if text.startswith(_BOM.encode()):
            text = text[3:].lstrip()
        if text:
            return text[:1]
    return b""


def score_rows(
    source: Source, *, level: str | None = None, limits: ScoreLimits | None = None, name: str | None = None
) -> ScoreRows:
    """Open a score file and read its header (or, for JSON, the whole file): its level is ``level``
    if given ("system" or "sentence"), else read from its shape (:func:`read_scores`); ``name``
    names it in messages (default: the source's own name)."""
    limits = limits or ScoreLimits()
    path = source_name(source, name)
    if _first_byte(source, path, limits) in (b"[", b"{"):
        data = _json_whole(source, path, limits)
        found = level or _json_level(data)
        rows = _json_sentence_rows(path, data) if found == "sentence" else _json_system_rows(path, data)
    else:
        header, numbered = _table_start(source, path, limits)
        found = level or ("sentence" if any(name in header for name in _ITEM) else "system")
        rows = _table_rows(path, header, numbered, found)
    return ScoreRows(path, found, _bounded(rows, path, limits))


def _bounded(
    rows: Iterator[tuple[str, str | None, float, str]], path: str, limits: ScoreLimits
) -> Iterator[tuple[str, str | None, float, str]]:
    for n, row in enumerate(rows, start=1):
        if limits.scores is not None and n > limits.scores:
            raise GecInputError(f"{row[3]}: the file holds more than {limits.scores} scores", path=path)
        if limits.check is not None and not n % CHECK_ROWS:
            limits.check(n)
        yield row


def _json_whole(source: Source, path: str, limits: ScoreLimits) -> Any:
    bound = limits.json_bytes if limits.json_bytes is not None else limits.bytes
    held = bytearray()
    for chunk in iter_bytes(source, limit=limits.bytes, name=path):
        held += chunk
        if bound is not None and len(held) > bound:
            raise GecInputError(
                f"a JSON score file is read whole: at most {bound} bytes (after decompression); "
                "give a larger file as CSV or TSV, which is read line by line",
                path=path,
            )
    try:
        text = held.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise GecInputError("not UTF-8 text", path=path) from None
    del held
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise GecInputError(f"not valid JSON: {exc.msg}", path=path) from None
    except RecursionError:
        raise GecInputError("not valid JSON: nested too deeply", path=path) from None


def _json_level(data: Any) -> str:
    if isinstance(data, dict):
        return "sentence" if any(isinstance(v, list | dict) for v in data.values()) else "system"
    if isinstance(data, list):
        return "sentence" if any(isinstance(r, dict) and "sentences" in r for r in data) else "system"
    return "system"


def _table_start(
    source: Source, path: str, limits: ScoreLimits
) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """The header (lower case) and the numbered non-blank rows after it, as they stream."""
    lines = iter_lines(
        source,
        name=path,
        limit=limits.bytes,
        max_lines=limits.lines,
        max_line_chars=limits.line_chars,
        allow_empty=True,
    )
    skipped = 0
    first = None
    for line in lines:
        if skipped == 0 and line.startswith(_BOM):
            line = line[1:]
        if line.strip():
            first = line
            break
        skipped += 1
    if first is None:
        raise GecInputError("empty file", path=path)
    dialect = "excel-tab" if "\t" in first else "excel"
    reader = csv.reader(_chain_line(first, lines), dialect=dialect)

    def numbered() -> Iterator[tuple[int, list[str]]]:
        try:
            for row in reader:
                if any(c.strip() for c in row):
                    yield skipped + reader.line_num, row
        except csv.Error as exc:
            raise GecInputError(f"line {skipped + reader.line_num}: {exc}", path=path) from None

    rows = numbered()
    _n, header = next(rows)
    return [h.strip().lower() for h in header], rows


def _chain_line(first: str, rest: Iterator[str]) -> Iterator[str]:
    yield first
    yield from rest


def _header_col(header: list[str], names: Sequence[str], path: str) -> int:
    for name in names:
        if name in header:
            return header.index(name)
    raise GecInputError(f"no column named {' or '.join(names)} in the header", path=path)


def _table_rows(
    path: str, header: list[str], numbered: Iterator[tuple[int, list[str]]], level: str
) -> Iterator[tuple[str, str | None, float, str]]:
    cs, cv = _header_col(header, _SYSTEM, path), _header_col(header, _SCORE, path)
    if level == "sentence":
        ci = _header_col(header, _ITEM, path)
        for n, r in numbered:
            if len(r) <= max(cs, ci, cv):
                raise GecInputError(f"line {n}: too few cells", path=path)
            yield _row(path, r[cs].strip(), r[ci].strip(), r[cv], f"line {n}")
        return
    for n, r in numbered:
        if len(r) > max(cs, cv):
            yield _row(path, r[cs].strip(), None, r[cv], f"line {n}")


def _row(
    path: str, system: str, item: str | None, value: Any, where: str
) -> tuple[str, str | None, float, str]:
    if not system:
        raise GecInputError(f"{where}: empty system name", path=path)
    return system, item, _num(value, path, where), where


def _num(value: Any, path: str, where: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise GecInputError(f"{where}: score {value!r} is not a number", path=path) from None
    if not math.isfinite(x):
        raise GecInputError(f"{where}: score {value!r} is not finite", path=path)
    return x


_SYSTEM = ("system", "name", "system_id", "systemid")
_ITEM = ("item", "sentence", "segment", "segment_id", "segmentid", "sentence_id", "id")
_SCORE = ("score", "value")


def _json_system_rows(path: str, data: Any) -> Iterator[tuple[str, str | None, float, str]]:
    if isinstance(data, dict):
        for k, v in data.items():
            yield _row(path, str(k), None, v, f"system {k!r}")
        return
    if not isinstance(data, list):
        raise GecInputError("expected a JSON object or list", path=path)
    for n, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise GecInputError(f"record {n + 1} is not an object", path=path)
        name = rec.get("system", rec.get("hyp"))
        yield _row(path, _system_name(name), None, rec.get("score"), f"record {n + 1}")


def _json_sentence_rows(path: str, data: Any) -> Iterator[tuple[str, str | None, float, str]]:
    if isinstance(data, dict):
        for system, per in data.items():
            if isinstance(per, list):
                values: Iterable[tuple[Any, Any]] = enumerate(per)
            elif isinstance(per, dict):
                values = per.items()
            else:
                raise GecInputError(f"system {system!r}: expected a list or an object of scores", path=path)
            for i, v in values:
                yield _row(path, str(system), str(i), v, f"system {system!r} item {i}")
        return
    if not isinstance(data, list):
        raise GecInputError("expected a JSON object or list", path=path)
    for n, rec in enumerate(data):
        if not isinstance(rec, dict) or not isinstance(rec.get("sentences"), list):
            raise GecInputError(f'record {n + 1} has no "sentences" list (use score --sentence)', path=path)
        system = _system_name(rec.get("system", rec.get("hyp")))
        for i, s in enumerate(rec["sentences"]):
            value = s
            if isinstance(s, dict):
                key = next((k for k in ("f", "score", "gleu") if k in s), None)
                if key is None:
                    raise GecInputError(f"record {n + 1} sentence {i}: no f or score value", path=path)
                value = s[key]
            yield _row(path, system, str(i), value, f"record {n + 1} sentence {i}")


def _system_name(value: Any) -> str:
    """A system named by a file path (``score --json``'s ``hyp``) is named by its file name."""
    text = str(value or "").strip()
    return text.replace("\\", "/").rsplit("/", 1)[-1]


def collect_scores(opened: ScoreRows) -> dict[str, Any]:
    """system -> score, or system -> item -> score, from :func:`score_rows`; a system (or a system's
    item) given twice is refused."""
    out: dict[str, Any] = {}
    for system, item, value, where in opened.rows:
        if item is None:
            if system in out:
                raise GecInputError(f"{where}: system {system!r} listed twice", path=opened.path)
            out[system] = value
            continue
        per = out.setdefault(system, {})
        if item in per:
            raise GecInputError(f"{where}: system {system!r} item {item} listed twice", path=opened.path)
        per[item] = value
    return out


def read_system_scores(source: Source, *, limits: ScoreLimits | None = None) -> dict[str, float]:
    """System-level scores: CSV/TSV with ``system`` and ``score`` columns, a JSON object
    ``{"SYSTEM": score}``, or a JSON list of ``{"system", "score"}`` records (our ``score
    --json`` output also fits: its ``hyp`` is the system)."""
    return collect_scores(score_rows(source, level="system", limits=limits))


def read_sentence_scores(source: Source, *, limits: ScoreLimits | None = None) -> dict[str, dict[str, float]]:
    """Sentence-level scores, system -> item -> score: CSV/TSV with ``system``, ``item`` (0-based
    sentence index or the judgments' item id) and ``score`` columns; a JSON object
    ``{"SYSTEM": {"ITEM": score}}`` or ``{"SYSTEM": [score per sentence]}``; or our ``score --json
    --sentence`` output (``hyp`` names the system by file name; each sentence's ``f``, ``score``
    or ``gleu`` value, in line order from item 0)."""
    return collect_scores(score_rows(source, level="sentence", limits=limits))


def read_scores(source: Source, *, limits: ScoreLimits | None = None) -> tuple[str, dict[str, Any]]:
    """("system", system -> score) or ("sentence", system -> item -> score), whichever the file
    holds: a table with an item column, a JSON object of lists or objects, or records with
    ``sentences`` are sentence-level; every other form of :func:`read_system_scores` is system-level."""
    opened = score_rows(source, limits=limits)
    return opened.level, collect_scores(opened)
