"""What analyses read from a campaign, as plain data (geceval types), in a stable order.

Only valid judgments count (``ranking.selectors.valid_judgment``, the rule live results use too).

A PRWS screen also reads as a ranking: candidates ordered by score, equal
scores tied (rank = 1 + the number of candidates scored strictly higher), so
ranking analyses and the ranking export formats work on PRWS campaigns too.
A candidate that stands for several systems' identical outputs gives one entry
per system with the same rank (Appraise's collapsed ``system="A,B"``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from annotate.models import Output, Sentence, SystemKind
from geceval.judgments import PrwsRating, RankingJudgment
from ranking.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    Protocol,
    WorkerRecord,
)
from ranking.selectors import valid_judgments, valid_ratings


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


def _finish(sr: ScreenRanking, cells: list, names: dict[int, str]) -> ScreenRanking:
    scores = {cand: score for cand, _sys, score, _rank, _mc in cells if score is not None}
    for _cand, system_id, score, rank, mc in cells:
        if system_id not in names:
            continue
        if rank is None:
            rank = 1 + sum(1 for other in scores.values() if other > score)
        sr.entries.append((names[system_id], rank, score, mc))
    return sr


def campaign_rankings(campaign: Campaign) -> list[RankingJudgment]:
    """Every valid judgment as a k-way ranking (item = sentence id, annotator = judge id), in judgment order."""
    return [
        RankingJudgment(str(sr.sentence_id), str(sr.judge_id), tuple((s, r) for s, r, _sc, _mc in sr.entries))
        for sr in iter_screen_rankings(campaign)
        if len(sr.entries) >= 2
    ]


def campaign_prws_ratings(campaign: Campaign) -> list[PrwsRating]:
    """Valid PRWS ratings, one per system a candidate stands for (item = sentence id)."""
    if campaign.protocol != Protocol.PRWS:
        return []
    return [
        PrwsRating(str(sr.sentence_id), str(sr.judge_id), system, float(score), bool(mc))
        for sr in iter_screen_rankings(campaign)
        for system, _rank, score, mc in sr.entries
        if score is not None
    ]


def valid_judgment_count(campaign: Campaign) -> int:
    return valid_judgments(campaign).count()


def excluded_worker_count(campaign: Campaign) -> int:
    """Workers whose judgments are left out: excluded assignments or an excluded trap record."""
    by_assignment = set(
        Assignment.objects.filter(hit__campaign=campaign, status=AssignmentStatus.EXCLUDED).values_list(
            "worker_id", flat=True
        )
    )
    by_record = set(
        WorkerRecord.objects.filter(campaign=campaign, excluded=True).values_list("worker_id", flat=True)
    )
    return len(by_assignment | by_record)


@dataclass
class CorpusTexts:
    source: list[str]
    outputs: dict[str, list[str]]
    """Campaign systems that are not references: name -> one line per sentence."""
    references: dict[str, list[str]]
    """The corpus's reference systems: name -> one line per sentence."""
    sentence_ids: list[int] = field(default_factory=list)
    """Database id of each line's sentence (PRWS items are sentence ids)."""


def campaign_texts(campaign: Campaign) -> CorpusTexts:
    """Source, system outputs and references over the corpus (or the campaign's domain), in corpus order.

    A system lacking an output for some sentence is left out (metrics need
    every line).
    """
    sentences = Sentence.objects.filter(corpus=campaign.corpus).order_by("position")
    if campaign.domain:
        sentences = sentences.filter(domain=campaign.domain)
    ids = list(sentences.values_list("pk", flat=True))
    source = list(sentences.values_list("text", flat=True))
    index = {pk: i for i, pk in enumerate(ids)}
    campaign_systems = set(campaign.systems.values_list("pk", flat=True))
    lines: dict[str, list[str | None]] = {}
    kinds: dict[str, str] = {}
    rows = Output.objects.filter(sentence_id__in=ids, system__corpus=campaign.corpus).values_list(
        "system_id", "system__name", "system__kind", "sentence_id", "text"
    )
    for system_id, name, kind, sentence_id, text in rows.iterator(chunk_size=5000):
        if kind != SystemKind.REFERENCE and system_id not in campaign_systems:
            continue
        if kind == SystemKind.SOURCE_ERROR:
            continue
        kinds[name] = kind
        lines.setdefault(name, [None] * len(ids))[index[sentence_id]] = text
    complete = {name: [t or "" for t in v] for name, v in lines.items() if all(t is not None for t in v)}
    return CorpusTexts(
        source=source,
        outputs={n: v for n, v in sorted(complete.items()) if kinds[n] != SystemKind.REFERENCE},
        references={n: v for n, v in sorted(complete.items()) if kinds[n] == SystemKind.REFERENCE},
        sentence_ids=ids,
    )
