"""Deprecated (one release): import from :mod:`geceval.human.trueskill` and :mod:`geceval.human.pairs`.
The numpy engine's pieces (``BLOCK``, ``lockstep_exp``) are gone."""

import warnings

from geceval.human.pairs import PairData, prepare, prepare_indices, prepare_rankings, run_rng
from geceval.human.trueskill import (
    DRAW_PROBABILITY,
    ERFC_FIT,
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
)

warnings.warn(
    "geceval.ranking_trueskill is deprecated: import from geceval.human.trueskill or geceval.human.pairs",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = [
    "DRAW_PROBABILITY",
    "ERFC_FIT",
    "MU",
    "SIGMA",
    "PairData",
    "cdf",
    "draw_margin",
    "erfc",
    "erfcinv",
    "pdf",
    "ppf",
    "prepare",
    "prepare_indices",
    "prepare_rankings",
    "rate_pair",
    "reference_beta",
    "run_rng",
]
