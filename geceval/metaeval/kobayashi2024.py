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
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from geceval.errors import GecInputError
from geceval.formats.inputs import Source, read_input
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


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)


def _read_table(source: Source) -> tuple[str, Table | list[Any] | dict[str, Any]]:
    """(the name errors use, the parsed file)."""
    found = read_input(source)
    path = found.name
    try:
        text = found.data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise GecInputError("not UTF-8 text", path=path) from None
    if text.lstrip().startswith(("[", "{")):
        try:
            return path, json.loads(text)
        except json.JSONDecodeError as exc:
            raise GecInputError(f"not valid JSON: {exc.msg}", path=path) from None
    first = text.split("\n", 1)[0]
    dialect = "excel-tab" if "\t" in first else "excel"
    rows = [r for r in csv.reader(io.StringIO(text), dialect=dialect) if any(c.strip() for c in r)]
    if not rows:
        raise GecInputError("empty file", path=path)
    return path, Table([h.strip().lower() for h in rows[0]], rows[1:])


def _col(table: Table, names: Sequence[str], path: str) -> int:
    for name in names:
        if name in table.header:
            return table.header.index(name)
    raise GecInputError(f"no column named {' or '.join(names)} in the header", path=path)


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


def read_system_scores(source: Source) -> dict[str, float]:
    """System-level scores: CSV/TSV with ``system`` and ``score`` columns, a JSON object
    ``{"SYSTEM": score}``, or a JSON list of ``{"system", "score"}`` records (our ``score
    --json`` output also fits: its ``hyp`` is the system)."""
    return _system_scores(*_read_table(source))


def _system_scores(path: str, data: Table | list[Any] | dict[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    if isinstance(data, Table):
        cs, cv = _col(data, _SYSTEM, path), _col(data, _SCORE, path)
        pairs = [
            (r[cs].strip(), r[cv], f"line {n}")
            for n, r in enumerate(data.rows, start=2)
            if len(r) > max(cs, cv)
        ]
    elif isinstance(data, dict):
        pairs = [(str(k), v, f"system {k!r}") for k, v in data.items()]
    else:
        pairs = []
        for n, rec in enumerate(data):
            if not isinstance(rec, dict):
                raise GecInputError(f"record {n + 1} is not an object", path=path)
            name = rec.get("system", rec.get("hyp"))
            pairs.append((_system_name(name), rec.get("score"), f"record {n + 1}"))
    for name, value, where in pairs:
        if not name:
            raise GecInputError(f"{where}: empty system name", path=path)
        if name in out:
            raise GecInputError(f"{where}: system {name!r} listed twice", path=path)
        out[name] = _num(value, path, where)
    return out


def _system_name(value: Any) -> str:
    """A system named by a file path (``score --json``'s ``hyp``) is named by its file name."""
    text = str(value or "").strip()
    return text.replace("\\", "/").rsplit("/", 1)[-1]


def read_sentence_scores(source: Source) -> dict[str, dict[str, float]]:
    """Sentence-level scores, system -> item -> score: CSV/TSV with ``system``, ``item`` (0-based
    sentence index or the judgments' item id) and ``score`` columns; a JSON object
    ``{"SYSTEM": {"ITEM": score}}`` or ``{"SYSTEM": [score per sentence]}``; or our ``score --json
    --sentence`` output (``hyp`` names the system by file name; each sentence's ``f``, ``score``
    or ``gleu`` value, in line order from item 0)."""
    return _sentence_scores(*_read_table(source))


def _sentence_scores(path: str, data: Table | list[Any] | dict[str, Any]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}

    def put(system: str, item: str, value: Any, where: str) -> None:
        if not system:
            raise GecInputError(f"{where}: empty system name", path=path)
        per = out.setdefault(system, {})
        if item in per:
            raise GecInputError(f"{where}: system {system!r} item {item} listed twice", path=path)
        per[item] = _num(value, path, where)

    if isinstance(data, Table):
        cs, ci, cv = _col(data, _SYSTEM, path), _col(data, _ITEM, path), _col(data, _SCORE, path)
        for n, r in enumerate(data.rows, start=2):
            if len(r) <= max(cs, ci, cv):
                raise GecInputError(f"line {n}: too few cells", path=path)
            put(r[cs].strip(), r[ci].strip(), r[cv], f"line {n}")
    elif isinstance(data, dict):
        for system, per in data.items():
            values = (
                enumerate(per) if isinstance(per, list) else per.items() if isinstance(per, dict) else None
            )
            if values is None:
                raise GecInputError(f"system {system!r}: expected a list or an object of scores", path=path)
            if isinstance(per, list):
                for i, v in values:
                    put(str(system), str(i), v, f"system {system!r} item {i}")
            else:
                for i, v in values:
                    put(str(system), str(i), v, f"system {system!r} item {i}")
    else:
        for n, rec in enumerate(data):
            if not isinstance(rec, dict) or not isinstance(rec.get("sentences"), list):
                raise GecInputError(
                    f'record {n + 1} has no "sentences" list (use score --sentence)', path=path
                )
            system = _system_name(rec.get("system", rec.get("hyp")))
            for i, s in enumerate(rec["sentences"]):
                value = s
                if isinstance(s, dict):
                    key = next((k for k in ("f", "score", "gleu") if k in s), None)
                    if key is None:
                        raise GecInputError(f"record {n + 1} sentence {i}: no f or score value", path=path)
                    value = s[key]
                put(system, str(i), value, f"record {n + 1} sentence {i}")
    return out


def read_scores(source: Source) -> tuple[str, dict[str, Any]]:
    """("system", system -> score) or ("sentence", system -> item -> score), whichever the file
    holds: a table with an item column, a JSON object of lists or objects, or records with
    ``sentences`` are sentence-level; every other form of :func:`read_system_scores` is system-level."""
    path, data = _read_table(source)
    if isinstance(data, Table):
        sentence = any(name in data.header for name in _ITEM)
    elif isinstance(data, dict):
        sentence = any(isinstance(v, list | dict) for v in data.values())
    else:
        sentence = any(isinstance(r, dict) and "sentences" in r for r in data)
    if sentence:
        return "sentence", _sentence_scores(path, data)
    return "system", _system_scores(path, data)
