"""GLEU+'s sampled references: the Python 2 draws and the corpus statistics of every iteration.

The reference tool draws, for iteration j, ``random.seed(j*101)`` then one
``randint(0, k-1)`` per sentence; :func:`drawn_indices` replays that stream.
:func:`iteration_totals` sums the chosen statistics of every iteration in
plain Python, exactly and without numpy (issue 22):

- each (sentence, reference) statistics vector is packed into one integer,
  a field of ``width`` bits per statistic, wide enough that no corpus sum
  carries into the next field; one addition then sums all statistics at once;
- with k a power of two the Python 2 index is the top bits of one Mersenne
  Twister output (below), so the indices of several sentences at once are bit
  fields of one byte; each group of sentences gets a table of its k**g
  possible summed vectors, and an iteration is one table look-up per group
  (``sum(map(getitem, tables, codes))``, all in C).

Python 2's ``randint(0, k-1)`` is ``int(random() * k)`` and ``random()`` is
``((a >> 5)·2**26 + (b >> 6)) / 2**53`` for two consecutive 32-bit outputs
``a, b``; ``getrandbits(64·n)`` returns the next 2n outputs as little-endian
32-bit words. For ``k = 2**m`` (m <= 8) the product by k is exact, so the
index is the top m bits of ``a``: the top bits of byte 3 of each 8-byte pair.
Seeding from an int is the same initialisation in Python 2 and 3, and a
private ``Random`` leaves the global generator alone.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Sequence
from operator import getitem
from typing import Literal

Draws = Literal["py2", "py3"]

_TOP_BITS = {m: bytes(b >> (8 - m) for b in range(256)) for m in range(1, 9)}


def _power_of_two(k: int) -> int:
    """m with ``k == 2**m`` and 1 <= m <= 8, else 0 (the byte-level fast path does not apply)."""
    m = k.bit_length() - 1
    return m if k == 1 << m and 1 <= m <= 8 else 0


def _mt_bytes(seed: int, n: int) -> bytes:
    """The first 2n 32-bit outputs of ``random.Random(seed)``, as 8n little-endian bytes."""
    return random.Random(seed).getrandbits(64 * n).to_bytes(8 * n, "little") if n else b""


def drawn_indices(j: int, n: int, k: int, draws: Draws = "py2") -> Sequence[int]:
    """The reference index of each of n sentences in iteration j (``bytes`` or a list of ints)."""
    if k == 1:
        return bytes(n)
    if draws == "py3":
        rng = random.Random(j * 101)
        return [rng.randint(0, k - 1) for _ in range(n)]
    m = _power_of_two(k)
    if m:
        return _mt_bytes(j * 101, n)[3::8].translate(_TOP_BITS[m])
    rnd = random.Random(j * 101).random
    return [int(rnd() * k) for _ in range(n)]


def _group_codes(seed: int, n_groups: int, m: int, g: int) -> bytes:
    """Byte t = the indices of sentences t·g .. t·g+g-1 as m-bit fields, the first one highest."""
    data = _mt_bytes(seed, n_groups * g)
    mask = int.from_bytes(bytes([(0xFF << (8 - m)) & 0xFF]) * n_groups, "big")
    low = 8 - m * g
    code = 0
    for i in range(g):
        # byte 3 of each sentence's 8 bytes holds its index in its top m bits; move them down
        code |= (int.from_bytes(data[3 + 8 * i :: 8 * g], "big") & mask) >> (m * i + low)
    return code.to_bytes(n_groups, "big")


def _pack(stats: Sequence[Sequence[Sequence[int]]], dims: int) -> tuple[list[list[int]], int]:
    """Each statistics vector as one int (field d at bits ``d·width``), and the width.

    Fields are 1, 2, 4 or 8 bytes wide, enough for n times the largest statistic, so no sum
    carries into the next field; ``struct`` packs a vector in one call.
    """
    largest = max(max(map(max, rows)) for rows in stats)
    size = next((b for b in (1, 2, 4, 8) if len(stats) * largest < 1 << (8 * b)), 0)
    if not size:  # beyond 64-bit sums: shift the fields in one by one
        width = (len(stats) * largest).bit_length()
        shifts = [d * width for d in range(dims)]
        return [
            [sum(v << s for v, s in zip(row, shifts, strict=True)) for row in rows] for rows in stats
        ], width
    pack = struct.Struct("<" + "_BH_I___Q"[size] * dims).pack
    from_bytes = int.from_bytes
    return [[from_bytes(pack(*row), "little") for row in rows] for rows in stats], 8 * size


def _unpack(total: int, dims: int, width: int) -> list[int]:
    mask = (1 << width) - 1
    return [(total >> (d * width)) & mask for d in range(dims)]


def _tables(packed: list[list[int]], g: int, k: int) -> list[list[int]]:
    """Per group of g sentences, the summed vector for each of the k**g index combinations."""
    pad = [0] * k
    rows = packed + [pad] * (-len(packed) % g)
    tables = []
    for t in range(0, len(rows), g):
        table = [0]
        for row in rows[t : t + g]:
            table = [x + v for x in table for v in row]
        tables.append(table)
    return tables


def iteration_totals(
    stats: Sequence[Sequence[Sequence[int]]], iterations: int, dims: int, draws: Draws = "py2"
) -> list[list[int]]:
    """The corpus statistics of each iteration: ``iterations`` lists of ``dims`` exact ints.

    ``stats[i][r]`` is sentence i's non-negative statistics vector against reference r.
    """
    n = len(stats)
    k = len(stats[0]) if n else 1
    if n == 0:
        return [[0] * dims for _ in range(iterations)]
    packed, width = _pack(stats, dims)
    if k == 1:
        return [_unpack(sum(row[0] for row in packed), dims, width)] * iterations
    m = _power_of_two(k) if draws == "py2" else 0
    if not m:
        totals = [sum(map(getitem, packed, drawn_indices(j, n, k, draws))) for j in range(iterations)]
    else:
        # sentences per index byte: as many as fit in 8 bits, while a table stays cheaper to build
        g = 1
        while m * (g + 1) <= 8 and k ** (g + 1) <= iterations:
            g += 1
        n_groups = -(-n // g)
        tables = _tables(packed, g, k)
        totals = [sum(map(getitem, tables, _group_codes(j * 101, n_groups, m, g))) for j in range(iterations)]
    return [_unpack(total, dims, width) for total in totals]
