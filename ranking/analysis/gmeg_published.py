"""Published figures of Napoles, Nădejde and Tetreault (2019), "Enabling Robust Grammatical Error
Correction in New Domains: Data Sets, Metrics, and Analyses" (GMEG), as data, with their tables.

Domains are the GMEG release's folder names (``fce``, ``wiki``, ``yahoo``); CoNLL-14 columns
are not GMEG data and are left out. System names are the release's file / CSV column names.
Each table also records the split(s) its figures span (checked against the release's sizes).
"""

from __future__ import annotations

# Table 3 "Description of test sets": FCE 1,936 and Wiki 1,984 sentences are exactly dev + test
# of the release (968 + 968, 992 + 992), so the table spans both splits despite its caption.
TABLE3_SPLITS = ("dev", "test")
TABLE3: dict[str, dict[str, float]] = {
    "fce": {"sentences": 1936, "tokens/sentence": 18, "tokens/sentence sd": 10, "% unchanged": 23,
            "edits/changed sentence": 2.8, "tokens/edit": 1.3, "type-token ratio": 0.11},
    "wiki": {"sentences": 1984, "tokens/sentence": 27, "tokens/sentence sd": 13, "% unchanged": 19,
             "edits/changed sentence": 2.2, "tokens/edit": 1.2, "type-token ratio": 0.24},
    "yahoo": {"sentences": 1999, "tokens/sentence": 17, "tokens/sentence sd": 11, "% unchanged": 50,
              "edits/changed sentence": 1.5, "tokens/edit": 1.2, "type-token ratio": 0.17},
}  # fmt: skip

# Table 6: mean human score and % of sentences unchanged per system; the means agree with the
# dev and test segment scores together (the check), so the table spans both splits.
TABLE6_SPLITS = ("dev", "test")
TABLE6_MEAN: dict[str, dict[str, float]] = {
    "fce": {"ref": 83.4, "amu": 70.7, "lstm": 74.3, "lstm-r": 74.4, "marian": 77.0, "nus": 74.0,
            "transformer": 73.9, "source": 68.1, "source+error": 46.0},
    "wiki": {"ref": 82.1, "amu": 76.0, "lstm": 77.7, "lstm-r": 78.2, "marian": 75.5, "nus": 75.7,
             "transformer": 71.5, "source": 75.9, "source+error": 62.4},
    "yahoo": {"ref": 82.3, "amu": 74.5, "lstm": 78.5, "lstm-r": 78.2, "marian": 76.6, "nus": 75.9,
              "transformer": 72.2, "source": 75.1, "source+error": 47.5},
}  # fmt: skip
TABLE6_UNCHANGED: dict[str, dict[str, float]] = {
    "fce": {"ref": 23.1, "amu": 60.3, "lstm": 34.3, "lstm-r": 30.7, "marian": 40.0, "nus": 52.3,
            "transformer": 28.6, "source": 100.0, "source+error": 0.1},
    "wiki": {"ref": 18.9, "amu": 70.3, "lstm": 40.7, "lstm-r": 34.4, "marian": 65.6, "nus": 67.5,
             "transformer": 15.0, "source": 100.0, "source+error": 0.4},
    "yahoo": {"ref": 49.7, "amu": 75.9, "lstm": 49.9, "lstm-r": 42.4, "marian": 64.5, "nus": 65.0,
              "transformer": 25.9, "source": 100.0, "source+error": 0.1},
}  # fmt: skip

# Table 7: split-half reliability (2 groups of 4 of the 8 judges, 100 samples); split not stated,
# taken as dev + test (the ratings of every sentence).
TABLE7_SPLITS = ("dev", "test")
TABLE7: dict[str, dict[tuple[str, str], float]] = {
    "fce": {("system", "r"): 0.992, ("system", "rho"): 0.914, ("sentence", "r"): 0.603, ("sentence", "rho"): 0.588},
    "wiki": {("system", "r"): 0.994, ("system", "rho"): 0.907, ("sentence", "r"): 0.376, ("sentence", "rho"): 0.285},
    "yahoo": {("system", "r"): 0.988, ("system", "rho"): 0.990, ("sentence", "r"): 0.599, ("sentence", "rho"): 0.543},
}  # fmt: skip

# Table 8: correlation with human scores on the test split over 6 real + 674 hybrid systems.
TABLE8_SPLITS = ("test",)
TABLE8_ROWS: dict[str, str] = {
    "CHRF++": "chrf", "ERRANT0.2": "errant-0.2", "ERRANT0.5": "errant-0.5", "GLEU": "gleu",
    "charGLEU": "chargleu", "I-measure": "imeasure", "M2 0.2": "m2-0.2", "M2 0.5": "m2-0.5",
    "GMEG-Metric": "", "Human": "",
}  # fmt: skip
TABLE8: dict[str, dict[str, tuple[float, float]]] = {
    "fce": {"CHRF++": (0.639, 0.733), "ERRANT0.2": (0.828, 0.779), "ERRANT0.5": (0.919, 0.887),
            "GLEU": (0.838, 0.813), "charGLEU": (0.959, 0.932), "I-measure": (0.819, 0.839),
            "M2 0.2": (0.852, 0.846), "M2 0.5": (0.860, 0.849), "GMEG-Metric": (0.984, 0.950),
            "Human": (0.992, 0.931)},
    "wiki": {"CHRF++": (0.972, 0.943), "ERRANT0.2": (0.453, 0.596), "ERRANT0.5": (0.401, 0.555),
             "GLEU": (0.426, 0.538), "charGLEU": (0.644, 0.732), "I-measure": (0.854, 0.875),
             "M2 0.2": (0.548, 0.680), "M2 0.5": (0.346, 0.552), "GMEG-Metric": (0.982, 0.967),
             "Human": (0.994, 0.907)},
    "yahoo": {"CHRF++": (0.791, 0.687), "ERRANT0.2": (0.596, 0.643), "ERRANT0.5": (0.532, 0.601),
              "GLEU": (0.740, 0.775), "charGLEU": (0.846, 0.835), "I-measure": (0.915, 0.900),
              "M2 0.2": (0.717, 0.836), "M2 0.5": (0.580, 0.699), "GMEG-Metric": (0.940, 0.931),
              "Human": (0.988, 0.990)},
}  # fmt: skip

# Table 9: GMEG-Metric Pearson r, 50-fold cross-validation (75/25) on the development split.
TABLE9_SPLITS = ("dev",)
TABLE9_FOLDS = 50
TABLE9: dict[str, dict[str, float]] = {
    "fce": {"All": 0.962, "Ablation": 0.915},
    "wiki": {"All": 0.973, "Ablation": 0.507},
    "yahoo": {"All": 0.969, "Ablation": 0.468},
}

# The reference tool's figures on the dev split alone (REFERENCE_FIGURES.md, "GMEG dev (PRWS)"):
# the mean of each system's non-empty segment cells (FCE) and % unchanged per file.
DEV_FCE_MEANS = {
    "amu": 70.126752, "marian": 76.654540, "nus": 73.620932, "lstm": 74.063921, "lstm-r": 74.252941,
    "ref": 83.539715, "source": 67.589244, "transformer": 73.674738,
}  # fmt: skip
DEV_UNCHANGED = {
    "fce": {"amu": 60.7, "lstm": 34.7, "lstm-r": 30.7, "marian": 38.8, "nus": 50.7, "transformer": 26.8,
            "source+error": 0.0, "ref0": 17.0, "ref1": 20.5, "ref2": 22.9, "ref3": 27.9},
    "wiki": {"amu": 70.5, "lstm": 41.1, "lstm-r": 35.6, "marian": 64.6, "nus": 66.3, "transformer": 15.9,
             "source+error": 0.1, "ref0": 19.0, "ref1": 17.6, "ref2": 19.1, "ref3": 24.5},
}  # fmt: skip
