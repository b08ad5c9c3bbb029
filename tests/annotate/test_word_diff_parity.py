"""The live diff (static/js/word_diff.js, run by node) and the server's (difflib) mark the same words."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from annotate.rewrites.diff import word_diff

WORD_DIFF_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "word_diff.js"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed: cannot run the page's diff")

RUN = """
const {wordDiff} = require(process.argv[1]);
const pairs = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(pairs.map(([a, b]) => wordDiff(a, b))));
"""

# A small vocabulary, so words repeat and the diff has to choose between equal-length matches.
VOCAB = ["the", "a", "cat", "cats", "go", "goes", "went", "home", ".", ",", "he", "she", "n't", "do", "does"]
SPACES = [" ", " ", " ", "  ", "\t", "\n", "\u00a0", "\u3000", "\x1c", "\x85"]


def _sentence(rng: random.Random, tokens: list[str]) -> str:
    gaps = [rng.choice(SPACES) for _ in tokens]
    return rng.choice(["", " "]) + "".join(t + g for t, g in zip(tokens, gaps)).rstrip(" ")


def _edited(rng: random.Random, tokens: list[str]) -> list[str]:
    out = list(tokens)
    for _ in range(rng.randint(0, 4)):
        where = rng.randint(0, len(out))
        kind = rng.choice(["ins", "del", "sub", "move"])
        if kind == "ins" or not out:
            out.insert(where, rng.choice(VOCAB))
        elif kind == "del":
            del out[min(where, len(out) - 1)]
        elif kind == "sub":
            out[min(where, len(out) - 1)] = rng.choice(VOCAB)
        else:
            out.insert(rng.randint(0, len(out)), out.pop(min(where, len(out) - 1)))
    return out


def random_pairs(n: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        source = [rng.choice(VOCAB) for _ in range(rng.randint(0, 14))]
        target = _edited(rng, source) if rng.random() < 0.9 else [rng.choice(VOCAB) for _ in range(5)]
        pairs.append((_sentence(rng, source), _sentence(rng, target)))
    return pairs


def js_word_diffs(pairs: list[tuple[str, str]]) -> list[list[list[str]]]:
    done = subprocess.run(
        [NODE, "-e", RUN, str(WORD_DIFF_JS)],
        input=json.dumps(pairs),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(done.stdout)


@needs_node
def test_page_diff_equals_server_diff_on_1000_random_sentence_pairs():
    pairs = random_pairs(1000, seed=20261123)
    expected = [[list(op) for op in word_diff(a, b)] for a, b in pairs]
    assert js_word_diffs(pairs) == expected
    # The pairs exercise every kind of operation, and choices between equal matches.
    kinds = {op for diff in expected for op, _ in diff}
    assert kinds == {"same", "del", "ins"}
    assert sum(1 for d in expected if len(d) > 3) > 300


@needs_node
def test_page_diff_marks_deletions_before_insertions_like_the_server():
    pairs = [("He go home .", "He goes home ."), ("", "new words"), ("old words", ""), ("a b a", "b a b")]
    assert js_word_diffs(pairs) == [[list(op) for op in word_diff(a, b)] for a, b in pairs]
    assert js_word_diffs(pairs[:1]) == [[["same", "He"], ["del", "go"], ["ins", "goes"], ["same", "home ."]]]
