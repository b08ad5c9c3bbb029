"""Edit-level score of a system: the share of its labelled edits marked good, with a percentile
bootstrap interval over sentences (a sentence's labels stay together: they share a judge and a
context). Plain data in and out, no database."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

BOOTSTRAP_SAMPLES = 1000


@dataclass(frozen=True)
class EditScore:
    system: str
    good: int
    labels: int
    sentences: int
    share: float
    low: float
    high: float


def edit_scores(
    counts: Mapping[str, Sequence[tuple[int, int]]],
    *,
    samples: int = BOOTSTRAP_SAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[EditScore]:
    """``counts[system]``: (good, labelled) per sentence. Best share first (ties by name)."""
    rng = np.random.default_rng(seed)
    alpha = (1 - confidence) / 2
    out = []
    for system in sorted(counts):
        rows = np.asarray([r for r in counts[system] if r[1] > 0], dtype=float).reshape(-1, 2)
        if len(rows) == 0:
            continue
        good, total = rows[:, 0], rows[:, 1]
        picks = rng.integers(0, len(rows), size=(samples, len(rows)))
        shares = good[picks].sum(axis=1) / total[picks].sum(axis=1)
        out.append(
            EditScore(
                system,
                int(good.sum()),
                int(total.sum()),
                len(rows),
                float(good.sum() / total.sum()),
                float(np.quantile(shares, alpha)),
                float(np.quantile(shares, 1 - alpha)),
            )
        )
    return sorted(out, key=lambda s: (-s.share, s.system))
