"""Sakaguchi et al. 2016 Table 7: inter-annotator agreement of pairwise system judgments.

Table 7 gives Cohen's kappa and quadratic-weighted kappa "within non-experts, experts and
between them" (footnote 15: weighted because "A > B and A < B should have less agreement than
A > B and A = B"). What each row reads:

- **Non-experts**: reassess-gec's ``inter_annotator_agreements/Ctrl_merged.csv``, the MTurk
  batch of §5 ("294 sentences ... ranked by two different participants. The 588 system rankings
  yield 26,265 pairwise judgments"): 593 assignments, 5 rejected, 588 kept, and our expansion
  gives exactly 26,265 pairwise judgments. Its ``Input.sentID`` is the 0-based CoNLL-14 line
  (571 of 593 ``Input.source`` equal that line of ``conll14st-test.tok.src``, none the line
  before).
- **Experts**: "the same expert ranking" of Grundkiewicz et al. 2015 (§4.1: "Table 3c"; §5:
  "experimental settings for experts (Grundkiewicz et al., 2015)"): grammatical/evaluation's
  ``data/judgments.xml`` (8 judges, ``annotator01``..``08``). ``../shared/data`` does not hold
  it (its README: "The judgments file of this repository is not included"); the row is computed
  when ``DIR/grammatical-evaluation/data/judgments.xml`` exists. Its ``src-id`` is the 0-based
  line: 2,743 of its 2,759 candidates standing for several systems have identical outputs at
  line ``src-id`` of the official submissions, 613 at ``src-id - 1``.
  gec-ranking's ``all_judgments.xml`` (Napoles et al. 2015's judges) is not this ranking; its
  kappa is printed as a row of its own, with no published value.
- **Non-experts and Experts**: every (expert, non-expert) pair on the labels both gave.

The unit is the pair of candidates *as shown* (``geceval.human.agreement``, ``unit="shown"``): a
candidate standing for several systems with identical outputs is one, as Grundkiewicz et al.'s
``data/scripts/agreement.pl`` pairs them. Expanding such a candidate into its systems first
counts every pair inside it as an agreed tie and gives 0.512 (non-experts) instead of 0.288.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from geceval.formats.inputs import read_input
from geceval.formats.judgments import RankingJudgment, expand_pairwise, read_rankings_keyed
from geceval.formats.mturk import parse_mturk_csv, rankings_of
from geceval.human import agreement
from geceval.papers.sakaguchi2016 import ANNOTATIONS, read_skip_lines

NON_EXPERTS = ("reassess-gec", "inter_annotator_agreements", "Ctrl_merged.csv")
EXPERTS = ("grammatical-evaluation", "data", "judgments.xml")
NAPOLES_JUDGES = ("gec-ranking", "data", "all_judgments.xml")
PUBLISHED: dict[str, tuple[float, float]] = {
    "Non-experts": (0.29, 0.43),
    "Experts": (0.29, 0.45),
    "Non-experts and Experts": (0.15, 0.23),
}
"""Row -> (kappa, quadratic-weighted kappa), as printed in Table 7."""


@dataclass(frozen=True)
class Table7Row:
    row: str
    kappa: float | None
    weighted_kappa: float | None
    labels: int  # label pairs pooled
    annotator_pairs: int
    pairwise_judgments: int  # of the rankings read (systems expanded), for the row's own file(s)
    published: tuple[float, float] | None
    missing: str = ""  # why the row could not be computed


def non_expert_rankings(root: Path, *, skip: set[int] = frozenset()) -> list[RankingJudgment]:
    """The 588 approved MTurk rankings of Ctrl_merged.csv (items: 0-based lines), minus ``skip``."""
    opened = read_input(str(root.joinpath(*NON_EXPERTS)))
    rankings = rankings_of(parse_mturk_csv(opened.data, name=opened.name))
    return [r for r in rankings if int(r.item) not in skip]


def expert_rankings(root: Path, *, skip: set[int] = frozenset()) -> list[RankingJudgment] | None:
    path = root.joinpath(*EXPERTS)
    if not path.exists():
        return None
    rankings, _key = read_rankings_keyed(str(path), "appraise-xml", src_id_base=0)
    return [r for r in rankings if int(r.item) not in skip]


def _row(name, labels, pairs, judgments: int, published) -> Table7Row:
    agreed = agreement.agreement_between(labels, pairs, name=name)
    return Table7Row(
        name, agreed.kappa, agreed.weighted_kappa, agreed.n, agreed.annotator_pairs, judgments, published
    )


def table7(data: str | Path, *, skip_merged: bool = False) -> list[Table7Row]:
    """Table 7's rows from the files under ``data`` (a ../shared/data root), plus Napoles et al.'s judges.

    ``skip_merged`` leaves out the sentences of reassess-gec's ``merged_ids`` (1-based lines).
    The paper did not for this table: its 26,265 pairwise judgments include the 8 merged
    sentences among the 294.
    """
    root = Path(data)
    skip = read_skip_lines(root.joinpath(*ANNOTATIONS) / "merged_ids") if skip_merged else set()
    crowd = non_expert_rankings(root, skip=skip)
    crowd_labels = agreement.shown_labels_by_annotator(crowd)
    rows = [
        _row(
            "Non-experts",
            crowd_labels,
            agreement.within_pairs(list(crowd_labels)),
            len(expand_pairwise(crowd)),
            PUBLISHED["Non-experts"],
        )
    ]
    experts = expert_rankings(root, skip=skip)
    if experts is None:
        why = f"{root.joinpath(*EXPERTS)} not found (grammatical/evaluation's data/judgments.xml)"
        for name in ("Experts", "Non-experts and Experts"):
            rows.append(Table7Row(name, None, None, 0, 0, 0, PUBLISHED[name], missing=why))
    else:
        expert_labels = agreement.shown_labels_by_annotator(experts)
        rows.append(
            _row(
                "Experts",
                expert_labels,
                agreement.within_pairs(list(expert_labels)),
                len(expand_pairwise(experts)),
                PUBLISHED["Experts"],
            )
        )
        both = {**expert_labels, **crowd_labels}
        rows.append(
            _row(
                "Non-experts and Experts",
                both,
                agreement.between_pairs(list(expert_labels), list(crowd_labels)),
                len(expand_pairwise(experts)) + len(expand_pairwise(crowd)),
                PUBLISHED["Non-experts and Experts"],
            )
        )
    napoles = root.joinpath(*NAPOLES_JUDGES)
    if napoles.exists():
        rankings, _key = read_rankings_keyed(str(napoles), "appraise-xml", exclude_judges=("non-native",))
        rankings = [r for r in rankings if int(r.item) not in skip]
        labels = agreement.shown_labels_by_annotator(rankings)
        rows.append(
            _row(
                "Napoles et al. 2015 judges (gec-ranking, not the paper's experts)",
                labels,
                agreement.within_pairs(list(labels)),
                len(expand_pairwise(rankings)),
                None,
            )
        )
    return rows
