"""Binary frozen input of ranking runs: integer arrays in a numpy ``.npz`` archive (``RunInput.arrays``).

A run's chunks read the frozen pairs once per worker process. As JSON (lists of
lists) a million pairwise judgments take tens of seconds to decode; as arrays
they load in milliseconds. For a campaign in the compact imported form
(``ranking.imported``) the pairs are also built straight from the database rows
with numpy, in the order ``expand_pairwise`` gives (judgment by judgment, then
``combinations`` order), so the run sees the same pairs as from the full form.
"""

from __future__ import annotations

import io
import math

import numpy as np
from django.db import connection

from geceval.agreement import cohen_kappa
from geceval.judgments import PairwiseJudgment
from geceval.ranking import PairData, prepare_indices
from ranking.analysis import compute
from ranking.models import Campaign, ImportedEntry

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
    """``geceval.ranking.prepare`` on arrays (system indices into ``systems``, sorted names; usable pairs only)."""
    return prepare_indices(systems, first, second, outcome)


class CompactPairs:
    """The usable pairs of a compact imported ranking campaign, as arrays (one element per pair)."""

    def __init__(
        self, names: tuple[str, ...], first, second, rank1, rank2, judgment, sentence, judge, rankings
    ):
        self.names, self.first, self.second = names, first, second
        self.rank1, self.rank2, self.judgment = rank1, rank2, judgment
        self.sentence, self.judge, self.rankings = sentence, judge, rankings

    @property
    def outcome(self) -> np.ndarray:
        return np.sign(self.rank2 - self.rank1).astype(np.int64)

    def pair_data(self) -> PairData:
        return prepare_arrays(self.names, self.first, self.second, self.outcome)

    def pair_counts(self) -> dict[str, int]:
        counts = np.bincount(np.concatenate([self.first, self.second]), minlength=len(self.names))
        return {n: int(c) for n, c in zip(self.names, counts) if c}

    def agreement_summary(self) -> dict:
        """``compute.agreement_summary`` of these pairs without a Python object per pair: only
        judgments whose (item, two systems) another annotator also judged are looked at one by one."""
        if not len(self.first):
            return compute.agreement_summary([])
        names = np.array(self.names)
        # pair_label: systems ordered by name, the label seen from the first; annotators' order is
        # their ids' string order (within_pairs sorts the annotator strings)
        swap = names[self.first] > names[self.second]
        lo = np.where(swap, self.second, self.first)
        hi = np.where(swap, self.first, self.second)
        diff = np.sign(self.rank1 - self.rank2)
        label = np.where(swap, -diff, diff)
        _strings, judge_rank = np.unique(self.judge.astype(str), return_inverse=True)
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
        per_pair: dict[tuple[int, int], tuple[list[int], list[int]]] = {}
        for entries in by_key.values():
            entries.sort()
            for i in range(len(entries)):
                for j in range(i + 1, len(entries)):
                    la, lb = per_pair.setdefault((entries[i][0], entries[j][0]), ([], []))
                    la.append(entries[i][1])
                    lb.append(entries[j][1])
        pooled_a: list[int] = []
        pooled_b: list[int] = []
        kappas = []
        for pair in sorted(per_pair):
            xa, xb = per_pair[pair]
            pooled_a += xa
            pooled_b += xb
            k = cohen_kappa(xa, xb)
            if not math.isnan(k):
                kappas.append(k)
        return {
            "kappa": compute._finite(cohen_kappa(pooled_a, pooled_b)),
            "weighted_kappa": compute._finite(cohen_kappa(pooled_a, pooled_b, weights="quadratic")),
            "shared": len(pooled_a),
            "annotator_pairs": len(per_pair),
            "mean_pair_kappa": compute._finite(float(np.mean(kappas)) if kappas else math.nan),
        }

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


def compact_pairs(campaign: Campaign) -> CompactPairs | None:
    """The pairs of a compact ranking campaign; None for a campaign stored otherwise or rated by score
    (PRWS screens rank by score through ``ranking.rankings``)."""
    entries = ImportedEntry.objects.filter(campaign=campaign)
    if not entries.exists() or entries.filter(rank__isnull=True).exists():
        return None
    names = dict(campaign.systems.values_list("pk", "name"))
    table = ImportedEntry._meta.db_table
    sql = (
        f"SELECT judgment, sentence_id, judge_id, system_id, rank FROM {table} "
        f"WHERE campaign_id = {int(campaign.pk)} ORDER BY judgment, id"
    )
    if connection.vendor == "postgresql":
        buffer = io.StringIO()
        with connection.cursor() as cursor:
            cursor.cursor.copy_expert(f"COPY ({sql}) TO STDOUT", buffer)
        flat = np.array(buffer.getvalue().split(), dtype=np.int64)
    else:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            flat = np.array(cursor.fetchall(), dtype=np.int64).ravel()
    judgment, sentence, judge, system_id, rank = flat.reshape(-1, 5).T
    # systems the campaign no longer has give no entry (as ranking.rankings._finish)
    known = np.isin(system_id, np.fromiter(names, dtype=np.int64))
    judgment, sentence, judge, system_id, rank = (
        a[known] for a in (judgment, sentence, judge, system_id, rank)
    )
    ordered = tuple(sorted({names[k] for k in np.unique(system_id).tolist()}))
    code = {pk: ordered.index(n) for pk, n in names.items() if n in ordered}
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
        return CompactPairs(ordered, empty, empty, empty, empty, empty, empty, empty, rankings)
    group = np.concatenate([p[0] for p in parts])
    left = np.concatenate([p[1] for p in parts])
    right = np.concatenate([p[2] for p in parts])
    order = np.lexsort((np.concatenate([p[3] for p in parts]), group))
    left, right = left[order], right[order]
    usable = system[left] != system[right]
    left, right = left[usable], right[usable]
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
    )


def compact_judgment_count(campaign: Campaign) -> int | None:
    """Judgments of a compact imported campaign (all valid); None for a campaign stored otherwise."""
    found = (
        ImportedEntry.objects.filter(campaign=campaign)
        .order_by("-judgment")
        .values_list("judgment", flat=True)
    )
    last = found.first()
    return None if last is None else last + 1
