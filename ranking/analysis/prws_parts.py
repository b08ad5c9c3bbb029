"""A PRWS summary of a compact imported campaign computed in parts (issue 23, past one machine).

Each freeze part reads the ratings of a share of the sentences (``frozen.entry_arrays``) and keeps
per (system, sentence) cell its count, sum and sum of z-scores, the ratings of the cells a
split-half sample can split, and per system its ratings and meaning changes. The judges' means and
standard deviations come first, from one ``GROUP BY`` in the database (exact integer sums,
``geceval.human.prws.z_params``), so every part standardises as one pass would. Split-half samples are
shared out between chunks (``geceval.human.prws.reliability_samples``, a stream per sample); the merge
adds the parts up and computes what needs every cell at once (significance clusters). The figures
equal the one-step summary's (``compute.prws_summary``) to the last digit.
"""

from __future__ import annotations

import functools
import io
import math

import numpy as np
from django.db import connection

from geceval.human import prws
from ranking.analysis import compute, frozen
from ranking.analysis.models import RunInput
from ranking.analysis.parameters import AnalysisError
from ranking.models import Campaign, ImportedEntry

_CELLS = ("cell_system", "cell_sentence", "cell_count", "cell_sum", "cell_zsum")
_RELIABILITY = ("rel_system", "rel_sentence", "rel_count", "rel_values")


def judge_sums(campaign: Campaign, codes: dict[int, int]) -> list[list[int]]:
    """[judge id, ratings, sum of scores, sum of squares] of every judge with a valid rating."""
    if not codes:
        return []
    table = ImportedEntry._meta.db_table
    systems = ",".join(str(int(k)) for k in codes)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT judge_id, COUNT(*), SUM(score), SUM(CAST(score AS BIGINT) * score) FROM {table} "
            f"WHERE campaign_id = %s AND score IS NOT NULL AND system_id IN ({systems}) "
            "GROUP BY judge_id ORDER BY judge_id",
            [campaign.pk],
        )
        return [[int(j), int(n), int(s), int(q)] for j, n, s, q in cursor.fetchall()]


def _lookup(keys: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each wanted value in the sorted ``keys`` and whether it is there."""
    where = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
    found = keys[where] == wanted if len(keys) else np.zeros(len(wanted), dtype=bool)
    return where, found


def part_compute(campaign: Campaign, data: dict, part: int, *, touch=lambda: None) -> tuple[dict, bytes]:
    """One part's summary (JSON) and cell arrays (``.npz``); ``touch`` is called once its entries are read."""
    pks = np.array(sorted(int(k) for k, _ in data["codes"]), dtype=np.int64)
    code_of = {int(k): int(v) for k, v in data["codes"]}
    codes = np.array([code_of[k] for k in pks.tolist()], dtype=np.int64)
    size = len(data["systems"])
    _judgment, sentence, judge, system_id, score, changed = frozen.entry_arrays(
        campaign, data["parts"], part, columns=frozen.PRWS_COLUMNS
    )
    touch()
    where, known = _lookup(pks, system_id)
    known &= score >= 0
    sentence, judge, score, changed = sentence[known], judge[known], score[known], changed[known]
    system = codes[where[known]]

    judges = np.array([j for j, *_ in data["judges"]], dtype=np.int64)
    params = [prws.z_params(n, s, q) for _j, n, s, q in data["judges"]]
    means = np.array([m for m, _ in params])
    stds = np.array([d for _, d in params])
    where, seen = _lookup(judges, judge)
    if not seen.all():
        raise AnalysisError(
            "the campaign's ratings changed while the run was frozen (a judge it did not count at the "
            "start): run it again"
        )
    mean, std = means[where], stds[where]
    values = score.astype(np.float64)
    z = np.zeros(len(values))
    positive = std > 0
    z[positive] = (values[positive] - mean[positive]) / std[positive]

    width = int(sentence.max()) + 1 if len(sentence) else 1
    cells, inverse = np.unique(system * width + sentence, return_inverse=True)
    count = np.bincount(inverse, minlength=len(cells))
    arrays = {
        "cell_system": cells // width,
        "cell_sentence": cells % width,
        "cell_count": count,
        "cell_sum": np.bincount(inverse, weights=values, minlength=len(cells)),
        # bincount adds in the ratings' order, as segment_means does
        "cell_zsum": np.bincount(inverse, weights=z, minlength=len(cells)),
    }
    order = np.argsort(inverse, kind="stable")  # each cell's ratings together, in their order
    splittable = count[inverse[order]] >= 2
    rel_cells = np.flatnonzero(count >= 2)
    arrays.update(
        rel_system=arrays["cell_system"][rel_cells],
        rel_sentence=arrays["cell_sentence"][rel_cells],
        rel_count=count[rel_cells],
        rel_values=values[order][splittable],
    )
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    summary = {
        "ratings": len(values),
        "counts": np.bincount(system, minlength=size).tolist(),
        "changed": np.bincount(system, weights=changed, minlength=size).astype(np.int64).tolist(),
        "splittable": len(rel_cells),
    }
    return summary, buffer.getvalue()


def reliability_cells(systems: list[str], blobs) -> prws.ReliabilityCells:
    """The splittable cells of every part, keyed and ordered as ``split_half_reliability`` keys them."""
    a = frozen.load_parts(blobs, _RELIABILITY)
    ends = np.cumsum(a["rel_count"])
    values = np.split(a["rel_values"], ends[:-1]) if len(ends) else []
    cells = {
        (systems[s], str(t)): v.tolist()
        for s, t, v in zip(a["rel_system"].tolist(), a["rel_sentence"].tolist(), values)
    }
    return prws.reliability_cells(cells)


def segments(systems: list[str], blobs) -> tuple[prws.Segments, prws.Segments]:
    """Raw and z segment means of every cell of every part (items: sentence ids as strings)."""
    a = frozen.load_parts(blobs, _CELLS)
    raw: prws.Segments = {}
    z: prws.Segments = {}
    for s, t, n, total, zsum in zip(
        a["cell_system"].tolist(),
        a["cell_sentence"].tolist(),
        a["cell_count"].tolist(),
        a["cell_sum"].tolist(),
        a["cell_zsum"].tolist(),
    ):
        raw.setdefault(systems[s], {})[str(t)] = total / n
        z.setdefault(systems[s], {})[str(t)] = zsum / n
    return raw, z


def samples_to_json(values: list[list[float]]) -> list:
    return [[None if math.isnan(v) else v for v in row] for row in values]


def samples_from_json(rows: list) -> list[list[float]]:
    return [[math.nan if v is None else float(v) for v in row] for row in rows]


def summary_of_parts(
    data: dict, parts: list[dict], blobs, samples: list[list[float]] | None
) -> tuple[list[dict], dict]:
    """The merge: ``compute.prws_summary``'s rows and summary from the parts and the chunks' samples
    (None when no cell has two ratings)."""
    systems = data["systems"]
    raw, z = segments(systems, blobs)
    counts = {n: sum(p["counts"][k] for p in parts) for k, n in enumerate(systems)}
    changed = {n: sum(p["changed"][k] for p in parts) for k, n in enumerate(systems)}
    if samples is None:
        reliability: prws.Reliability | ValueError = ValueError(
            "no (item, system) with enough ratings for a split half"
        )
    else:
        cells = sum(p["splittable"] for p in parts)
        reliability = prws.reliability_from_samples(samples, cells=cells)
    return compute.prws_tables(
        raw,
        z,
        counts,
        changed,
        ratings=sum(p["ratings"] for p in parts),
        annotators=len(data["judges"]),
        reliability=reliability,
    )


@functools.lru_cache(maxsize=4)
def run_cells(run_id: int, started: str) -> prws.ReliabilityCells:
    """A PRWS run's splittable cells from its freeze parts, prepared once per worker process (keyed
    by start time too: a database that reuses ids cannot hand a new run an old run's cells)."""
    systems = RunInput.objects.filter(run_id=run_id).values_list("data__systems", flat=True).get()
    return reliability_cells(systems, frozen.part_blobs(run_id))


def run_segments(run_id: int) -> prws.Segments:
    """The raw segment means of a PRWS run frozen in parts (what its ratings would give)."""
    systems = RunInput.objects.filter(run_id=run_id).values_list("data__systems", flat=True).get()
    return segments(systems, frozen.part_blobs(run_id))[0]
