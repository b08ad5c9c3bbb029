"""``manage.py reproduce seeda2024`` (issue 42): the SEEDA release read as it is laid out.

The release is not on this machine. The fixture is a folder in its layout made from real CoNLL-14
data of ../shared: the first sentences of the official test set (gold M2, source, the two
references), the official CoNLL-14 submissions renamed as SEEDA systems (INPUT is INPUT; REF-M and
REF-F are the two references), a judgments XML in SEEDA's form (src-id 1-based; T5 and
Riken-Tohoku, given identical outputs, joined in one ``system`` attribute) and human score files.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from geceval.formats.judgments import expand_pairwise, read_appraise_xml
from geceval.human.system_ranking import rank
from geceval.metaeval import kobayashi2024 as m24
from ranking.analysis import reproduce_seeda as rs
from ranking.analysis import seeda_published as pub
from ranking.analysis.reproduce_reasons import SEEDA_UNEXPLAINED
from ranking.analysis.reproduce_report import cells, failed
from tests.shared_data import shared_path

LINES = 30
OFFICIAL = {  # SEEDA name -> the CoNLL-14 submission standing in for it
    "BART": "AMU", "BERT-fuse": "CAMB", "GECToR-BERT": "CUUI", "GECToR-ens": "IITB", "GPT-3.5": "UMC",
    "INPUT": "INPUT", "LM-Critic": "IPN", "PIE": "NTHU", "Riken-Tohoku": "PKU", "T5": "PKU",
    "TemplateGEC": "POST", "TransGEC": "RAC", "UEDIN-MS": "SJTU",
}  # fmt: skip


def _conll():
    return shared_path("gecmetrics", "data", "conll14st-test", "conll14st-test.m2").parent


def _head(path: Path, n: int) -> str:
    return "".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:n])


def _references(root: Path) -> Path:
    """The first LINES sentences of the official CoNLL-14 test set, in its folder layout."""
    conll = _conll()
    out = root / "conll14"
    (out / "refs").mkdir(parents=True)
    blocks = conll.joinpath("conll14st-test.m2").read_text(encoding="utf-8").strip().split("\n\n")
    (out / "conll14st-test.m2").write_text("\n\n".join(blocks[:LINES]) + "\n\n", encoding="utf-8")
    (out / "conll14st-test.tok.src").write_text(
        _head(conll / "conll14st-test.tok.src", LINES), encoding="utf-8"
    )
    for i in (0, 1):
        name = f"conll14st-test.tok.trg{i}"
        (out / "refs" / name).write_text(_head(conll / "refs" / name, LINES), encoding="utf-8")
    return out


def _judgments_xml(seed: int) -> str:
    """SEEDA's Appraise form: every item shows T5 and Riken-Tohoku joined, and four others."""
    rng = random.Random(seed)
    others = [s for s in pub.SYSTEMS if s not in ("T5", "Riken-Tohoku")]
    items = []
    n = 0
    for src_id in range(1, LINES + 1):
        for user in ("annotator1", "annotator2"):
            n += 1
            shown = ["T5 Riken-Tohoku", *rng.sample(others, 4)]
            ranks = [rng.randint(1, 5) for _ in shown]
            rows = "".join(f'<translation system="{s}" rank="{r}"/>' for s, r in zip(shown, ranks))
            items.append(
                f'<ranking-item src-id="{src_id}" doc-id="INPUT" id="{n}" user="{user}">{rows}</ranking-item>'
            )
    return '<?xml version="1.0" encoding="UTF-8"?>\n<set id="seeda">' + "\n".join(items) + "</set>\n"


def _release(root: Path, refs: Path) -> Path:
    data = root / "SEEDA"
    (data / "data").mkdir(parents=True)
    (data / "outputs" / "all").mkdir(parents=True)
    (data / "scores" / "human").mkdir(parents=True)
    subs = shared_path("grammatical-evaluation", "data", "original", "official_submissions")
    for system in pub.SYSTEMS:
        if system in OFFICIAL:
            text = _head(subs / OFFICIAL[system], LINES)
        else:  # REF-M, REF-F: the two references
            text = (refs / "refs" / f"conll14st-test.tok.trg{0 if system == 'REF-F' else 1}").read_text(
                "utf-8"
            )
        (data / "outputs" / "all" / f"{system}.txt").write_text(text, encoding="utf-8")
    for k, g in enumerate(pub.GRANULARITIES):
        (data / "data" / f"judgments_{g}.xml").write_text(_judgments_xml(k), encoding="utf-8")
        pairs = expand_pairwise(read_appraise_xml(data / "data" / f"judgments_{g}.xml", src_id_base=1))
        for method, label in (("trueskill", "TS"), ("ew", "EW")):
            scores = {s.name: s.mu for s in rank(pairs, method=method, runs=20, seed=0).systems}
            lines = "".join(f"{scores[s]:.6f}\n" for s in pub.SYSTEMS)
            (data / "scores" / "human" / f"{label}_{g}.txt").write_text(lines, encoding="utf-8")
    return data


@pytest.fixture(scope="module")
def seeda(tmp_path_factory):
    root = tmp_path_factory.mktemp("seeda")
    refs = _references(root)
    return _release(root, refs), refs


@pytest.mark.shared
def test_seeda_judgments_src_id_is_the_1_based_conll14_line_and_joined_systems_tie(seeda):
    data, _refs = seeda
    pairs, how = rs.read_judgments(data / "data" / "judgments_sent.xml", LINES)
    assert "src-id, base 1" in how
    assert {p.item for p in pairs} == {str(i) for i in range(LINES)}  # src-id 1..30 -> lines 0..29
    joined = [p for p in pairs if {p.sys1, p.sys2} == {"T5", "Riken-Tohoku"}]
    assert len(joined) == 2 * LINES and all(p.rank1 == p.rank2 for p in joined)
    # a src-id past the last line (a 0-based file read as 1-based would name line 31) is refused
    bad = data.parent / "bad.xml"
    bad.write_text(_judgments_xml(0).replace(f'src-id="{LINES}"', f'src-id="{LINES + 1}"'), encoding="utf-8")
    with pytest.raises(Exception, match=f"src-id {LINES + 1} with base 1 is past the corpus' {LINES} lines"):
        rs.read_judgments(bad, LINES)


def test_seeda_subsets_are_base_12_with_fluent_and_input_added():
    sizes = {name: len(m24.subset_members(m, pub.SYSTEMS, pub.TAGS)) for name, m in pub.SUBSETS.items()}
    assert sizes == {
        "base": 12,
        "base+INPUT": 13,
        "+REF-F_GPT-3.5": 14,
        "+REF-F_GPT-3.5+INPUT": 15,
        "all": 15,
    }
    base = m24.subset_members("classic", pub.SYSTEMS, pub.TAGS)
    assert "REF-M" in base and not {"INPUT", "REF-F", "GPT-3.5"} & set(base)


@pytest.mark.shared
@pytest.mark.django_db
def test_reproduce_seeda2024_json_compares_every_table_and_exits_1_on_unexplained_cells(seeda, capsys):
    data, refs = seeda
    with pytest.raises(
        CommandError, match=r"outside tolerance without a stated reason: seeda2024 table metric - BART M2"
    ):
        call_command(
            "reproduce", "seeda2024", "--data", str(data), "--references", str(refs), "--runs", "20", "--json"
        )
    rows = json.loads(capsys.readouterr().out)
    tables = {r["table"] for r in rows}
    assert tables == {"human", "metric", "system", "window", "sentence"}
    human = [r for r in rows if r["table"] == "human"]
    assert len(human) == 60 and all(
        r["status"] == "ok" for r in human
    )  # the files were written from the same judgments
    metric = {(r["row"], r["column"]): r for r in rows if r["table"] == "metric"}
    assert len(metric) == 90
    assert metric[("INPUT", "M2")]["ours"] == 0.0 and metric[("INPUT", "M2")]["status"] == "ok"
    assert metric[("BART", "M2")]["published"] == 50.3 and metric[("BART", "M2")]["status"] == "off"
    # INPUT's GLEU is off on the real release too: what was tried comes from the reasons module
    assert metric[("INPUT", "GLEU")]["status"] == "unexplained"
    assert metric[("INPUT", "GLEU")]["reason"] == SEEDA_UNEXPLAINED[("GLEU", "INPUT")]
    # T5 and Riken-Tohoku have the same output, so the same scores
    assert metric[("T5", "GLEU")]["ours"] == metric[("Riken-Tohoku", "GLEU")]["ours"]
    system = [r for r in rows if r["table"] == "system"]
    assert len(system) == 5 * 6 * 4 * 2
    assert {r["where"] for r in system} == set(pub.SUBSETS)
    # the published column of a correlation is what the release's own metric scores give
    r = next(r for r in system if (r["where"], r["row"], r["column"]) == ("base", "M2", "pearson TS_sent"))
    assert (
        r["published"] is not None
        and r["reason"].startswith("metric scores differ")
        and "BART" in r["reason"]
    )
    windows = [r for r in rows if r["table"] == "window"]
    assert len(windows) == 6 * 4 * 9 * 2  # 12 base systems: 9 windows of 4
    sentence = [r for r in rows if r["table"] == "sentence"]
    assert len(sentence) == 2 * 5 * 4 * 2 and all(r["published"] is None for r in sentence)
    assert all(0 <= r["ours"] <= 1 for r in sentence if "accuracy" in r["column"])


@pytest.mark.shared
@pytest.mark.django_db
def test_reproduce_seeda2024_text_and_latex_show_published_ours_difference(seeda, capsys):
    data, refs = seeda
    args = ["reproduce", "seeda2024", "--data", str(data), "--references", str(refs), "--runs", "20"]
    with pytest.raises(CommandError):
        call_command(*args)
    out = capsys.readouterr().out
    assert out.splitlines()[1].split() == [
        "table", "where", "row", "column", "published", "ours", "difference", "status",
    ]  # fmt: skip
    bart = next(
        line for line in out.splitlines() if line.startswith("metric") and " BART " in line and " M2 " in line
    )
    assert "50.300" in bart and bart.split()[-1] == "off"
    assert "outside with nothing known" in out
    with pytest.raises(CommandError):
        call_command(*args, "--latex")
    tex = capsys.readouterr().out
    assert r"\begin{longtable}" in tex and r"Published & Ours & Difference & Status & Reason \\" in tex
    assert r"+REF-F\_GPT-3.5" in tex


def test_seeda_human_file_line_order_is_the_issue_system_order(tmp_path):
    path = tmp_path / "EW_sent.txt"
    path.write_text("".join(f"{k}\n" for k in range(15)), encoding="utf-8")
    scores = rs.read_human_scores(path)
    assert scores["BART"] == 0 and scores["INPUT"] == 5 and scores["UEDIN-MS"] == 14
    path.write_text("1\n2\n", encoding="utf-8")
    with pytest.raises(Exception, match="2 scores, expected one a line for the 15 systems"):
        rs.read_human_scores(path)


@pytest.mark.shared
@pytest.mark.django_db
def test_reproduce_seeda2024_names_a_missing_file_and_refuses_unmatched_system_names(seeda, tmp_path):
    data, refs = seeda
    with pytest.raises(CommandError, match=r"missing judgments: .*judgments_sent.xml"):
        call_command("reproduce", "seeda2024", "--data", str(tmp_path), "--references", str(refs))
    # the judgments name the systems by file name: under 90% of judged systems match, refused
    renamed = tmp_path / "SEEDA"
    import shutil

    shutil.copytree(data, renamed)
    xml = renamed / "data" / "judgments_sent.xml"
    text = xml.read_text(encoding="utf-8")
    for s in pub.SYSTEMS:
        text = (
            text.replace(f'"{s}"', f'"{s}.txt"')
            .replace(f'"{s} ', f'"{s}.txt ')
            .replace(f' {s}"', f' {s}.txt"')
        )
    xml.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError, match=r"judged systems .* at least 90% are needed"):
        call_command("reproduce", "seeda2024", "--data", str(renamed), "--references", str(refs))
    (renamed / "outputs" / "all" / "PIE.txt").unlink()
    xml.write_text(_judgments_xml(0), encoding="utf-8")
    with pytest.raises(CommandError, match=r"missing system outputs in .*: PIE.txt"):
        call_command("reproduce", "seeda2024", "--data", str(renamed), "--references", str(refs))


@pytest.mark.shared
@pytest.mark.slow
def test_seeda_published_scores_of_input_on_the_whole_conll14_test_set():
    """INPUT is the one SEEDA system whose real CoNLL-14 output is here (the official INPUT file)."""
    conll = _conll()
    refs = rs._read_references(conll)
    source = shared_path("grammatical-evaluation", "data", "original", "official_submissions", "INPUT")
    system, _sentence = rs.metric_scores({"INPUT": source.read_text("utf-8").splitlines()}, refs)
    ours = system["INPUT"]
    published = dict(zip(pub.METRICS, pub.PUBLISHED["INPUT"]))
    for metric in ("M2", "SentM2", "ERRANT", "GoToScorer"):
        assert abs(ours[metric] - published[metric]) <= pub.TOLERANCE["metric"], metric
    # not reproduced, and unexplained (docs/reproducing-papers.md): pinned so the doc stays true
    assert round(ours["SentERRANT"], 2) == 31.33 and published["SentERRANT"] == 31.4
    assert round(ours["GLEU"], 2) == 57.32 and published["GLEU"] == 56.6


@pytest.mark.shared
@pytest.mark.django_db
def test_reproduce_seeda2024_exits_0_when_every_published_cell_is_ours_to_the_printed_decimal(
    seeda, capsys, monkeypatch
):
    """With published scores equal to ours rounded to the release's two decimals, every metric cell
    and every correlation the release's scores give is within tolerance: the command exits 0."""
    data, refs = seeda
    release, loaded = rs.read_release(data, refs)
    ours, _sentence = rs.metric_scores(release.outputs, loaded)
    rounded = {s: tuple(round(ours[s][m], 2) for m in pub.METRICS) for s in pub.SYSTEMS}
    monkeypatch.setattr(pub, "PUBLISHED", rounded)
    call_command("reproduce", "seeda2024", "--data", str(data), "--references", str(refs), "--runs", "20")
    out = capsys.readouterr().out
    assert "0 outside with a stated reason, 0 outside and unexplained, 0 outside with nothing known" in out
    assert "published, system: computed from the release's metric scores" in out


@pytest.mark.django_db
def test_reproduce_latex_and_references_are_refused_by_the_other_studies(tmp_path):
    with pytest.raises(CommandError, match="--references: not used by study jfleg"):
        call_command("reproduce", "jfleg", "--data", str(tmp_path), "--latex", "--references", str(tmp_path))
    with pytest.raises(CommandError, match="--references: not used by study sakaguchi2016"):
        call_command("reproduce", "sakaguchi2016", "--data", str(tmp_path), "--references", str(tmp_path))
    with pytest.raises(CommandError, match="--json and --latex: give one"):
        call_command("reproduce", "seeda2024", "--data", str(tmp_path), "--json", "--latex")
    with pytest.raises(CommandError, match="--hybrids: not used by study seeda2024"):
        call_command("reproduce", "seeda2024", "--data", str(tmp_path), "--hybrids", "5")


def test_seeda_human_row_of_a_system_no_judgment_names_is_outside_tolerance():
    release = {name: dict.fromkeys(pub.SYSTEMS, 0.1) for name in pub.HUMAN_SCORES}
    ours = {name: {s: 0.1 for s in pub.SYSTEMS if s != "PIE"} for name in pub.HUMAN_SCORES}
    rows = {(r.row, r.column): r for r in rs.human_rows(ours, release)}
    assert rows[("BART", "TS_sent")].ok is True
    pie = rows[("PIE", "EW_edit")]
    assert pie.failed and pie.ours is None and pie.why == "no judgment names this system"


def test_seeda_input_cells_off_on_the_real_release_are_unexplained_with_what_was_tried_and_still_fail():
    """INPUT's GLEU (57.32 against 56.60) and SentERRANT (31.33 against 31.40), the two cells this
    machine can check that are off: their reason lives in ranking/analysis/reproduce_reasons.py (issue 42:
    "the reasons live in one file"), marked unexplained, so the command still exits 1 on them."""
    ours = {s: dict(zip(pub.METRICS, pub.PUBLISHED[s])) for s in pub.SYSTEMS}
    ours["INPUT"]["GLEU"], ours["INPUT"]["SentERRANT"] = 57.319, 31.326
    report = {(c.row, c.column): c for c in cells(rs.metric_rows(ours))}
    for metric in ("GLEU", "SentERRANT"):
        cell = report[("INPUT", metric)]
        assert (cell.status, cell.reason) == ("unexplained", SEEDA_UNEXPLAINED[(metric, "INPUT")])
    assert [c.name for c in failed(list(report.values()))] == [
        "seeda2024 table metric - INPUT SentERRANT",
        "seeda2024 table metric - INPUT GLEU",
    ]
    # within tolerance, the entry is not carried
    ours["INPUT"]["GLEU"] = 56.6
    cell = next(c for c in cells(rs.metric_rows(ours)) if (c.row, c.column) == ("INPUT", "GLEU"))
    assert (cell.status, cell.reason) == ("ok", "")
