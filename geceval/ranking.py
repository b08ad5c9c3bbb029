"""Deprecated (one release): import from :mod:`geceval.human.system_ranking` (rank, chunks, ranges,
clusters), :mod:`geceval.human.trueskill`, :mod:`geceval.human.expected_wins` and
:mod:`geceval.human.pairs`. The numpy engine (``ENGINES``, ``KERNEL_AVAILABLE``, ``rate_pairs``) is gone."""

import warnings

from geceval.human.expected_wins import expected_wins, expected_wins_runs
from geceval.human.pairs import PairData, prepare, prepare_indices, prepare_rankings, run_rng
from geceval.human.system_ranking import (
    METHODS,
    ChunkResult,
    RankingResult,
    SystemRank,
    clusters,
    merge,
    rank,
    rank_ranges,
    run_chunk,
)
from geceval.human.trueskill import (
    DRAW_PROBABILITY,
    MU,
    SIGMA,
    cdf,
    draw_margin,
    erfc,
    erfcinv,
    pdf,
    ppf,
    rate_pair,
    reference_beta,
    trueskill_runs,
)

warnings.warn(
    "geceval.ranking is deprecated: import from geceval.human.system_ranking (or .trueskill, "
    ".expected_wins, .pairs)",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = [
    "DRAW_PROBABILITY",
    "METHODS",
    "MU",
    "SIGMA",
    "ChunkResult",
    "PairData",
    "RankingResult",
    "SystemRank",
    "cdf",
    "clusters",
    "draw_margin",
    "erfc",
    "erfcinv",
    "expected_wins",
    "expected_wins_runs",
    "merge",
    "pdf",
    "ppf",
    "prepare",
    "prepare_indices",
    "prepare_rankings",
    "rank",
    "rank_ranges",
    "rate_pair",
    "reference_beta",
    "run_chunk",
    "run_rng",
    "trueskill_runs",
]
