"""SEEDA (Kobayashi, Mita and Komachi 2024, "Revisiting Meta-evaluation for Grammatical Error
Correction", TACL): the release's layout, its systems and subsets, and its published system scores.

Source of :data:`PUBLISHED`: the SEEDA release's system scores of the metrics (x100, on the whole
CoNLL-14 test set), as issue 42 transcribes them (M2 / SentM2 / ERRANT / SentERRANT / GoToScorer /
GLEU). A value printed without a second decimal (``50.3``) is read as ``50.30``.
"""

from __future__ import annotations

SYSTEMS: tuple[str, ...] = (
    "BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic", "PIE",
    "REF-F", "REF-M", "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS",
)  # fmt: skip
"""The 15 systems, in the order of the lines of ``scores/human/*.txt``."""

FLUENT = ("REF-F", "GPT-3.5")
INPUT = "INPUT"
TAGS: dict[str, frozenset[str]] = {
    s: frozenset({"input"} if s == INPUT else {"fluent"} if s in FLUENT else {"classic"}) for s in SYSTEMS
}
"""System tags of :mod:`geceval.metaeval.kobayashi2024`: the 12 base systems ``classic``, REF-F and GPT-3.5
``fluent``, INPUT ``input``."""

SUBSETS: dict[str, str] = {
    "base": "classic",
    "base+INPUT": "classic+input",
    "+REF-F_GPT-3.5": "classic+fluent",
    "+REF-F_GPT-3.5+INPUT": "classic+fluent+input",
    "all": "all+input",
}
"""SEEDA's subsets -> :data:`geceval.metaeval.kobayashi2024.SUBSETS` names. *base*: the 12 systems other
than INPUT, REF-F and GPT-3.5; *+REF-F_GPT-3.5*: base with those two; *all*: the 15 (INPUT is
already in, so it has no +INPUT variant; its members are those of +REF-F_GPT-3.5+INPUT)."""

WINDOW_SUBSET = "base"
"""The systems the window analysis orders (k adjacent in the human order)."""

GRANULARITIES = ("sent", "edit")
HUMAN_SCORES = ("TS_sent", "EW_sent", "TS_edit", "EW_edit")
"""``scores/human/<name>.txt``: TrueSkill and Expected Wins of the sentence- and edit-based judgments."""

METRICS: tuple[str, ...] = ("M2", "SentM2", "ERRANT", "SentERRANT", "GoToScorer", "GLEU")
SENTENCE_METRICS: dict[str, str] = {
    "M2": "m2",
    "ERRANT": "errant",
    "GoToScorer": "gotoscorer",
    "GLEU": "gleu",
}
"""Metrics with a sentence score (:mod:`geceval.metaeval.sentence_scores`; SentM2's and SentERRANT's sentence
scores are M2's and ERRANT's)."""

PUBLISHED: dict[str, tuple[float, float, float, float, float, float]] = {
    "BART": (50.3, 51.29, 46.66, 50.31, 15.86, 63.46),
    "BERT-fuse": (62.77, 63.21, 58.99, 61.81, 21.1, 68.5),
    "GECToR-BERT": (61.83, 61.23, 58.05, 59.76, 18.98, 66.56),
    "GECToR-ens": (63.53, 60.37, 61.43, 59.64, 16.58, 65.08),
    "GPT-3.5": (53.5, 53.28, 44.12, 49.23, 22.85, 65.93),
    "INPUT": (0.0, 31.33, 0.0, 31.4, 0.0, 56.6),
    "LM-Critic": (55.5, 58.0, 52.38, 56.41, 16.23, 64.39),
    "PIE": (59.93, 60.7, 55.89, 59.35, 21.07, 67.83),
    "REF-F": (47.48, 48.99, 33.24, 41.41, 21.7, 60.34),
    "REF-M": (60.12, 62.3, 54.77, 60.11, 23.92, 67.27),
    "Riken-Tohoku": (64.74, 64.22, 61.88, 63.13, 20.94, 68.37),
    "T5": (65.07, 65.2, 60.65, 63.24, 20.46, 68.81),
    "TemplateGEC": (56.29, 57.59, 51.34, 56.08, 14.7, 65.07),
    "TransGEC": (68.08, 68.33, 64.43, 66.76, 21.93, 70.2),
    "UEDIN-MS": (64.55, 62.68, 61.33, 61.38, 18.94, 67.41),
}

PUBLISHED_FROM: dict[str, str] = {
    "human": "the release's scores/human/<column>.txt",
    "metric": "the release's system scores x100 (ranking/analysis/seeda_published.py, PUBLISHED)",
    "system": "computed from the release's metric scores and human scores (the paper's tables are not here)",
    "window": "computed from the release's metric scores and human scores (the paper's figures are not here)",
    "sentence": "nothing: the release has no sentence-level metric figures",
}
"""What the ``published`` column of each table holds."""

TOLERANCE: dict[str, float] = {
    "metric": 0.01,
    "TS": 0.02,
    "EW": 0.001,
    "correlation": 0.02,
}
"""Metric scores (x100): the release prints two decimals, so half the last digit plus float noise;
TrueSkill: ±0.02, as gec-ranking (our random stream is not wmt-trueskill's Python 2 one, and a
system's mean mu moves by about that between streams); Expected Wins: the third decimal (a point
statistic of the judgments, no randomness); correlations (system level and windows) against those the
release's own scores give: 0.02."""

KNOWN: dict[tuple[str, str], tuple[str, str]] = {}
"""(metric, system) -> (known, why), each with its evidence. None is known yet: the two cells this
machine can check that differ (INPUT's GLEU, ours 57.32 against 56.60; INPUT's SentERRANT, 31.33
against 31.40) stay unexplained, with what was tried in
``ranking.analysis.reproduce_reasons.SEEDA_UNEXPLAINED`` (they fail the command)."""
