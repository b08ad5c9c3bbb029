"""A campaign's valid judgments as rankings: the one builder the live page, active selection and
analysis runs read (item = sentence, annotator = judge), so the same judgments rank alike everywhere.

A PRWS screen also reads as a ranking: candidates ordered by score, equal
scores tied (rank = 1 + the number of candidates scored strictly higher), so
ranking analyses and the ranking export formats work on PRWS campaigns too.
A candidate that stands for several systems' identical outputs gives one entry
per system with the same rank (Appraise's collapsed ``system="A,B"``); a trap
candidate stands for no campaign system and gives none.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from geceval.formats.judgments import RankingJudgment
from ranking.models import Campaign, ImportedEntry
from ranking.selectors import valid_ratings


@dataclass
class ScreenRanking:
    """One valid judgment of one screen, as a ranking (entries in display order)."""

    judgment_id: int
    screen_id: int
    sentence_id: int
    position: int
    """The sentence's 0-based line in the corpus."""
    judge_id: int
    entries: list[tuple[str, int, int | None, bool]] = field(default_factory=list)
    """(system, rank, score or None, meaning_changed) per system shown."""


def iter_screen_rankings(campaign: Campaign, *, chunk_size: int = 2000) -> Iterator[ScreenRanking]:
    """Valid judgments one by one, ordered by judgment id (streams: O(1) judgments in memory)."""
    names = dict(campaign.systems.values_list("pk", "name"))
    if campaign_is_compact(campaign):
        yield from _iter_imported(campaign, names, chunk_size)
        return
    rows = (
        valid_ratings(campaign)
        .values_list(
            "judgment_id",
            "judgment__screen_id",
            "judgment__screen__sentence_id",
            "judgment__screen__sentence__position",
            "judgment__judge_id",
            "candidate_id",
            "candidate__outputs__system_id",
            "score",
            "rank",
            "meaning_changed",
        )
        .order_by("judgment_id", "candidate__position", "candidate__outputs__system__name")
    )
    current: ScreenRanking | None = None
    cells: list[tuple[int, int | None, int | None, int | None, bool]] = []
    for jid, screen_id, sentence_id, pos, judge_id, cand, system_id, score, rank, mc in rows.iterator(
        chunk_size=chunk_size
    ):
        if current is None or current.judgment_id != jid:
            if current is not None:
                yield _finish(current, cells, names)
            current = ScreenRanking(jid, screen_id, sentence_id, pos, judge_id)
            cells = []
        cells.append((cand, system_id, score, rank, mc))
    if current is not None:
        yield _finish(current, cells, names)


def campaign_is_compact(campaign: Campaign, *, ranked: bool = False) -> bool:
    """Whether the campaign's judgments are stored in the compact imported form (``ranking.models.imported``);
    with ``ranked``, whether they are stored so as ranks (every entry has one), not PRWS scores.

    The one answer to "is this campaign compact?" (issue 37): the import, the exports, the live
    rankings and the analysis runs' freeze all ask here."""
    entries = ImportedEntry.objects.filter(campaign=campaign)
    if not entries.exists():
        return False
    return not ranked or not entries.filter(rank__isnull=True).exists()


def _iter_imported(campaign: Campaign, names: dict[int, str], chunk_size: int) -> Iterator[ScreenRanking]:
    """Compact imported judgments as screen rankings (entries in file order; every one is valid:
    an imported file has no traps and no HIT to exclude). The judgment's number stands for both ids."""
    rows = (
        ImportedEntry.objects.filter(campaign=campaign)
        .values_list(
            "judgment",
            "sentence_id",
            "sentence__position",
            "judge_id",
            "system_id",
            "score",
            "rank",
            "meaning_changed",
        )
        .order_by("judgment", "pk")
    )
    current: ScreenRanking | None = None
    cells: list = []
    for number, sentence_id, pos, judge_id, system_id, score, rank, mc in rows.iterator(
        chunk_size=max(chunk_size, 20000)
    ):
        if current is None or current.judgment_id != number:
            if current is not None:
                yield _finish(current, cells, names)
            current = ScreenRanking(number, number, sentence_id, pos, judge_id)
            cells = []
        cells.append((len(cells), system_id, score, rank, mc))
    if current is not None:
        yield _finish(current, cells, names)


def _finish(sr: ScreenRanking, cells: list, names: dict[int, str]) -> ScreenRanking:
    scores = {cand: score for cand, _sys, score, _rank, _mc in cells if score is not None}
    for _cand, system_id, score, rank, mc in cells:
        if system_id not in names:
            continue
        if rank is None:
            if score is None:
                continue  # an answer that is neither a rank nor a score ranks nothing
            rank = 1 + sum(1 for other in scores.values() if other > score)
        sr.entries.append((names[system_id], rank, score, mc))
    return sr


def campaign_rankings(campaign: Campaign) -> list[RankingJudgment]:
    """Every valid judgment of two systems or more as a k-way ranking (item = sentence id,
    annotator = judge id), in judgment order."""
    return [
        RankingJudgment(str(sr.sentence_id), str(sr.judge_id), tuple((s, r) for s, r, _sc, _mc in sr.entries))
        for sr in iter_screen_rankings(campaign)
        if len(sr.entries) >= 2
    ]
