"""What analyses read from a campaign, as plain data (geceval types), in a stable order.

Only valid judgments count (``ranking.selectors.valid_judgment``, the rule live results use too).

Rankings come from the one builder the live page uses too (``ranking.rankings``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotate.models import Output, Sentence, SystemKind
from geceval.formats.judgments import PrwsRating
from ranking.analysis.frozen import compact_judgment_count
from ranking.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    WorkerRecord,
)
from ranking.protocols import protocol_get
from ranking.rankings import iter_screen_rankings
from ranking.selectors import valid_judgments


def campaign_prws_ratings(campaign: Campaign) -> list[PrwsRating]:
    """Valid PRWS ratings, one per system a candidate stands for (item = sentence id)."""
    if not protocol_get(campaign.protocol).prws_ratings:
        return []
    return [
        PrwsRating(str(sr.sentence_id), str(sr.judge_id), system, float(score), bool(mc))
        for sr in iter_screen_rankings(campaign)
        for system, _rank, score, mc in sr.entries
        if score is not None
    ]


def valid_judgment_count(campaign: Campaign) -> int:
    compact = compact_judgment_count(campaign)
    return valid_judgments(campaign).count() if compact is None else compact


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
