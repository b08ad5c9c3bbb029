"""sTER and TER x 100 from one TER alignment (issue 42, part 2: Sakaguchi et al.'s Table 4 spent half of
``reproduce sakaguchi2016`` in sacrebleu's TER, aligning every differing pair twice)."""

from __future__ import annotations

import pytest

from geceval.metrics.sacre import ster, ster_and_ter_x100, ter_x100
from tests.shared_data import shared_path


@pytest.mark.parametrize(
    "ref, hyp",
    [
        ("the cat sat on the mat .", "The cat sat on mat ."),  # "The" / "the": two alignments needed
        ("The cat sat on the mat .", "the cat sat on the mat"),
        ("a b c d e", "c d e a b"),  # a shift
        ("He went home .", "he goes home"),
        ("", "something"),
        ("word", ""),
        ("Same words here", "Same words here"),
    ],
)
def test_ster_and_ter_x100_equal_the_two_alignments(ref, hyp):
    assert ster_and_ter_x100(ref, hyp) == (ster(ref, hyp), ter_x100(ref, hyp))


@pytest.mark.shared
def test_ster_and_ter_x100_equal_the_two_alignments_on_the_released_rewrites():
    folder = shared_path("reassess-gec", "annotations", "merged_ids").parent / "expert_annotations"
    a = (folder / "expert_fluency" / "expert_fluencyA").read_text(encoding="utf-8").splitlines()[:150]
    b = (folder / "expert_fluency" / "expert_fluencyB").read_text(encoding="utf-8").splitlines()[:150]
    folded = 0
    for x, y in zip(a, b, strict=True):
        x, y = x.strip(), y.strip()
        if x != y:
            assert ster_and_ter_x100(x, y) == (ster(x, y), ter_x100(x, y)), (x, y)
            tokens = set(x.split()) | set(y.split())
            folded += len({t.lower() for t in tokens}) < len(tokens)
    assert folded > 0  # the second alignment's path is taken on the real data too
