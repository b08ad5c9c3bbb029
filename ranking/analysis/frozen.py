"""Binary frozen input of ranking runs: integer arrays in a numpy ``.npz`` archive (``RunInput.arrays``).

A run's chunks read the frozen pairs once per worker process. As JSON (lists of
lists) a million pairwise judgments take tens of seconds to decode; as arrays
they load in milliseconds. For a campaign in the compact imported form
(``ranking.models.imported``) the pairs are also built straight from the database rows
with numpy, in the order ``expand_pairwise`` gives (judgment by judgment, then
``combinations`` order), so the run sees the same pairs as from the full form.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Iterator

import numpy as np
from django.db import connection

from geceval.formats.judgments import PairwiseJudgment
from geceval.human.agreement import kappa_from_table
from geceval.human.pairs import PairData, prepare_indices
from ranking.analysis import compute
from ranking.analysis.models import ChunkPhase, RunChunk
from ranking.models import Campaign, ImportedEntry
from ranking.rankings import campaign_is_compact

_FIELDS = ("winner_loser", "offsets", "counts", "outcomes")


def pair_data_to_bytes(data: PairData) -> bytes:
    buffer = io.BytesIO()
    np.savez(
        buffer,
        systems=np.array(data.systems, dtype=str),
        judgments=np.array([data.judgments], dtype=np.int64),
        **{k: getattr(data, k) for k in _FIELDS},
    )
    return buffer.getvalue()


def pair_data_from_bytes(blob: bytes | memoryview) -> PairData:
    with np.load(io.BytesIO(bytes(blob)), allow_pickle=False) as arrays:
        return PairData(
            systems=tuple(str(s) for s in arrays["systems"]),
            judgments=int(arrays["judgments"][0]),
            winner_loser=arrays["winner_loser"].astype(np.int64),
            offsets=arrays["offsets"].astype(np.int64),
            counts=arrays["counts"].astype(np.int64),
            outcomes=arrays["outcomes"].astype(np.float64),
        )


def prepare_arrays(
    systems: tuple[str, ...], first: np.ndarray, second: np.ndarray, outcome: np.ndarray
) -> PairData:
    """``geceval.human.pairs.prepare`` on arrays (system indices into ``systems``, sorted names; usable pairs only)."""
    return prepare_indices(systems, first, second, outcome)


class CompactPairs:
    """The usable pairs of a compact imported ranking campaign, as arrays (one element per pair).

    ``combo`` is a pair's place among its judgment's pairs (``combinations`` order): with
    ``judgment`` it orders pairs built from separate parts of the campaign as one pass would.
    """

    def __init__(
        self,
        names: tuple[str, ...],
        first,
        second,
        rank1,
        rank2,
        judgment,
        sentence,
        judge,
        rankings,
        combo=None,
    ):
        self.names, self.first, self.second = names, first, second
        self.rank1, self.rank2, self.judgment = rank1, rank2, judgment
        self.sentence, self.judge, self.rankings = sentence, judge, rankings
        self.combo = np.zeros(len(first), dtype=np.int64) if combo is None else combo

    @property
    def outcome(self) -> np.ndarray:
        return np.sign(self.rank2 - self.rank1).astype(np.int64)

    def pair_data(self) -> PairData:
        return prepare_arrays(self.names, self.first, self.second, self.outcome)

    def pair_counts(self) -> dict[str, int]:
        counts = np.bincount(np.concatenate([self.first, self.second]), minlength=len(self.names))
        return {n: int(c) for n, c in zip(self.names, counts) if c}

    def agreement_summary(self) -> dict:
        """``compute.agreement_summary`` of these pairs without a Python object per pair."""
        return agreement_from_tables(self.agreement_tables())

    def agreement_tables(self) -> dict[tuple[int, int], np.ndarray]:
        """Per pair of judges who labelled a shared item, the 3x3 table of their labels (rows: the
        judge whose id sorts first as a string, as ``within_pairs`` orders annotators; ``LABELS``
        order). Only judgments whose (item, two systems) another judge also judged are looked at one
        by one. Tables of parts that split the items (sentences) add up to the whole's."""
        if not len(self.first):
            return {}
        names = np.array(self.names)
        # pair_label: systems ordered by name, the label seen from the first
        swap = names[self.first] > names[self.second]
        lo = np.where(swap, self.second, self.first)
        hi = np.where(swap, self.first, self.second)
        diff = np.sign(self.rank1 - self.rank2)
        label = np.where(swap, -diff, diff)
        strings, judge_rank = np.unique(self.judge.astype(str), return_inverse=True)
        size = len(self.names)
        key = (self.sentence * size + lo) * size + hi
        # labels_by_annotator keeps an annotator's first label of a key
        _u, first = np.unique(judge_rank.astype(np.int64) * (int(key.max()) + 1) + key, return_index=True)
        first.sort()
        key, who, label = key[first], judge_rank[first], label[first]
        _keys, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        shared = np.flatnonzero(counts[inverse] >= 2)
        by_key: dict[int, list[tuple[int, int]]] = {}
        for k, a, x in zip(inverse[shared].tolist(), who[shared].tolist(), label[shared].tolist()):
            by_key.setdefault(k, []).append((a, x))
        cells: dict[tuple[int, int], np.ndarray] = {}
        for entries in by_key.values():
            entries.sort()
            for i in range(len(entries)):
                for j in range(i + 1, len(entries)):
                    table = cells.get((entries[i][0], entries[j][0]))
                    if table is None:
                        table = cells[(entries[i][0], entries[j][0])] = np.zeros(9, dtype=np.int64)
                    table[(entries[i][1] + 1) * 3 + entries[j][1] + 1] += 1
        return {(int(strings[a]), int(strings[b])): t for (a, b), t in cells.items()}

    def pairwise_judgments(self) -> list[PairwiseJudgment]:
        """As objects, for the agreement statistics (item = sentence id, annotator = judge id)."""
        names = self.names
        return [
            PairwiseJudgment(str(s), str(u), names[a], r1, names[b], r2)
            for s, u, a, r1, b, r2 in zip(
                self.sentence.tolist(),
                self.judge.tolist(),
                self.first.tolist(),
                self.rank1.tolist(),
                self.second.tolist(),
                self.rank2.tolist(),
            )
        ]


def agreement_from_tables(tables: dict[tuple[int, int], np.ndarray]) -> dict:
    """``compute.agreement_summary`` from judge-pair tables (``CompactPairs.agreement_tables``, or
    their sums over parts): pooled kappas of the summed table, the mean of each pair's kappa."""
    pooled = np.zeros(9, dtype=np.int64)
    kappas = []
    for pair in sorted(tables, key=lambda p: (str(p[0]), str(p[1]))):
        table = np.asarray(tables[pair], dtype=np.int64)
        pooled += table
        k = kappa_from_table(table.reshape(3, 3))
        if not math.isnan(k):
            kappas.append(k)
    return {
        "kappa": compute._finite(kappa_from_table(pooled.reshape(3, 3))),
        "weighted_kappa": compute._finite(kappa_from_table(pooled.reshape(3, 3), weights="quadratic")),
        "shared": int(pooled.sum()),
        "annotator_pairs": len(tables),
        "mean_pair_kappa": compute._finite(float(np.mean(kappas)) if kappas else math.nan),
    }


def tables_to_json(tables: dict[tuple[int, int], np.ndarray]) -> list:
    return [[a, b, [int(x) for x in t]] for (a, b), t in sorted(tables.items())]


def tables_add(into: dict[tuple[int, int], np.ndarray], encoded: list) -> None:
    """Add a part's tables (``tables_to_json``) to ``into``."""
    for a, b, cells in encoded:
        table = into.get((a, b))
        if table is None:
            into[(a, b)] = np.array(cells, dtype=np.int64)
        else:
            table += np.asarray(cells, dtype=np.int64)


def compact_systems(campaign: Campaign) -> tuple[tuple[str, ...], dict[int, int]]:
    """The systems a compact campaign's entries name (sorted names; systems the campaign no longer
    has are left out, as ``ranking.rankings._finish`` does) and each system id's index among them.
    The database finds them (one ``DISTINCT`` over the campaign's entries)."""
    names = dict(campaign.systems.values_list("pk", "name"))
    present = ImportedEntry.objects.filter(campaign=campaign).values_list("system_id", flat=True).distinct()
    ordered = tuple(sorted({names[k] for k in present.order_by() if k in names}))
    return ordered, {pk: ordered.index(n) for pk, n in names.items() if n in ordered}


RANKING_COLUMNS = ("judgment", "sentence_id", "judge_id", "system_id", "rank")
PRWS_COLUMNS = (
    "judgment",
    "sentence_id",
    "judge_id",
    "system_id",
    "COALESCE(score, -1)",
    "CASE WHEN meaning_changed THEN 1 ELSE 0 END",
)


def entry_arrays(
    campaign: Campaign, parts: int = 1, part: int = 0, *, columns: tuple[str, ...] = RANKING_COLUMNS
) -> tuple[np.ndarray, ...]:
    """The campaign's entries in judgment order, one integer array per column; with ``parts`` > 1
    only those of the sentences whose id is ``part`` modulo ``parts`` (a judgment is of one
    sentence, so a part holds whole judgments and every judgment of its sentences)."""
    table = ImportedEntry._meta.db_table
    where = f"campaign_id = {int(campaign.pk)}"
    if parts > 1:
        where += f" AND sentence_id % {int(parts)} = {int(part)}"
    sql = f"SELECT {', '.join(columns)} FROM {table} WHERE {where} ORDER BY judgment, id"
    if connection.vendor == "postgresql":
        buffer = io.StringIO()
        with connection.cursor() as cursor:
            cursor.cursor.copy_expert(f"COPY ({sql}) TO STDOUT", buffer)
        flat = np.array(buffer.getvalue().split(), dtype=np.int64)
    else:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            flat = np.array(cursor.fetchall(), dtype=np.int64).ravel()
    return tuple(flat.reshape(-1, len(columns)).T)


def compact_pairs(campaign: Campaign) -> CompactPairs | None:
    """The pairs of a compact ranking campaign; None for a campaign stored otherwise or rated by score
    (PRWS screens rank by score through ``ranking.rankings``)."""
    if not campaign_is_compact(campaign, ranked=True):
        return None
    ordered, code = compact_systems(campaign)
    return _pairs_of(ordered, code, *entry_arrays(campaign))


def compact_part(
    campaign: Campaign, ordered: tuple[str, ...], code: dict[int, int], parts: int, part: int
) -> CompactPairs:
    """The pairs of one part of a compact ranking campaign (``entry_arrays``), systems coded as the
    whole campaign's (``compact_systems``)."""
    return _pairs_of(ordered, code, *entry_arrays(campaign, parts, part))


def _pairs_of(ordered, code, judgment, sentence, judge, system_id, rank) -> CompactPairs:
    # systems the campaign no longer has give no entry (as ranking.rankings._finish)
    known = np.isin(system_id, np.fromiter(code, dtype=np.int64))
    judgment, sentence, judge, system_id, rank = (
        a[known] for a in (judgment, sentence, judge, system_id, rank)
    )
    system = np.array([code[k] for k in system_id.tolist()], dtype=np.int64) if len(system_id) else system_id
    starts = np.flatnonzero(np.r_[True, judgment[1:] != judgment[:-1]]) if len(judgment) else judgment
    sizes = np.diff(np.r_[starts, len(judgment)])
    keep = sizes >= 2  # campaign_rankings: judgments of two systems or more
    rankings = int(keep.sum())
    parts = []
    top = int(sizes.max()) if len(sizes) else 0
    combo = 0
    for a in range(top):
        for b in range(a + 1, top):
            sel = np.flatnonzero(keep & (sizes > b))
            parts.append((sel, starts[sel] + a, starts[sel] + b, np.full(len(sel), combo)))
            combo += 1
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return CompactPairs(ordered, empty, empty, empty, empty, empty, empty, empty, rankings, empty)
    group = np.concatenate([p[0] for p in parts])
    left = np.concatenate([p[1] for p in parts])
    right = np.concatenate([p[2] for p in parts])
    combos = np.concatenate([p[3] for p in parts])
    order = np.lexsort((combos, group))
    left, right, combos = left[order], right[order], combos[order]
    usable = system[left] != system[right]
    left, right, combos = left[usable], right[usable], combos[usable]
    return CompactPairs(
        ordered,
        system[left],
        system[right],
        rank[left],
        rank[right],
        judgment[left],
        sentence[left],
        judge[left],
        rankings,
        combos,
    )


_PART_FIELDS = ("first", "second", "outcome", "judgment", "combo")


def part_to_bytes(found: CompactPairs) -> bytes:
    """A part's pairs for the run's chunks: systems' indices, outcome and the keys that order them."""
    buffer = io.BytesIO()
    np.savez(
        buffer,
        first=found.first.astype(np.int32),
        second=found.second.astype(np.int32),
        outcome=found.outcome.astype(np.int8),
        judgment=found.judgment.astype(np.int64),
        combo=found.combo.astype(np.int32),
    )
    return buffer.getvalue()


def part_blobs(run_id: int) -> Iterator[bytes]:
    """The ``.npz`` archives of a run's freeze parts (``RunChunk.arrays``), in part order, one at a time."""
    parts = RunChunk.objects.filter(run_id=run_id, phase=ChunkPhase.FREEZE).order_by("index")
    return parts.values_list("arrays", flat=True).iterator()


def load_parts(blobs: Iterable[bytes], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Each field of the parts' archives, concatenated in the parts' order."""
    found: dict[str, list[np.ndarray]] = {k: [] for k in fields}
    for blob in blobs:
        with np.load(io.BytesIO(bytes(blob)), allow_pickle=False) as arrays:
            for k in fields:
                found[k].append(arrays[k])
    return {k: np.concatenate(v) for k, v in found.items()}


def pair_data_from_parts(systems: tuple[str, ...], blobs: Iterable[bytes]) -> PairData:
    """The run's PairData from its parts' pairs, in the order one pass over the campaign gives
    (judgment, then ``combinations`` order), so results do not depend on how it was split."""
    found = load_parts(blobs, _PART_FIELDS)
    first, second, outcome, judgment, combo = (found[k] for k in _PART_FIELDS)
    order = np.lexsort((combo, judgment))
    return prepare_arrays(
        systems,
        first[order].astype(np.int64),
        second[order].astype(np.int64),
        outcome[order].astype(np.int64),
    )


def compact_entry_count(campaign: Campaign) -> int:
    """Entries (one system's rank or score in a judgment) of a compact imported campaign; 0 otherwise."""
    return ImportedEntry.objects.filter(campaign=campaign).count()


def compact_judgment_count(campaign: Campaign) -> int | None:
    """Judgments of a compact imported campaign (all valid); None for a campaign stored otherwise."""
    found = (
        ImportedEntry.objects.filter(campaign=campaign)
        .order_by("-judgment")
        .values_list("judgment", flat=True)
    )
    last = found.first()
    return None if last is None else last + 1
