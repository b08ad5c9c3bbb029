"""The 2024 meta-evaluation modes (issue 24): subsets by tag, window analysis, Williams per
subset, sentence-level tau/accuracy from Appraise XML, imported scores."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from itertools import combinations
from pathlib import Path

import pytest

from geceval.errors import GecInputError
from geceval.metaeval import kobayashi2024 as m24
from tests.shared_data import REPO, shared_path

TAGS = {
    "amu": frozenset({"classic"}),
    "camb": frozenset({"classic"}),
    "gpt": frozenset({"fluent"}),
    "ref-f": frozenset({"fluent"}),
    "source": frozenset({"input"}),
}


def _cli(*args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "geceval", "meta-eval", *args, "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# --------------------------------------------------------------------------- tags and subsets


@pytest.mark.parametrize(
    ("subset", "members"),
    [
        ("classic", ["amu", "camb"]),
        ("classic+input", ["amu", "camb", "source"]),
        ("classic+fluent", ["amu", "camb", "gpt", "ref-f"]),
        ("classic+fluent+input", ["amu", "camb", "gpt", "ref-f", "source"]),
        ("all", ["amu", "camb", "gpt", "ref-f", "untagged"]),
        ("all+input", ["amu", "camb", "gpt", "ref-f", "source", "untagged"]),
    ],
)
def test_subsets_follow_the_tags(subset: str, members: list[str]) -> None:
    assert m24.subset_members(subset, [*TAGS, "untagged"], TAGS) == members


def test_tags_read_from_lines_or_json_and_refuse_unknown_tags() -> None:
    text = "system,tags\namu,classic\ngpt\tfluent\nsource input  # the unchanged source\nx classic+input\n"
    assert m24.parse_tags(text) == {
        "amu": frozenset({"classic"}),
        "gpt": frozenset({"fluent"}),
        "source": frozenset({"input"}),
        "x": frozenset({"classic", "input"}),
    }
    assert m24.parse_tags('{"amu": ["classic"], "src": "input"}') == {
        "amu": frozenset({"classic"}),
        "src": frozenset({"input"}),
    }
    with pytest.raises(GecInputError, match="unknown tag 'neural'"):
        m24.parse_tags("amu neural\n")
    with pytest.raises(GecInputError, match="listed twice"):
        m24.parse_tags("amu classic\namu fluent\n")


def test_unknown_subset_is_refused() -> None:
    with pytest.raises(GecInputError, match="unknown subset 'modern'"):
        m24.subset_members("modern", ["a"], {})


# --------------------------------------------------------------------------- windows


def test_window_analysis_by_hand() -> None:
    human = {"A": 5.0, "B": 4.0, "C": 3.0, "D": 2.0, "E": 1.0}
    metric = {"A": 5.0, "B": 3.0, "C": 4.0, "D": 2.0, "E": 1.0}
    w1, w2 = m24.window_correlations(metric, human, human, k=4)
    # window 1, A B C D: metric (5,3,4,2) vs human (5,4,3,2): centred (1.5,-.5,.5,-1.5) and
    # (1.5,.5,-.5,-1.5), products sum 4, each sum of squares 5 -> r = 0.8; ranks differ by
    # (0,1,1,0) -> rho = 1 - 6*2/(4*15) = 0.8.
    assert (w1.start, w1.systems) == (1, ["A", "B", "C", "D"])
    assert (w1.pearson, w1.spearman) == (pytest.approx(0.8), pytest.approx(0.8))
    # window 2, B C D E: metric (3,4,2,1) vs human (4,3,2,1): the same 0.8 and 0.8.
    assert (w2.start, w2.systems) == (2, ["B", "C", "D", "E"])
    assert (w2.pearson, w2.spearman) == (pytest.approx(0.8), pytest.approx(0.8))
    with pytest.raises(GecInputError, match="at least 3"):
        m24.window_correlations(metric, human, human, k=2)


def test_a_window_where_the_metric_is_flat_is_nan() -> None:
    human = {"A": 3.0, "B": 2.0, "C": 1.0}
    (w,) = m24.window_correlations({"A": 1.0, "B": 1.0, "C": 1.0}, human, human, k=3)
    assert w.pearson != w.pearson and w.spearman != w.spearman


# --------------------------------------------------------------------------- imported scores


def test_imported_scores_in_csv_tsv_and_json(tmp_path: Path) -> None:
    (tmp_path / "s.tsv").write_text("item\tsystem\tscore\n0\tamu\t0.5\n1\tamu\t0.25\n")
    (tmp_path / "s.json").write_text('{"amu": [0.5, 0.25]}')
    (tmp_path / "s2.json").write_text('[{"hyp": "/x/y/amu", "sentences": [{"f": 0.5}, {"f": 0.25}]}]')
    for name in ("s.tsv", "s.json", "s2.json"):
        assert m24.read_sentence_scores(str(tmp_path / name)) == {"amu": {"0": 0.5, "1": 0.25}}
    (tmp_path / "sys.csv").write_text("Score,System\n0.4,amu\n0.3,camb\n")
    (tmp_path / "sys.json").write_text('{"amu": 0.4, "camb": 0.3}')
    for name in ("sys.csv", "sys.json"):
        assert m24.read_system_scores(str(tmp_path / name)) == {"amu": 0.4, "camb": 0.3}
    (tmp_path / "bad.csv").write_text("system,item,score\namu,0,high\n")
    with pytest.raises(GecInputError, match="line 2: score 'high' is not a number"):
        m24.read_sentence_scores(str(tmp_path / "bad.csv"))
    (tmp_path / "nan.csv").write_text("system,score\namu,nan\n")
    with pytest.raises(GecInputError, match="not finite"):
        m24.read_system_scores(str(tmp_path / "nan.csv"))


def test_the_level_of_an_imported_file_is_read_from_its_shape(tmp_path: Path) -> None:
    (tmp_path / "s.csv").write_text("system,sentence,score\namu,1,0.5\n")
    (tmp_path / "s.json").write_text('{"amu": {"1": 0.5}}')
    (tmp_path / "sys.tsv").write_text("system\tscore\namu\t0.4\n")
    (tmp_path / "sys.json").write_text('[{"system": "amu", "score": 0.4}]')
    assert m24.read_scores(str(tmp_path / "s.csv")) == ("sentence", {"amu": {"1": 0.5}})
    assert m24.read_scores(str(tmp_path / "s.json")) == ("sentence", {"amu": {"1": 0.5}})
    assert m24.read_scores(str(tmp_path / "sys.tsv")) == ("system", {"amu": 0.4})
    assert m24.read_scores(str(tmp_path / "sys.json")) == ("system", {"amu": 0.4})
    # an upload is read from its bytes, named in errors as uploaded
    from geceval.formats.inputs import Input

    with pytest.raises(GecInputError, match=r"some\.csv.*not a number"):
        m24.read_scores(Input("some.csv", b"system,score\namu,x\n"))
    with pytest.raises(GecInputError, match=r"some\.csv:2: not valid UTF-8"):
        m24.read_scores(Input("some.csv", b"system,score\n\xff,1\n"))


def test_a_score_file_is_read_as_it_streams_with_every_limit_counted() -> None:
    # issue 36: a CSV's scores are handed on one by one; the cap is met at the row that passes it
    rows = b"system,item,score\n" + b"".join(b"amu,%d,0.5\n" % i for i in range(10))
    opened = m24.score_rows(rows, limits=m24.ScoreLimits(scores=4))
    assert opened.level == "sentence"
    got = [next(opened.rows)[:3] for _ in range(4)]
    assert got == [("amu", str(i), 0.5) for i in range(4)]
    with pytest.raises(GecInputError, match="line 6: the file holds more than 4 scores"):
        next(opened.rows)
    with pytest.raises(GecInputError, match="more than 5 lines"):
        m24.read_scores(rows, limits=m24.ScoreLimits(lines=5))
    with pytest.raises(GecInputError, match="longer than 8 characters"):
        m24.read_scores(rows, limits=m24.ScoreLimits(line_chars=8))
    with pytest.raises(GecInputError, match="decompresses to more than 100 bytes"):
        m24.read_scores(gzip.compress(rows), limits=m24.ScoreLimits(bytes=100))
    # JSON is parsed whole: its own bound, and a message that says what to do
    big = json.dumps({"amu": [0.5] * 100}).encode()
    with pytest.raises(GecInputError, match=r"JSON score file is read whole: at most 100 bytes.*CSV or TSV"):
        m24.read_scores(big, limits=m24.ScoreLimits(json_bytes=100))
    assert m24.read_scores(big, limits=m24.ScoreLimits(json_bytes=len(big)))[1]["amu"]["99"] == 0.5
    with pytest.raises(GecInputError, match="nested too deeply"):
        m24.read_scores(b"[" * 100_000 + b"]" * 100_000)
    # the caller's guard is called every CHECK_ROWS scores
    calls: list[int] = []
    many = b"system,item,score\n" + b"amu,1,0.5\n" * (2 * m24.CHECK_ROWS)
    opened = m24.score_rows(many, limits=m24.ScoreLimits(check=calls.append))
    assert sum(1 for _ in opened.rows) == 2 * m24.CHECK_ROWS and calls == [m24.CHECK_ROWS, 2 * m24.CHECK_ROWS]


def test_a_score_table_keeps_line_numbers_past_blank_lines_and_a_bom() -> None:
    data = "\ufeff\nsystem,item,score\n\namu,0,0.5\n,,\namu,1,x\n".encode()
    with pytest.raises(GecInputError, match="line 6: score 'x' is not a number"):
        m24.read_scores(data)
    with pytest.raises(GecInputError, match="empty file"):
        m24.read_scores(b"\n \n")


# --------------------------------------------------------------------------- CLI, system level


def test_cli_subsets_window_and_williams(tmp_path: Path) -> None:
    names = ["s1", "s2", "s3", "s4", "s5", "s6", "src"]
    human = [7, 6, 5, 4, 3, 2, 1]
    good = [7.1, 5.9, 5.2, 3.8, 3.1, 2.2, 0.9]  # follows the humans closely
    poor = [3, 7, 1, 6, 2, 5, 4]  # does not
    for path, values in (("human.csv", human), ("good.csv", good), ("poor.csv", poor)):
        (tmp_path / path).write_text("system,score\n" + "".join(f"{n},{v}\n" for n, v in zip(names, values)))
    out = _cli(
        *("--metric-scores", str(tmp_path / "good.csv"), str(tmp_path / "poor.csv")),
        *("--human-scores", str(tmp_path / "human.csv")),
        *("--tag", "src=input", "--subset", "all", "all+input", "--window"),
    )
    all_, with_input = out["subsets"]["all"], out["subsets"]["all+input"]
    assert all_["systems"] == names[:-1] and with_input["systems"] == names
    assert [m["n"] for m in all_["metrics"]] == [6, 6]
    assert all_["metrics"][0]["spearman"] == pytest.approx(1.0)
    assert with_input["metrics"][0]["spearman"] == pytest.approx(1.0)
    # poor vs human ranks (3,7,1,6,2,5,4) vs (7,6,5,4,3,2,1): sum d^2 = 56, rho = 1 - 6*56/(7*48) = 0
    assert with_input["metrics"][1]["spearman"] == pytest.approx(0.0, abs=1e-12)
    (w,) = with_input["williams"]
    assert (w["metric1"], w["metric2"], w["df"]) == (
        str(tmp_path / "good.csv"),
        str(tmp_path / "poor.csv"),
        4,
    )
    assert w["p"] < 0.05
    win = out["window"]
    assert (win["k"], win["subset"], win["order"]) == (4, "all", names[:-1])
    good_windows = win["metrics"][str(tmp_path / "good.csv")]
    assert [r["start"] for r in good_windows] == [1, 2, 3]
    assert all(r["spearman"] == pytest.approx(1.0) for r in good_windows)


# --------------------------------------------------------------------------- CLI, sentence level

XML = """<?xml version="1.0" encoding="UTF-8"?>
<appraise-results><ranking-result source-language="en" id="none" target-language="en">
  <ranking-item doc-id="none" id="0" user="u1">
    <translation system="A" rank="1" /><translation system="B,C" rank="2" />
  </ranking-item>
  <ranking-item doc-id="none" id="1" user="u1">
    <translation system="A" rank="2" /><translation system="B" rank="1" /><translation system="C" rank="3" />
  </ranking-item>
</ranking-result></appraise-results>
"""


def test_cli_sentence_level_tau_and_accuracy_by_hand(tmp_path: Path) -> None:
    (tmp_path / "j.xml").write_text(XML)
    (tmp_path / "metric.csv").write_text(
        "system,item,score\nA,0,0.9\nB,0,0.5\nC,0,0.1\nA,1,0.5\nB,1,0.5\nC,1,0.7\n"
    )
    out = _cli(
        *("--sentence-level", "--judgments", str(tmp_path / "j.xml")),
        *("--metric-sentence-scores", str(tmp_path / "metric.csv"), "--tag", "C=input"),
        *("--subset", "all+input", "all"),
    )
    # item 0: A > B and A > C, metric agrees twice; B = C (shown once as "B,C") is a human tie.
    # item 1: B > A but the metric ties them (discordant); A > C and B > C but the metric puts C
    # first (2 discordant). C 2, D 3: tau = (2 - 3) / 5 = -0.2, accuracy 2/5.
    (row,) = out["subsets"]["all+input"]["metrics"]
    assert (row["concordant"], row["discordant"], row["metric_ties"], row["human_ties"]) == (2, 3, 1, 1)
    assert (row["tau"], row["accuracy"]) == (pytest.approx(-0.2), pytest.approx(0.4))
    # without the system tagged input only the A-B pairs are left: one concordant, one tie
    (row,) = out["subsets"]["all"]["metrics"]
    assert (row["concordant"], row["discordant"], row["tau"], row["accuracy"]) == (1, 1, 0.0, 0.5)


def _independent_tau(xml_path: Path, scores: dict[str, list[float]]) -> tuple[int, int]:
    """Counted straight from the XML: every pair of entries of a ranking item, "A,B" entries
    split, refmix1 left out, src read as INPUT."""
    c = d = 0
    for item in ET.parse(xml_path).iter("ranking-item"):
        entries = []
        for t in item.iter("translation"):
            for name in t.get("system").split(","):
                if name != "refmix1":
                    entries.append(("INPUT" if name == "src" else name, int(t.get("rank"))))
        i = int(item.get("id"))
        for (s1, r1), (s2, r2) in combinations(entries, 2):
            if r1 == r2 or s1 == s2:
                continue
            better, worse = (s1, s2) if r1 < r2 else (s2, s1)
            if scores[better][i] > scores[worse][i]:
                c += 1
            else:
                d += 1
    return c, d


@pytest.mark.shared
@pytest.mark.slow
def test_sentence_level_on_the_conll14_appraise_judgments_counts_every_pair() -> None:
    from geceval.formats.text import read_lines
    from geceval.metrics.sacre import chrf

    xml = shared_path("gec-ranking", "data", "all_judgments.xml", required_in_ci=True)
    outputs = shared_path("grammatical-evaluation", "data", "original", "official_submissions")
    refs_dir = shared_path("gecmetrics", "data", "conll14st-test", "refs")
    refs = [str(refs_dir / f"conll14st-test.tok.trg{k}") for k in (0, 1)]
    out = _cli(
        *("--sentence-level", "--judgments", str(xml), "--outputs", str(outputs), "--alias", "src=INPUT"),
        *("--metrics", "chrf", "--source", str(refs_dir.parent / "conll14st-test.tok.src"), "--refs", *refs),
    )
    (row,) = out["subsets"]["all+input"]["metrics"]
    ref_lines = [read_lines(r, allow_empty=True) for r in refs]
    scores = {
        p.name: chrf(ref_lines, read_lines(p, allow_empty=True), sentence=True).sentence_scores
        for p in outputs.iterdir()
        if p.is_file()
    }
    c, d = _independent_tau(xml, scores)
    assert (row["concordant"], row["discordant"]) == (c, d)
    assert row["missing"] == 0 and row["human_ties"] > 0
    assert 0.3 < row["tau"] < 0.5


def test_pair_counts_sum_to_the_agreement_of_every_subset() -> None:
    """The rows a run stores give, for any subset, what sentence_agreement gives on the judgments
    of that subset (random judgments and scores with ties on both sides, a system without scores)."""
    import random

    from geceval.formats.judgments import PairwiseJudgment
    from geceval.metaeval.correlation import sentence_agreement

    rng = random.Random(7)
    systems = ["A", "B", "C", "D", "E"]
    judgments = [
        PairwiseJudgment(str(rng.randrange(20)), "j", a, rng.randint(1, 3), b, rng.randint(1, 3))
        for _ in range(400)
        for a, b in [rng.sample(systems, 2)]
    ]
    scores = {s: {str(i): float(rng.randint(0, 4)) for i in range(20)} for s in systems[:4]}
    rows = m24.sentence_pair_counts(judgments, scores, exclude=["D"])
    assert all(r[0] < r[1] and "D" not in r[:2] for r in rows)
    for members in (systems, ["A", "B", "C"], ["A", "E"], ["B", "D", "E"]):
        want = sentence_agreement(m24.judgments_in(judgments, members), scores, exclude=["D"])
        got = m24.agreement_from_pair_counts(rows, members)
        assert got == want or (
            got.concordant + got.discordant == 0 and want.concordant + want.discordant == 0
        )
    everything = m24.agreement_from_pair_counts(rows)
    assert everything == sentence_agreement(judgments, scores, exclude=["D"])
    assert everything.missing > 0 and everything.metric_ties > 0 and everything.human_ties > 0
