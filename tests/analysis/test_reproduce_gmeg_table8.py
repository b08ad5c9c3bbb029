"""reproduce gmeg, issue 42: Table 8's GMEG-Metric row from the ensemble trained on dev, and
Table 6 for a domain whose texts the release withholds (Yahoo)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ranking.analysis import gmeg_published as pub
from ranking.analysis import reproduce_gmeg
from tests.shared_data import shared_path

SYSTEMS = ["amu", "lstm", "lstm-r", "marian", "nus", "transformer", "source"]


def _small_release(tmp_path: Path, n: int = 24, *, wiki: bool = False) -> Path:
    """The first ``n`` sentences of the real FCE dev and test splits (and with ``wiki`` of Wiki dev,
    the release's only other domain with texts), in the release's layout."""
    data = shared_path("GMEG", "data")
    out = tmp_path / "data"
    parts = [("dev", "fce"), ("test", "fce"), *([("dev", "wiki")] if wiki else [])]
    for split, domain in parts:
        (out / split / domain).mkdir(parents=True)
        for f in (data / split / domain).iterdir():
            lines = f.read_text(encoding="utf-8").splitlines()[:n]
            (out / split / domain / f.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        csv = (data / split / f"{domain}-segment-scores.csv").read_text().splitlines()[: n + 1]
        (out / split / f"{domain}-segment-scores.csv").write_text("\n".join(csv) + "\n")
    return out


@pytest.mark.slow
def test_gmeg_metric_row_is_the_dev_trained_ensemble_over_table8_hybrids(tmp_path, monkeypatch):
    monkeypatch.setenv("GECEVAL_CACHE", str(tmp_path / "cache"))
    data = _small_release(tmp_path)
    rows = reproduce_gmeg.gmeg_tables(data, split="all", tables=("8",), metrics=("gleu",), hybrids=10)
    r, rho = (next(x for x in rows if (x.row, x.column) == ("GMEG-Metric", c)) for c in ("r", "rho"))
    assert (r.published, rho.published) == pub.TABLE8["fce"]["GMEG-Metric"]
    assert r.ours is not None and rho.ours is not None and -1 <= r.ours <= 1
    # the same figure from the pieces: the model trained on dev, scored over the test hybrids
    ensemble = reproduce_gmeg.train_gmeg_metric(data, seed=0, hybrids=10)
    assert ensemble is not None and ensemble.domains == ["fce"]
    assert ensemble.model.alpha == 0.001 and len(ensemble.model.features) > 20
    again = reproduce_gmeg.table8(data, "fce", metrics=("gleu",), seed=0, hybrids=10, ensemble=ensemble)
    assert next(x for x in again if (x.row, x.column) == ("GMEG-Metric", "r")).ours == pytest.approx(r.ours)
    for row in (r, rho):
        if row.ok is False:
            assert row.known == "fewer domains" and "wiki, yahoo" in row.why
    # without the dev split selected there is no model, and the row says so
    test_only = reproduce_gmeg.gmeg_tables(data, split="test", tables=("8",), metrics=("gleu",), hybrids=10)
    row = next(x for x in test_only if (x.row, x.column) == ("GMEG-Metric", "r"))
    assert row.ours is None and "trained on the dev split" in row.why


@pytest.mark.slow
def test_table8_scores_metrics_and_gmeg_metric_with_one_extractor(tmp_path, monkeypatch):
    # the profile of issue 42's second part: GMEG-Metric's features built a second extractor over the
    # test domain and scored every real system again (I-measure, M2, ERRANT, GLEU); now one is built
    from geceval.metaeval.hybrids import hybrid_meta_eval
    from geceval.metrics.ensemble.features import ScorerFeatures

    data = _small_release(tmp_path)
    monkeypatch.setenv("GECEVAL_CACHE", str(tmp_path / "train"))
    ensemble = reproduce_gmeg.train_gmeg_metric(data, seed=0, hybrids=10)
    built = []
    init = ScorerFeatures.__init__

    def counting(self, *args, **kwargs):
        built.append(kwargs.get("components"))
        init(self, *args, **kwargs)

    monkeypatch.setattr(ScorerFeatures, "__init__", counting)
    monkeypatch.setenv("GECEVAL_CACHE", str(tmp_path / "shared"))  # no feature on disk yet
    rows = reproduce_gmeg.table8(
        data, "fce", metrics=("gleu", "m2-0.5"), seed=0, hybrids=10, ensemble=ensemble
    )
    assert len(built) == 1
    shared = {(x.row, x.column): x.ours for x in rows}
    # the same figures as two extractors give (the code before)
    monkeypatch.setenv("GECEVAL_CACHE", str(tmp_path / "apart"))
    apart = hybrid_meta_eval(
        data / "test" / "fce", metrics=("gleu", "m2-0.5"), count=10, seed=0,
        extra={"gmeg-metric": ensemble.factory([])},
    )  # fmt: skip
    assert len(built) == 3
    by_metric = {c.metric: (c.pearson, c.spearman) for c in apart.correlations}
    assert (shared[("GMEG-Metric", "r")], shared[("GMEG-Metric", "rho")]) == by_metric["gmeg-metric"]
    assert (shared[("M2 0.5", "r")], shared[("GLEU", "r")]) == (by_metric["m2-0.5"][0], by_metric["gleu"][0])


# The GMEG-Metric row of a reduced run (issue 42, h44): the first PIN_SENTENCES sentences of FCE dev,
# Wiki dev and FCE test, PIN_HYBRIDS hybrids per domain, seed 0. The full run (968-992 sentences,
# 674 hybrids; docs/reproducing-papers.md, "GMEG Table 8, cell by cell") takes about 3 CPU-minutes,
# too long for CI; this one took 37 CPU-seconds here (2026-11-27, h44).
PIN_SENTENCES = 150
PIN_HYBRIDS = 100


@pytest.mark.shared
@pytest.mark.slow
def test_gmeg_metric_row_pinned_on_a_reduced_release(tmp_path):
    """GMEG section 5.2: the ensemble (ridge, alpha 0.001) "trained on the development set", on "the
    combined data from all domains", scored over Table 8's systems and hybrids of the test split.
    Pinned: what the model learns from (its domains, alpha and features) and the row's r and rho."""
    data = _small_release(tmp_path, PIN_SENTENCES, wiki=True)
    ensemble = reproduce_gmeg.train_gmeg_metric(data, seed=0, hybrids=PIN_HYBRIDS)
    assert ensemble is not None and ensemble.domains == ["fce", "wiki"]
    assert ensemble.model.alpha == 0.001 and len(ensemble.model.features) == 75
    rows = reproduce_gmeg.table8(
        data, "fce", metrics=("gleu",), seed=0, hybrids=PIN_HYBRIDS, ensemble=ensemble
    )
    got = {x.column: (round(x.ours, 3), x.published, x.known) for x in rows if x.row == "GMEG-Metric"}
    # outside 0.05 of the paper's full-size figures, with the reason the command gives (no Yahoo dev);
    # 0.768 / 0.746 while the ensemble's training rows left Source out (before h49)
    assert got == {"r": (0.877, 0.984, "fewer domains"), "rho": (0.843, 0.950, "fewer domains")}


def test_table6_yahoo_means_from_the_public_segment_scores(tmp_path):
    """The release withholds the Yahoo texts but publishes its dev segment and corpus scores."""
    src = shared_path("GMEG", "data", "dev", "yahoo-segment-scores.csv")
    data = tmp_path / "data"
    (data / "dev").mkdir(parents=True)
    (data / "dev" / "yahoo-segment-scores.csv").write_bytes(src.read_bytes())
    corpus = {
        line.split(",")[0]: float(line.split(",")[1])
        for line in (src.parent / "yahoo-corpus-scores.csv").read_text().splitlines()[1:]
    }
    with pytest.raises(FileNotFoundError):
        reproduce_gmeg.gmeg_tables(data, split="dev", tables=("6",))  # no domain with texts at all
    (data / "dev" / "fce").mkdir()
    for name in ("source", "amu"):
        (data / "dev" / "fce" / name).write_text("a b\n")
    (data / "dev" / "fce-segment-scores.csv").write_text("amu\n70\n")
    rows = [r for r in reproduce_gmeg.gmeg_tables(data, split="dev", tables=("6",)) if r.domain == "yahoo"]
    means = {r.row: r for r in rows if r.column == "mean"}
    # the release's own corpus scores are the means of its segment scores
    for system, value in corpus.items():
        assert means[system].ours == pytest.approx(value, abs=1e-9)
        assert means[system].published == pub.TABLE6_MEAN["yahoo"][system]
        assert means[system].split == "dev"
        if means[system].ok is False:
            assert means[system].known == "split incomplete"
    assert means["source+error"].ours is None
    unchanged = [r for r in rows if r.column == "% unchanged"]
    assert len(unchanged) == len(pub.TABLE6_UNCHANGED["yahoo"])
    assert all(r.ours is None and "withholds" in r.why for r in unchanged)


def test_table8_reasons_follow_the_paper_text():
    """GMEG section 5.1: "I-measure With the -nomix option": -nomix cannot explain a difference
    from the paper (the reason used to say "ours is I-measure -nomix"); the cell is listed as
    unexplained with what was tried."""
    known, why = reproduce_gmeg.KNOWN[("8", "fce", "I-measure", "r")]
    assert known == "unexplained" and "the paper used -nomix too" in why and "ieval.py" in why
    assert all("ours is I-measure -nomix" not in w for _k, w in reproduce_gmeg.KNOWN.values())
    assert "(n = 1..6)" in reproduce_gmeg.KNOWN[("8", "fce", "CHRF++", "r")][1]


@pytest.mark.shared
@pytest.mark.slow
def test_table8_fce_test_every_metric_cell_pinned_with_its_status():
    """Every metric cell of Table 8 on FCE test (674 hybrids, seed 0) as ``reproduce gmeg`` prints it,
    with whether it is within 0.05 or carries a reason (ranking/analysis/reproduce_reasons.py): the
    reasons and docs/reproducing-papers.md quote these figures (GMEG-Metric, trained on dev, is
    pinned on a reduced run above; Human has no value without individual ratings)."""
    data = shared_path("GMEG", "data", "test", "fce-segment-scores.csv").parents[1]
    rows = reproduce_gmeg.table8(data, "fce", metrics=reproduce_gmeg.TABLE8_METRICS, seed=0, hybrids=674)
    got = {(x.row, x.column): (round(x.ours, 3), x.published, x.known) for x in rows if x.ours is not None}
    unexplained, version = "unexplained", "metric version"
    assert got == {
        ("CHRF++", "r"): (0.824, 0.639, version),
        ("CHRF++", "rho"): (0.831, 0.733, version),
        ("ERRANT0.2", "r"): (0.845, 0.828, None),
        ("ERRANT0.2", "rho"): (0.833, 0.779, version),
        ("ERRANT0.5", "r"): (0.932, 0.919, None),
        ("ERRANT0.5", "rho"): (0.919, 0.887, None),
        ("GLEU", "r"): (0.838, 0.838, None),
        ("GLEU", "rho"): (0.818, 0.813, None),
        ("charGLEU", "r"): (0.970, 0.959, None),
        ("charGLEU", "rho"): (0.945, 0.932, None),
        ("I-measure", "r"): (0.915, 0.819, unexplained),
        ("I-measure", "rho"): (0.898, 0.839, unexplained),
        ("M2 0.2", "r"): (0.836, 0.852, None),
        ("M2 0.2", "rho"): (0.858, 0.846, None),
        ("M2 0.5", "r"): (0.890, 0.860, None),
        ("M2 0.5", "rho"): (0.895, 0.849, None),
    }


def test_table8_cell_of_a_domain_without_its_own_reason_says_what_was_tried_and_still_fails():
    """Table 8 on a test domain we never had (Yahoo; the checker runs on it): I-measure off gets the
    entry for every domain ("*": what was tried), stays unexplained, so the command still exits 1."""
    from ranking.analysis.reproduce_reasons import GMEG_KNOWN
    from ranking.analysis.reproduce_report import cell_of, failed

    yahoo = reproduce_gmeg._row("8", "test", "yahoo", "I-measure", "r", 0.915, 0.5)
    assert (yahoo.known, yahoo.why) == GMEG_KNOWN[("8", "*", "I-measure", "rho")]
    assert "ref0 alone" in yahoo.why and cell_of(yahoo).status == "unexplained" and failed([cell_of(yahoo)])
    # a domain's own entry comes first; a cell within tolerance carries none
    wiki = reproduce_gmeg._row("8", "test", "wiki", "I-measure", "rho", 0.875, 0.6)
    assert wiki.why == GMEG_KNOWN[("8", "wiki", "I-measure", "rho")][1] and wiki.why != yahoo.why
    assert reproduce_gmeg._row("8", "test", "yahoo", "I-measure", "r", 0.915, 0.9).known is None
    # every other metric off on such a domain says what Wiki dev showed and what was checked, and fails
    gleu = reproduce_gmeg._row("8", "test", "yahoo", "GLEU", "r", 0.740, 0.5)
    assert cell_of(gleu).status == "unexplained" and failed([cell_of(gleu)])
    assert "r 0.400 / rho 0.546" in gleu.why and "tokenisation" in gleu.why
    chargleu = reproduce_gmeg._row("8", "test", "wiki", "charGLEU", "r", 0.644, 0.883)
    assert "without spaces 0.643" in chargleu.why and cell_of(chargleu).status == "unexplained"
    # FCE keeps its own reasons: an explained cell stays explained, a cell without one stays off
    assert reproduce_gmeg._row("8", "test", "fce", "CHRF++", "r", 0.639, 0.824).known == "metric version"
    assert cell_of(reproduce_gmeg._row("8", "test", "fce", "GLEU", "r", 0.838, 0.7)).status == "off"
