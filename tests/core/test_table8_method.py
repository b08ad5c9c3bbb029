"""GMEG 2019 Table 8's method (issue 42): one test per difference found between the paper's
sections 5-6 and our code."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from geceval.metaeval import hybrids as hybrid_metaeval
from geceval.metrics.ensemble.features import ScorerFeatures

LINES = ["the cat sat", "a dog ran away", "it is good", "we go home now", "he has one", "she is here"]


def _domain(tmp_path: Path) -> Path:
    """Five GEC systems, Source (a column of the segment scores, as GMEG's CSVs) and
    Source+error (a file without a column), one reference."""
    domain = tmp_path / "wiki"
    domain.mkdir()
    (domain / "source").write_text("\n".join(LINES) + "\n")
    (domain / "ref0").write_text("\n".join(line + " ." for line in LINES) + "\n")
    systems = ["amu", "lstm", "marian", "nus", "transformer"]
    for k, name in enumerate(systems, start=1):
        # system k corrects its first k lines
        out = [line + " ." if i < k else line for i, line in enumerate(LINES)]
        (domain / name).write_text("\n".join(out) + "\n")
    (domain / "source+error").write_text("\n".join("x " + line for line in LINES) + "\n")
    columns = [*systems, "ref", "source"]
    rows = [",".join(columns)]
    for i in range(len(LINES)):
        # Source is judged above most systems (as on GMEG Wiki and Yahoo): an outlier the
        # correlation must see
        rows.append(",".join(str(60 + 5 * k + i) for k in range(len(systems))) + f",90,{80 + i}")
    (tmp_path / "wiki-segment-scores.csv").write_text("\n".join(rows) + "\n")
    return domain


def test_source_enters_the_correlations_but_no_hybrid(tmp_path: Path) -> None:
    """GMEG section 6: "The upper and lower-bounds (Reference and Source+error) ... are therefore
    not included in any of the correlation calculations"; section 5.2: hybrids from "pairs of
    systems (not including Reference, Source, and Source+error)". Until issue 42 Source was
    left out of both."""
    domain = _domain(tmp_path)
    result = hybrid_metaeval.hybrid_meta_eval(domain, metrics=["chrf"], count=20, seed=3)
    assert "source" in result.real_systems and result.n_real == 6
    assert result.hybrid_bases == ["amu", "lstm", "marian", "nus", "transformer"]
    assert "source" not in result.left_out
    hybrids = [n for n in result.scores if "@" in n]
    assert len(hybrids) == 20 and not any("source" in n for n in hybrids)
    # the correlation is over every real system, Source included, and the hybrids
    names = list(result.scores)
    h = np.array([result.scores[n]["human"] for n in names])
    m = np.array([result.scores[n]["chrf"] for n in names])
    assert "source" in names
    assert result.correlations[0].pearson == pytest.approx(float(stats.pearsonr(m, h)[0]), abs=1e-12)
    without = [k for k, n in enumerate(names) if n != "source"]
    assert not math.isclose(result.correlations[0].pearson, float(stats.pearsonr(m[without], h[without])[0]))


def test_exclude_still_removes_source_from_the_correlation(tmp_path: Path) -> None:
    domain = _domain(tmp_path)
    left = (*hybrid_metaeval.GMEG_CORRELATION_LEFT_OUT, "source")
    result = hybrid_metaeval.hybrid_meta_eval(domain, metrics=["chrf"], count=20, seed=3, left_out=left)
    assert "source" not in result.real_systems and "source" in result.left_out and result.n_real == 5


def test_errant_table8_score_is_the_mean_of_the_category_f_scores(tmp_path: Path) -> None:
    """GMEG section 5.1: ERRANT is "The average F0.5 or F0.2 score of the 24 error categories
    assigned by ERRANT, without the finer grained distinction between Missing, Replacement, or
    Unnecessary edits"; until issue 42 Table 8 used the corpus F over all edits."""
    source = ["He go to school yesterday .", "She have two cat .", "I like apple ."]
    refs = [["He went to school yesterday .", "She has two cats .", "I like apples ."]]
    hyp = ["He went to school yesterday .", "She has two cat .", "I like apple ."]
    features = ScorerFeatures(source, refs, components=["errant"])
    for beta in (0.2, 0.5):
        result = features._errant(hyp, beta)
        defined = [s.f for s in result.per_category.values() if s.f is not None]
        macro = sum(defined) / len(defined)
        got = features.metric_scores(hyp, [f"errant-{beta}"])[f"errant-{beta}"]
        assert got == pytest.approx(macro, abs=1e-12)
        assert got != pytest.approx(result.f, abs=1e-3)


def test_extra_scorers_are_correlated_over_the_same_systems_and_hybrids(tmp_path: Path) -> None:
    """The GMEG-Metric row of Table 8 is the ensemble scored over Table 8's own systems and
    hybrids; ``extra`` is how it gets there."""
    domain = _domain(tmp_path)
    seen = []

    def factory(source: list[str], references: list[list[str]]):
        seen.append((len(source), len(references)))
        return lambda lines: float(sum(len(line) for line in lines))

    result = hybrid_metaeval.hybrid_meta_eval(
        domain, metrics=["chrf"], count=12, seed=1, extra={"length": factory}
    )
    assert seen == [(len(LINES), 1)]
    names = list(result.scores)
    h = np.array([result.scores[n]["human"] for n in names])
    x = np.array([result.scores[n]["length"] for n in names])
    got = {c.metric: c for c in result.correlations}
    assert got["length"].pearson == pytest.approx(float(stats.pearsonr(x, h)[0]), abs=1e-12)
    assert got["length"].spearman == pytest.approx(float(stats.spearmanr(x, h)[0]), abs=1e-12)
    assert result.williams["length"]["chrf"] is not None
    with pytest.raises(ValueError, match="clashes"):
        hybrid_metaeval.hybrid_meta_eval(domain, metrics=["chrf"], count=2, extra={"chrf": factory})
