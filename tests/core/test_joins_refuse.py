"""Joins that refuse and options never dropped (issue 34): meta-eval in all its modes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from geceval.formats.joins import JoinError
from geceval.metaeval import hybrids as hybrid_metaeval
from tests.shared_data import REPO

SYSTEMS = ["BART", "T5", "GECToR", "GPT-3.5", "Riken"]


def _meta_eval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "geceval", "meta-eval", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )


def _system_files(tmp_path: Path, metric_names: list[str]) -> tuple[Path, Path]:
    human = tmp_path / "human.csv"
    human.write_text("system,score\n" + "".join(f"{s},{k}\n" for k, s in enumerate(SYSTEMS)))
    metric = tmp_path / "metric.csv"
    metric.write_text("system,score\n" + "".join(f"{s},{k / 10}\n" for k, s in enumerate(metric_names)))
    return human, metric


@pytest.mark.parametrize("mode", [(), ("--subset", "all+input")], ids=["classic", "2024"])
def test_system_level_names_that_do_not_match_are_refused_naming_both_sides(
    tmp_path: Path, mode: tuple[str, ...]
) -> None:
    human, metric = _system_files(tmp_path, [f"{s}.txt" for s in SYSTEMS])
    proc = _meta_eval("--metric-scores", str(metric), "--human-scores", str(human), *mode, "--json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "only 0 of 5 judged systems (0.0%) found their scores, at least 90% are needed" in proc.stderr
    assert "the human scores name BART, GECToR, GPT-3.5, Riken, T5" in proc.stderr
    assert "but the scores have BART.txt, GECToR.txt, GPT-3.5.txt, Riken.txt, T5.txt" in proc.stderr


def test_system_level_a_partial_join_passes_only_when_allowed(tmp_path: Path) -> None:
    human, metric = _system_files(tmp_path, SYSTEMS[:4])  # 4 of 5 = 80%
    args = ("--metric-scores", str(metric), "--human-scores", str(human), "--json")
    refused = _meta_eval(*args)
    assert refused.returncode == 2 and "only 4 of 5 judged systems (80.0%)" in refused.stderr
    assert "name Riken" in refused.stderr
    allowed = _meta_eval(*args, "--allow-missing")
    assert allowed.returncode == 0, allowed.stderr
    (row,) = json.loads(allowed.stdout)["metrics"]
    assert row["n"] == 4 and row["unmatched"] == ["Riken"]
    human, metric = _system_files(tmp_path, SYSTEMS)  # every system: no refusal, no flag needed
    assert _meta_eval("--metric-scores", str(metric), "--human-scores", str(human)).returncode == 0


XML = """<appraise-results><ranking-result>
  <ranking-item id="0" user="u"><translation system="BART" rank="1"/><translation system="T5" rank="2"/></ranking-item>
  <ranking-item id="1" user="u"><translation system="BART" rank="2"/><translation system="T5" rank="1"/></ranking-item>
</ranking-result></appraise-results>
"""


def test_sentence_level_outputs_named_with_an_extension_are_refused(tmp_path: Path) -> None:
    (tmp_path / "j.xml").write_text(XML)
    outputs = tmp_path / "out"
    outputs.mkdir()
    for system in ("BART.txt", "T5.txt"):
        (outputs / system).write_text("a b\nc d\n")
    (tmp_path / "ref").write_text("a b\nc d\n")
    args = (
        *("--sentence-level", "--judgments", str(tmp_path / "j.xml"), "--outputs", str(outputs)),
        *("--metrics", "chrf", "--source", str(tmp_path / "ref"), "--refs", str(tmp_path / "ref")),
    )
    proc = _meta_eval(*args, "--json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "chrf: only 0 of 2 judged pairs (0.0%) found their scores" in proc.stderr
    assert "the judgments name BART, T5 but the scores have BART.txt, T5.txt" in proc.stderr
    allowed = _meta_eval(*args, "--allow-missing", "--json")
    assert allowed.returncode == 0, allowed.stderr
    assert json.loads(allowed.stdout)["joined"] == {"chrf": {"matched": 0, "total": 2}}


def test_sentence_level_sentences_without_scores_are_refused(tmp_path: Path) -> None:
    (tmp_path / "j.xml").write_text(XML)
    metric = tmp_path / "m.csv"
    metric.write_text("system,item,score\nBART,1,0.5\nT5,1,0.7\nBART,7,0.1\nT5,7,0.2\n")
    proc = _meta_eval(
        "--sentence-level", "--judgments", str(tmp_path / "j.xml"), "--metric-sentence-scores", str(metric)
    )
    assert proc.returncode == 2
    assert "only 1 of 2 judged pairs (50.0%)" in proc.stderr
    assert (
        "the judgments name sentences 0 that have no score (the scores have 2 sentences, 1..7)" in proc.stderr
    )


def _gmeg_dir(tmp_path: Path, files: list[str], columns: list[str]) -> Path:
    domain = tmp_path / "fce"
    domain.mkdir()
    lines = ["the cat sat", "a dog ran away", "it is good", "we go home now", "he has one", "she is here"]
    (domain / "source").write_text("\n".join(lines) + "\n")
    (domain / "ref0").write_text("\n".join(lines) + "\n")
    for k, name in enumerate(files):
        # each system drops the last word of its first k lines: a metric ordering
        out = [" ".join(line.split()[:-1]) if i < k else line for i, line in enumerate(lines)]
        (domain / name).write_text("\n".join(out) + "\n")
    rows = [",".join(columns)]
    for i in range(len(lines)):
        rows.append(",".join(str(90 - 10 * k + i) for k in range(len(columns))))
    (tmp_path / "fce-segment-scores.csv").write_text("\n".join(rows) + "\n")
    return domain


def test_hybrids_honour_exclude_the_excluded_system_leaves_real_systems_and_hybrids(tmp_path: Path) -> None:
    names = ["amu", "camb", "nus", "lstm", "marian"]
    domain = _gmeg_dir(tmp_path, [*names, "source+error"], [*names, "ref", "source"])
    args = ("--hybrids", "20", "--data", str(domain), "--metrics", "chrf", "--json")
    every = json.loads(_meta_eval(*args).stdout)
    # Source is correlated (GMEG section 6) but mixed into no hybrid (section 5.2)
    assert every["real_systems"] == sorted([*names, "source"]) and every["n_real"] == 6
    assert every["hybrid_bases"] == sorted(names)
    proc = _meta_eval(*args, "--exclude", "lstm", "ref")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["real_systems"] == ["amu", "camb", "marian", "nus", "source"] and out["n_real"] == 5
    assert out["hybrid_bases"] == ["amu", "camb", "marian", "nus"]
    assert "lstm" in out["left_out"]
    assert out["metrics"][0]["pearson"] != every["metrics"][0]["pearson"]


def test_hybrids_refuse_segment_columns_without_files(tmp_path: Path) -> None:
    names = ["amu", "camb", "nus", "lstm", "marian"]
    domain = _gmeg_dir(tmp_path, ["amu", "camb", "nus.txt", "lstm.txt", "marian.txt"], [*names, "ref"])
    with pytest.raises(
        JoinError, match=r"only 2 of 5 judged systems .* the segment scores name lstm, marian, nus"
    ):
        hybrid_metaeval.hybrid_meta_eval(domain, metrics=["chrf"], count=4)
    proc = _meta_eval("--hybrids", "4", "--data", str(domain), "--metrics", "chrf")
    assert proc.returncode == 2 and "but the files have amu, camb" in proc.stderr


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        (("--hybrids", "4", "--data", "D", "--metric-scores", "M"), "--metric-scores"),
        (("--hybrids", "4", "--data", "D", "--subset", "all"), "--subset"),
        (("--hybrids", "4", "--data", "D", "--sentence-level"), "--sentence-level"),
        (("--metric-scores", "M", "--human-scores", "H", "--seed", "3"), "--seed"),
        (("--metric-scores", "M", "--human-scores", "H", "--data", "D"), "--data"),
        (("--metric-scores", "M", "--human-scores", "H", "--metrics", "m2"), "--metrics"),
        (("--metric-scores", "M", "--human-scores", "H", "--judgments", "J"), "--judgments"),
        (("--metric-scores", "M", "--human-scores", "H", "--src-id-base", "1"), "--src-id-base"),
        (("--metric-scores", "M", "--human-scores", "H", "--window", "--alias", "a=b"), "--alias"),
        (("--sentence-level", "--judgments", "J", "--metric-sentence-scores", "S", "--window"), "--window"),
        (
            ("--sentence-level", "--judgments", "J", "--metric-sentence-scores", "S", "--human-scores", "H"),
            "--human-scores",
        ),
        (
            ("--sentence-level", "--judgments", "J", "--metric-sentence-scores", "S", "--metrics", "m2"),
            "--metrics",
        ),
        (("--sentence-level", "--judgments", "J", "--metric-sentence-scores", "S", "--refs", "R"), "--refs"),
    ],
)
def test_an_option_the_mode_does_not_read_is_refused(args: tuple[str, ...], refused: str) -> None:
    proc = _meta_eval(*args)
    assert proc.returncode == 2
    assert f"{refused}: not used by" in proc.stderr and "leave it out" in proc.stderr


def _geceval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "geceval", *args], capture_output=True, text=True, cwd=REPO, timeout=300
    )


@pytest.mark.parametrize(
    ("metric", "extra", "refused"),
    [
        ("bleu", ("--beta", "1"), "--beta"),
        ("ter", ("--lambda", "0.5"), "--lambda"),
        ("chrf", ("--nomix", "--case-sensitive"), "--nomix, --case-sensitive"),
        ("gleu", ("--align", "levenshtein"), "--align"),
        ("gotoscorer", ("--sentence",), "--sentence"),
        ("bleu", ("--source", "r"), "--source"),
        ("chrf", ("--source", "r"), "--source"),
        ("ter", ("--source", "r"), "--source"),
    ],
)
def test_score_refuses_an_option_the_metric_does_not_read(
    tmp_path: Path, metric: str, extra: tuple[str, ...], refused: str
) -> None:
    (tmp_path / "r").write_text("a b c\n")
    proc = _geceval("score", metric, "--refs", str(tmp_path / "r"), "--hyp", str(tmp_path / "r"), *extra)
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"error: {refused}: not used by {metric}; leave it out" in proc.stderr


def test_score_keeps_the_options_a_metric_reads(tmp_path: Path) -> None:
    (tmp_path / "r").write_text("a b c\n")
    proc = _geceval(
        "score", "chrf", "--refs", str(tmp_path / "r"), "--hyp", str(tmp_path / "r"), "--beta", "1", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)[0]["beta"] == 1.0


def test_prws_refuses_rating_options_on_segment_means(tmp_path: Path) -> None:
    (tmp_path / "seg.csv").write_text("a,b\n50,60\n55,65\n")
    args = ("prws", str(tmp_path / "seg.csv"), "--format", "gmeg-segment-csv")
    assert _geceval(*args).returncode == 0
    proc = _geceval(*args, "--seed", "3", "--min-traps", "5")
    assert proc.returncode == 2
    assert "--seed, --min-traps: not used with --format gmeg-segment-csv" in proc.stderr


def test_ensemble_train_refuses_hybrid_options_without_synthetic_systems(tmp_path: Path) -> None:
    proc = _geceval(
        "ensemble",
        "train",
        str(tmp_path),
        "--out",
        str(tmp_path / "m.json"),
        "--no-synthetic",
        "--samples",
        "3",
    )
    assert proc.returncode == 2 and "--samples: not used with --no-synthetic" in proc.stderr
    assert not (tmp_path / "m.json").exists()
