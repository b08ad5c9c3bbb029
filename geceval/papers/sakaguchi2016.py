"""Sakaguchi et al. 2016 ("Reassessing the goals of GEC"), Table 4, from the released rewrites.

Table 4 compares two annotators' corrections of the CoNLL-14 test set: the
percentage of sentences they corrected identically, and the mean sTER between
them (edits per sentence, :func:`geceval.metrics.sacre.ster`). Inputs, under a folder
laid out like ``../shared/data``:

- ``reassess-gec/annotations/``: expert (E) and non-expert (N) fluency and
  minimal rewrites, two annotators each (``..._fluencyA/B``, ``..._minimalA/B``),
  and ``merged_ids``: the 34 sentences (1-based lines) the paper "skipped ...
  in all annotation sets" (the annotations' README);
- ``grammaticality-metrics/references/NUCLEA`` and ``NUCLEB``: the two NUCLE
  annotators' corrected text.

"E v. N" is the mean over the four cross pairs (each E annotator against each
N annotator): "where there were more than two annotators, statistics are over
the full pairwise set". In every pair the first file is the sTER reference;
the direction changes no printed figure (it moves the means by at most 0.006).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from geceval.errors import GecInputError
from geceval.formats.text import read_lines
from geceval.metaeval.edit_stats import PairStats, pair_stats

ANNOTATIONS = ("reassess-gec", "annotations")
REFERENCES = ("grammaticality-metrics", "references")
SETS = {
    "E fluency": ("expert_annotations/expert_fluency/expert_fluencyA", "expert_annotations/expert_fluency/expert_fluencyB"),
    "N fluency": ("turker_annotations/turkers_fluency/turker_fluencyA", "turker_annotations/turkers_fluency/turker_fluencyB"),
    "E minimal": ("expert_annotations/expert_minimal/expert_minimalA", "expert_annotations/expert_minimal/expert_minimalB"),
    "N minimal": ("turker_annotations/turkers_minimal/turker_minimalA", "turker_annotations/turkers_minimal/turker_minimalB"),
}  # fmt: skip
# (cell, % identical, sTER in edits per sentence), as printed in Table 4
PUBLISHED: tuple[tuple[str, float, float], ...] = (
    ("Fluency E1 v. E2", 15.3, 5.1),
    ("Fluency N1 v. N2", 5.9, 10.0),
    ("Fluency E v. N", 8.5, 7.9),
    ("Minimal E1 v. E2", 38.7, 1.7),
    ("Minimal N1 v. N2", 21.8, 2.9),
    ("Minimal E v. N", 25.9, 2.4),
    ("NUCLE A v. B", 18.8, 3.3),
)


@dataclass(frozen=True)
class Table4Cell:
    cell: str
    pairs: int  # annotator pairs averaged
    n: int  # sentences per pair (1312 - skipped)
    pct_identical: float  # 0..100
    mean_ster: float  # edits per sentence
    mean_ter_x100: float  # edits per 100 tokens of the reference annotator
    published_pct_identical: float
    published_ster: float


def read_skip_lines(path: str | Path) -> set[int]:
    """0-based indices from a file of 1-based line numbers (whitespace separated), as ``merged_ids``."""
    out = set()
    for k, word in enumerate(read_lines(path, allow_empty=True)):
        for token in word.split():
            if not token.isdigit() or int(token) < 1:
                raise GecInputError(f"{token!r} is not a 1-based line number", path=str(path), line=k + 1)
            out.add(int(token) - 1)
    return out


def _mean(stats: list[PairStats]) -> tuple[float, float, float]:
    k = len(stats)
    return (
        sum(s.pct_identical for s in stats) / k,
        sum(s.mean_ster for s in stats) / k,
        sum(s.mean_ter_x100 for s in stats) / k,
    )


def _paths(root: Path) -> dict[str, list[Path]]:
    ann = root.joinpath(*ANNOTATIONS)
    refs = root.joinpath(*REFERENCES)
    paths = {name: [ann / p for p in pair] for name, pair in SETS.items()}
    paths["NUCLE"] = [refs / f"NUCLE{x}" for x in "AB"]
    return paths


@lru_cache(maxsize=4)
def _cells(
    root: Path, skip_merged: bool, stamps: tuple
) -> dict[str, tuple[int, tuple[float, float, float], int]]:
    """Cell -> (pairs, (% identical, sTER, TER x 100), sentences); ``stamps`` keys the cache on the files."""
    texts = {name: [read_lines(p, allow_empty=True) for p in ps] for name, ps in _paths(root).items()}
    skip = read_skip_lines(root.joinpath(*ANNOTATIONS) / "merged_ids") if skip_merged else set()
    groups: dict[str, list[tuple[list[str], list[str]]]] = {}
    for kind in ("fluency", "minimal"):
        e, n = texts[f"E {kind}"], texts[f"N {kind}"]
        groups[f"{kind.capitalize()} E1 v. E2"] = [(e[0], e[1])]
        groups[f"{kind.capitalize()} N1 v. N2"] = [(n[0], n[1])]
        groups[f"{kind.capitalize()} E v. N"] = [(a, b) for a in e for b in n]
    groups["NUCLE A v. B"] = [(texts["NUCLE"][0], texts["NUCLE"][1])]
    out = {}
    for cell, pairs in groups.items():
        stats = [pair_stats(a, b, skip=skip) for a, b in pairs]
        out[cell] = (len(stats), _mean(stats), stats[0].n)
    return out


def table4(data: str | Path, *, skip_merged: bool = True) -> list[Table4Cell]:
    """The seven cells of Table 4 from the released rewrites under ``data`` (a ../shared/data root).

    The computation (about a CPU-minute: two sentence TERs per differing pair of lines) is cached
    per process on the files' paths, sizes and modification times.
    """
    root = Path(data).resolve()
    files = [p for ps in _paths(root).values() for p in ps]
    if skip_merged:
        files.append(root.joinpath(*ANNOTATIONS) / "merged_ids")
    stamps = tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files if p.exists())
    cells = _cells(root, skip_merged, stamps)
    out = []
    for cell, ident, ster in PUBLISHED:
        pairs, (pct, mean_ster, mean_ter), n = cells[cell]
        out.append(Table4Cell(cell, pairs, n, pct, mean_ster, mean_ter, ident, ster))
    return out
