"""Appraise XML keyed by src-id (issue 34): the item names the HIT, src-id names the sentence."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from geceval.errors import GecInputError
from geceval.formats.judgments import read_appraise_xml, read_appraise_xml_keyed, read_pairwise, read_rankings
from tests.shared_data import REPO, shared_path

# Written as Appraise writes a SEEDA / CoNLL-14 ranking: id numbers the item (the HIT), src-id the
# source sentence (1-based here: the corpus has 4 lines and one item is src-id 4); systems with
# identical outputs shown once are joined by a space ("T5 Riken-Tohoku").
SEEDA_LIKE = """<?xml version="1.0" encoding="UTF-8"?>
<appraise-results><ranking-result source-language="en" id="none" target-language="en">
  <ranking-item src-id="4" doc-id="seeda" id="1" user="annotator1">
    <translation system="BART" rank="2"/><translation system="T5 Riken-Tohoku" rank="1"/>
    <translation system="GPT-3.5" rank="3"/>
  </ranking-item>
  <ranking-item src-id="2" doc-id="seeda" id="2" user="annotator1">
    <translation system="BART" rank="1"/><translation system="GPT-3.5" rank="2"/>
  </ranking-item>
  <ranking-item src-id="3" doc-id="seeda" id="3" user="annotator2" skipped="true">
    <translation system="BART" rank="1"/><translation system="GPT-3.5" rank="2"/>
  </ranking-item>
</ranking-result></appraise-results>
"""


def _meta_eval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "geceval", "meta-eval", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )


def test_src_id_names_the_sentence_with_its_base_detected_from_the_corpus_line_count() -> None:
    rankings, key = read_appraise_xml_keyed(SEEDA_LIKE.encode(), corpus_lines=4)
    assert (key.attribute, key.base) == ("src-id", 1)
    assert "line count, 4" in key.how and "src-id - 1" in key.describe()
    # item = src-id - 1, not the HIT's id; the skipped item gives no judgment
    assert [r.item for r in rankings] == ["3", "1"]
    first = rankings[0]
    # "T5 Riken-Tohoku" is two systems with the same rank, shown as one group
    assert first.entries == (("BART", 2), ("T5", 1), ("Riken-Tohoku", 1), ("GPT-3.5", 3))
    assert first.groups() == [(("BART",), 2), (("T5", "Riken-Tohoku"), 1), (("GPT-3.5",), 3)]
    pairs = {(p.sys1, p.sys2): p.outcome for p in first.pairs()}
    assert pairs[("T5", "Riken-Tohoku")] == 0 and pairs[("BART", "T5")] == -1


def test_src_id_zero_means_base_zero_and_a_given_base_wins() -> None:
    zero = SEEDA_LIKE.replace('src-id="2"', 'src-id="0"')
    rankings, key = read_appraise_xml_keyed(zero.encode())
    assert (key.attribute, key.base, key.how) == ("src-id", 0, 'detected: an item has src-id="0"')
    assert [r.item for r in rankings] == ["4", "0"]
    rankings, key = read_appraise_xml_keyed(SEEDA_LIKE.encode(), src_id_base=0)
    assert (key.base, key.how) == (0, "given")
    assert [r.item for r in rankings] == ["4", "2"]


def test_src_id_whose_base_cannot_be_told_is_refused_asking_for_the_base() -> None:
    with pytest.raises(GecInputError, match="give --src-id-base 0 or 1"):
        read_appraise_xml(SEEDA_LIKE.encode())  # no src-id 0, no corpus to count
    with pytest.raises(GecInputError, match=r"the corpus has 10 lines\); give --src-id-base"):
        read_appraise_xml(SEEDA_LIKE.encode(), corpus_lines=10)
    # every reader of the format follows the rule
    with pytest.raises(GecInputError, match="--src-id-base"):
        read_rankings(SEEDA_LIKE.encode(), "appraise-xml")
    with pytest.raises(GecInputError, match="--src-id-base"):
        read_pairwise(SEEDA_LIKE.encode(), "appraise-xml")


def test_src_id_past_the_corpus_or_below_the_base_or_on_some_items_only_is_refused() -> None:
    with pytest.raises(GecInputError, match="past the corpus' 3 lines"):
        read_appraise_xml(SEEDA_LIKE.encode(), src_id_base=0, corpus_lines=3)
    with pytest.raises(GecInputError, match="below base 1"):
        read_appraise_xml(SEEDA_LIKE.replace('src-id="2"', 'src-id="0"').encode(), src_id_base=1)
    with pytest.raises(GecInputError, match="2 of 3 <ranking-item>s carry src-id"):
        read_appraise_xml(SEEDA_LIKE.replace('src-id="3" ', "").encode(), src_id_base=1)
    with pytest.raises(GecInputError, match="no <ranking-item> carries src-id"):
        read_appraise_xml(SEEDA_LIKE.replace("src-id=", "x-id=").encode(), src_id_base=1)


@pytest.mark.shared
def test_gec_ranking_file_without_src_id_is_keyed_by_id_as_before() -> None:
    xml = shared_path("gec-ranking", "data", "all_judgments.xml", required_in_ci=True)
    rankings, key = read_appraise_xml_keyed(xml, exclude_judges=["non-native"])
    assert key.attribute == "id" and key.base is None
    assert rankings[0].item == "62" and len(rankings) == len(
        read_appraise_xml(xml, exclude_judges=["non-native"])
    )


def _scores_file(tmp_path: Path) -> Path:
    # sentence-level scores keyed by 0-based sentence: only the src-id keying makes the metric agree
    # with the people (sentence 3: T5 = Riken-Tohoku > BART > GPT-3.5; sentence 1: BART > GPT-3.5)
    rows = ["system,item,score"]
    for system, per in {
        "BART": {0: 0.9, 1: 0.8, 2: 0.1, 3: 0.5},
        "T5": {0: 0.1, 1: 0.1, 2: 0.9, 3: 0.9},
        "Riken-Tohoku": {0: 0.1, 1: 0.1, 2: 0.9, 3: 0.8},
        "GPT-3.5": {0: 0.5, 1: 0.2, 2: 0.9, 3: 0.1},
    }.items():
        rows += [f"{system},{item},{score}" for item, score in per.items()]
    path = tmp_path / "metric.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_meta_eval_sentence_level_pairs_src_id_sentences_and_prints_the_key(tmp_path: Path) -> None:
    (tmp_path / "j.xml").write_text(SEEDA_LIKE)
    metric = _scores_file(tmp_path)
    args = (
        "--sentence-level",
        "--judgments",
        str(tmp_path / "j.xml"),
        "--metric-sentence-scores",
        str(metric),
    )
    refused = _meta_eval(*args, "--json")
    assert refused.returncode == 2 and "give --src-id-base 0 or 1" in refused.stderr
    out = _meta_eval(*args, "--src-id-base", "1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["items"] == {"attribute": "src-id", "base": 1, "how": "given"}
    (row,) = data["subsets"]["all+input"]["metrics"]
    # 6 non-tied pairs on sentences 3 and 1 (T5 = Riken-Tohoku a tie), all concordant (keyed by id = 1, 2 they would not be)
    assert (row["concordant"], row["discordant"], row["human_ties"], row["missing"]) == (6, 0, 1, 0)
    text = _meta_eval(*args, "--src-id-base", "1")
    assert "sentences keyed by src-id, base 1 (given); sentence index = src-id - 1" in text.stdout
    assert "7 of 7 judged pairs (100.0%) found their scores" in text.stdout


def test_meta_eval_sentence_level_detects_base_one_from_the_source_line_count(tmp_path: Path) -> None:
    (tmp_path / "j.xml").write_text(SEEDA_LIKE)
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    for system in ("BART", "T5", "Riken-Tohoku", "GPT-3.5"):
        (outputs / system).write_text("a b c\nd e f\ng h i\nj k l\n")
    (tmp_path / "ref").write_text("a b c\nd e f\ng h i\nj k l\n")
    out = _meta_eval(
        *("--sentence-level", "--judgments", str(tmp_path / "j.xml"), "--outputs", str(outputs)),
        *("--metrics", "chrf", "--source", str(tmp_path / "ref"), "--refs", str(tmp_path / "ref"), "--json"),
    )
    assert out.returncode == 0, out.stderr
    items = json.loads(out.stdout)["items"]
    assert (items["attribute"], items["base"]) == ("src-id", 1)
    assert "line count, 4" in items["how"]


def _geceval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "geceval", *args], capture_output=True, text=True, cwd=REPO, timeout=300
    )


# two annotators rank the same sentence (src-id 5) in two HITs (ids 1 and 2)
TWO_HITS = """<appraise-results><ranking-result>
  <ranking-item src-id="5" id="1" user="a1"><translation system="A" rank="1"/><translation system="B" rank="2"/></ranking-item>
  <ranking-item src-id="5" id="2" user="a2"><translation system="A" rank="1"/><translation system="B" rank="2"/></ranking-item>
  <ranking-item src-id="0" id="3" user="a2"><translation system="A" rank="2"/><translation system="B" rank="1"/></ranking-item>
</ranking-result></appraise-results>
"""


def test_agreement_compares_annotators_on_the_sentence_src_id_names(tmp_path: Path) -> None:
    (tmp_path / "j.xml").write_text(TWO_HITS)
    proc = _geceval("agreement", str(tmp_path / "j.xml"), "--format", "appraise-xml", "--json")
    assert proc.returncode == 0, proc.stderr
    assert 'sentences keyed by src-id, base 0 (detected: an item has src-id="0")' in proc.stderr
    (pair,) = json.loads(proc.stdout)["pairs"]
    assert pair["n"] == 1  # keyed by id, the two HITs would share nothing


def test_rank_follows_the_same_rule_and_says_which(tmp_path: Path) -> None:
    (tmp_path / "j.xml").write_text(SEEDA_LIKE)
    refused = _geceval("rank", str(tmp_path / "j.xml"), "--runs", "2")
    assert refused.returncode == 2 and "give --src-id-base 0 or 1" in refused.stderr
    proc = _geceval("rank", str(tmp_path / "j.xml"), "--runs", "2", "--src-id-base", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "sentences keyed by src-id, base 1 (given)" in proc.stderr
    assert json.loads(proc.stdout)["judgments"] == 7
    (tmp_path / "j.csv").write_text(
        "system1Id,system1rank,system2Id,system2rank,judgeId,segmentId\nA,1,B,2,j,0\n"
    )
    wrong = _geceval("rank", str(tmp_path / "j.csv"), "--src-id-base", "1")
    assert wrong.returncode == 2 and "--src-id-base applies to appraise-xml judgments only" in wrong.stderr
