"""GEC metrics, one :class:`~geceval.metrics.base.Metric` class each, the sacrebleu way.

    from geceval.metrics import M2
    result = M2(beta=0.5).corpus_score(hypotheses, references, source)
    result.score, result.fields["p"], str(result.signature)

References are one list of lines per reference (sacrebleu's layout); the edit-based metrics (M2,
SentM2, ERRANT, SentERRANT, GoToScorer, I-measure) also take parsed M2 gold
(:func:`geceval.formats.m2.read_m2`) and need the source only with text references. Where each
scorer lives: ``gleu/`` (GLEU+, charGLEU, GLEU 2015, the named variants), ``m2/``, ``imeasure/``,
``errant/``, ``sentence_averaged.py`` (SentM2, SentERRANT), ``gotoscorer.py``, ``sacre.py`` (BLEU,
chrF++, TER through sacrebleu) and ``ensemble/`` (the GMEG ensemble, a trained model rather than a
``Metric``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from geceval.metrics.base import Metric

# Where each class lives. Imported on first use: the scorers import lower parts of the core
# (geceval.metrics.references, the formats) that in turn use parts of this package, so an eager import here
# would be circular.
_HOMES = {
    "Metric": "base",
    "MetricScore": "base",
    "Parameter": "base",
    "Signature": "base",
    "GLEU": "gleu.variants",
    "GLEU2015": "gleu.gleu2015",
    "CharGLEU": "gleu.plus",
    "M2": "m2.scorer",
    "IMeasure": "imeasure.metric",
    "ERRANT": "errant.metric",
    "SentM2": "sentence_averaged",
    "SentERRANT": "sentence_averaged",
    "GoToScorer": "gotoscorer",
    "BLEU": "sacre",
    "CHRF": "sacre",
    "TER": "sacre",
}
_ORDER = ("GLEU", "GLEU2015", "CharGLEU", "M2", "IMeasure", "ERRANT", "SentM2", "SentERRANT", "GoToScorer")
_ORDER += ("BLEU", "CHRF", "TER")


def __getattr__(name: str) -> Any:
    if name == "METRICS":
        metrics: dict[str, type[Metric]] = {}
        for cls_name in _ORDER:
            cls = __getattr__(cls_name)
            metrics[cls.name] = cls
        globals()["METRICS"] = metrics
        return metrics
    if name in _HOMES:
        value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


METRICS: dict[str, type[Metric]]
"""Every metric by the name ``python -m geceval score`` knows it by (in the order it lists them)."""

__all__ = [
    "BLEU",
    "CHRF",
    "ERRANT",
    "GLEU",
    "GLEU2015",
    "M2",
    "METRICS",
    "TER",
    "CharGLEU",
    "GoToScorer",
    "IMeasure",
    "Metric",
    "MetricScore",
    "Parameter",
    "SentERRANT",
    "SentM2",
    "Signature",
]
