"""A shared task in one command (issue 43): ``score m2,sentm2,... --refs M2 XML TEXT... --hyp FOLDER``.

Every system is scored with every metric in one process; each number must be the one ``score
METRIC`` gives for that system alone (the single-metric contract researchers script stays as it
is), the references are parsed once, and the one table comes as text, JSON, CSV or LaTeX with each
metric's signature.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from geceval.cli import main
from geceval.formats.ixml import m2_to_ixml, read_ixml
from geceval.formats.m2 import read_m2, write_m2
from geceval.formats.once import reading_once
from geceval.formats.text import read_lines
from geceval.metrics.references import references_to_m2

SOURCE = [
    "She like cats and dog .",
    "We is here since yesterday .",
    "He go to school every days .",
    "This are a good idea .",
    "They has many informations .",
]
REFERENCES = [
    [
        "She likes cats and dogs .",
        "We have been here since yesterday .",
        "He goes to school every day .",
        "This is a good idea .",
        "They have a lot of information .",
    ],
    [
        "She likes cats and dogs .",
        "We are here since yesterday .",
        "He goes to school each day .",
        "These are good ideas .",
        "They have much information .",
    ],
]
SYSTEMS = {
    "good": [
        "She likes cats and dogs .",
        "We are here since yesterday .",
        "He goes to school every day .",
        "This is a good idea .",
        "They have much information .",
    ],
    "partial_fix": [
        "She likes cats and dog .",
        "We is here since yesterday .",
        "He goes to school every days .",
        "This are a good idea .",
        "They have many information .",
    ],
    "source": SOURCE,
}
# gleu2015 and chargleu read text references like gleu; ter like bleu. errant is left to
# tests/core/test_errant.py (spaCy's start-up would dominate this file).
METRICS = ["m2", "sentm2", "imeasure", "gleu", "gleu2015", "chargleu", "bleu", "chrf", "ter"]


@pytest.fixture()
def task(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "src.txt").write_text("\n".join(SOURCE) + "\n")
    for i, ref in enumerate(REFERENCES):
        (tmp_path / f"ref{i}.txt").write_text("\n".join(ref) + "\n")
    gold = references_to_m2(SOURCE, REFERENCES, align="levenshtein")
    write_m2(tmp_path / "gold.m2", gold)
    (tmp_path / "gold.xml").write_text(m2_to_ixml(gold))
    systems = tmp_path / "systems"
    systems.mkdir()
    for name, lines in SYSTEMS.items():
        (systems / name).write_text("\n".join(lines) + "\n")
    (systems / ".notes").write_text("not a system\n")
    return {
        "src": tmp_path / "src.txt",
        "refs": [tmp_path / "gold.m2", tmp_path / "gold.xml", tmp_path / "ref0.txt", tmp_path / "ref1.txt"],
        "systems": systems,
    }


def _score(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main(["score", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def _task_args(task: dict[str, Path], metrics: list[str]) -> list[object]:
    return [",".join(metrics), "--source", task["src"], "--refs", *task["refs"], "--hyp", task["systems"]]


def _single(capsys, task: dict[str, Path], metric: str) -> list[dict]:
    """What ``score METRIC --json`` gives for each system, with the references it reads."""
    refs = {
        "m2": [task["refs"][0]],
        "sentm2": [task["refs"][0]],
        "imeasure": [task["refs"][1]],
    }.get(metric, task["refs"][2:])
    source = ["--source", task["src"]] if metric in ("gleu", "gleu2015", "chargleu", "imeasure") else []
    hyps = [task["systems"] / name for name in sorted(SYSTEMS)]
    code, out, err = _score(capsys, metric, *source, "--refs", *refs, "--hyp", *hyps, "--json")
    assert code == 0, err
    return json.loads(out)


def test_every_system_with_every_metric_gives_what_each_metric_gives_alone(capsys, task):
    code, out, err = _score(capsys, *_task_args(task, METRICS), "--json")
    assert code == 0, err
    rows = json.loads(out)
    # a folder gives its files, sorted, hidden ones left out; the rows go metric by metric
    assert [(r["metric"], Path(r["hyp"]).name) for r in rows] == [
        (m, name) for m in METRICS for name in sorted(SYSTEMS)
    ]
    for metric in METRICS:
        alone = _single(capsys, task, metric)
        together = [r for r in rows if r["metric"] == metric]
        assert together == alone, metric
    scores = {(r["metric"], Path(r["hyp"]).name): r["score"] for r in rows}
    for metric in METRICS:  # the data can tell the systems apart: a wrong gold would not
        higher_is_better = metric != "ter"
        best, worst = ("good", "source") if higher_is_better else ("source", "good")
        assert scores[metric, best] > scores[metric, worst], metric


def test_the_text_table_has_a_row_a_system_a_column_a_metric_and_every_signature(capsys, task):
    metrics = ["m2", "gleu", "bleu"]
    code, out, err = _score(capsys, *_task_args(task, metrics))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["system", *metrics]
    body = {line.split()[0]: line.split()[1:] for line in lines[1:4]}
    assert sorted(body) == sorted(SYSTEMS)
    rows = json.loads(_score(capsys, *_task_args(task, metrics), "--json")[1])
    for row in rows:
        shown = body[Path(row["hyp"]).name][metrics.index(row["metric"])]
        assert float(shown) == pytest.approx(row["score"], abs=5e-7)
    signatures = [line for line in lines[4:] if line]
    assert signatures == [
        f"{m}: {next(r['metric_signature'] for r in rows if r['metric'] == m)}" for m in metrics
    ]
    assert signatures[0].startswith("m2: metric:m2|nrefs:2|")
    assert signatures[2].startswith("bleu: metric:bleu|nrefs:2|tok:13a")


def test_csv_has_a_row_a_system_and_metric_at_full_precision(capsys, task):
    metrics = ["sentm2", "chrf"]
    code, out, err = _score(capsys, *_task_args(task, metrics), "--csv")
    assert code == 0, err
    table = list(csv.DictReader(io.StringIO(out)))
    rows = json.loads(_score(capsys, *_task_args(task, metrics), "--json")[1])
    assert [(r["hyp"], r["metric"], float(r["score"]), r["metric_signature"]) for r in table] == [
        (r["hyp"], r["metric"], r["score"], r["metric_signature"]) for r in rows
    ]


def test_latex_is_a_tabular_with_escaped_names_and_the_signatures_as_comments(capsys, task):
    code, out, err = _score(capsys, *_task_args(task, ["m2", "gleu2015"]), "--latex")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == r"\begin{tabular}{lrr}"
    assert r"System & m2 & gleu2015 \\" in lines
    row = next(line for line in lines if line.startswith("partial"))
    assert row.startswith(r"partial\_fix & ") and row.endswith(r" \\")
    assert lines.index(r"\end{tabular}") < len(lines) - 2
    assert [line.split(":")[0] for line in lines if line.startswith("%")] == ["% m2", "% gleu2015"]


def test_a_single_metric_keeps_its_contract_and_may_be_given_a_folder(capsys, task):
    hyps = [task["systems"] / name for name in sorted(SYSTEMS)]
    by_files = _score(capsys, "m2", "--refs", task["refs"][0], "--hyp", *hyps, "--json")
    by_folder = _score(capsys, "m2", "--refs", task["refs"][0], "--hyp", task["systems"], "--json")
    assert by_files == by_folder and by_files[0] == 0
    rows = json.loads(by_files[1])
    # the fields score m2 --json has always printed, with variant and versions beside them
    assert {"hyp", "metric", "score", "p", "r", "f", "tp", "fp", "fn", "beta", "metric_signature"} <= set(
        rows[0]
    )
    assert rows[0]["variant"] == "m2"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--nomix"], "--nomix: not used by m2, gleu"),
        (["--sentence"], "--sentence"),
        (["--variant", "2015"], "--variant: not used by m2, bleu"),
    ],
)
def test_a_flag_no_chosen_metric_reads_is_refused(capsys, task, args, message):
    metrics = ["m2", "bleu"] if "--variant" in args else ["m2", "gleu"]
    code, _, err = _score(capsys, *_task_args(task, metrics), *args)
    assert code == 2
    assert message in err


def test_a_metric_whose_references_are_missing_is_refused_before_scoring(capsys, task):
    code, out, err = _score(capsys, "m2,bleu", "--refs", task["refs"][0], "--hyp", task["systems"] / "good")
    assert (code, out) == (2, "")
    assert "bleu reads text references; --refs holds none" in err


def test_an_unknown_metric_in_the_list_is_refused_by_name(capsys, task):
    with pytest.raises(SystemExit) as exc:
        main(["score", "m2,nope", "--refs", str(task["refs"][0]), "--hyp", str(task["systems"])])
    assert exc.value.code == 2
    assert "unknown metric 'nope'" in capsys.readouterr().err


def test_an_empty_folder_is_refused(capsys, task, tmp_path):
    (tmp_path / "empty").mkdir()
    code, _, err = _score(capsys, "m2,sentm2", "--refs", task["refs"][0], "--hyp", tmp_path / "empty")
    assert code == 2 and "no system output" in err


def test_reading_once_parses_a_file_once_and_a_changed_file_again(task, tmp_path):
    gold, xml, ref0 = task["refs"][0], task["refs"][1], task["refs"][2]
    assert read_m2(gold)[0] is not read_m2(gold)[0]  # outside the block nothing is kept
    with reading_once():
        first, second = read_m2(gold), read_m2(gold)
        assert first == second and first is not second  # a list each caller may change
        assert all(a is b for a, b in zip(first, second))  # the same parse
        assert read_ixml(xml)[0] is read_ixml(xml)[0]
        lines = read_lines(ref0)
        lines.append("changed by a caller")
        assert read_lines(ref0) == REFERENCES[0]
        copy = tmp_path / "copy.txt"
        copy.write_text("one\n")
        assert read_lines(copy) == ["one"]
        copy.write_text("one\ntwo\n")  # another size: read anew
        assert read_lines(copy) == ["one", "two"]
    with reading_once():
        assert read_m2(gold)[0] is not first[0]  # a new block starts afresh


@pytest.mark.parametrize("metric", ["imeasure", "m2", "gleu"])
def test_a_single_metric_given_every_gold_format_reads_its_own_as_the_shared_task_does(capsys, task, metric):
    # `score imeasure --refs GOLD.m2 GOLD.xml TRG0 TRG1` read all four as I-measure XML and failed
    source = ["--source", task["src"]] if metric in ("gleu", "imeasure") else []
    code, out, err = _score(
        capsys, metric, *source, "--refs", *task["refs"], "--hyp", task["systems"], "--json"
    )
    assert code == 0, err
    assert json.loads(out) == _single(capsys, task, metric)
