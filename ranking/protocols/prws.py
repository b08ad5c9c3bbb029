"""PRWS (GMEG): a 0-100 slider per output, and 'meaning changed'; a system's score is the mean over
sentences of the sentence's mean rating.

Its own judgment files besides the ranking-shaped ones (``ranking.protocols.files``):

- ``prws-csv``: ``item,worker,system,score,meaning_changed`` (geceval.formats.prws_csv.read_prws_csv; ``item`` as
  in the ranking files: the sentence's 0-based line, or its name in a corpus that names them).
- ``gmeg-segment-csv``: GMEG ``*-segment-scores.csv``: a header of systems, one row per corpus
  sentence, the cell = mean score of that system's output (empty = not rated).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from django.db.models import Avg, Count, Q

from annotate.models import Sentence
from geceval.errors import GecInputError
from ranking.models import Campaign
from ranking.protocols.base import CandidateScore, Protocol, whole
from ranking.protocols.files import APPRAISE_XML, WMT_CSV, JudgmentFormat, csv_line, item_names, pseudonym
from ranking.rankings import iter_screen_rankings
from ranking.selectors import valid_ratings

PRWS_TIE_MARGIN = 10
"""Gold agreement: two PRWS scores less than this apart count as equal (two judges rarely give the
same number)."""

INSTRUCTIONS = (
    "Rate how grammatical and fluent each correction is, from completely ungrammatical or garbled (0) "
    "to perfect (100). Judge each sentence on its own; identical corrections are shown once. Tick "
    "'meaning changed' if a correction no longer means what the original sentence meant."
)


# --------------------------------------------------------------------------- PRWS files


def iter_prws_csv(campaign: Campaign) -> Iterator[str]:
    yield csv_line(["item", "worker", "system", "score", "meaning_changed"])
    item = item_names(campaign)
    for sr in iter_screen_rankings(campaign):
        for system, _rank, score, mc in sr.entries:
            if score is not None:
                yield csv_line(
                    [item(sr.sentence_id, sr.position), pseudonym(sr.judge_id), system, score, int(mc)]
                )


def iter_gmeg_segment_csv(campaign: Campaign) -> Iterator[str]:
    """Per-sentence mean score of each system (PRWS); rows = corpus sentences in order (GMEG item = 0-based line)."""

    systems = sorted(campaign.systems.values_list("name", flat=True))
    sums: dict[tuple[int, str], list[float]] = defaultdict(lambda: [0.0, 0])
    for sr in iter_screen_rankings(campaign):
        for system, _rank, score, _mc in sr.entries:
            if score is not None:
                acc = sums[(sr.position, system)]
                acc[0] += score
                acc[1] += 1
    yield csv_line(systems)
    positions = (
        Sentence.objects.filter(corpus=campaign.corpus)
        .order_by("position")
        .values_list("position", flat=True)
    )
    if campaign.domain:
        positions = positions.filter(domain=campaign.domain)
    for pos in positions.iterator():
        cells = []
        for s in systems:
            total, n = sums.get((pos, s), (0.0, 0))
            cells.append(repr(total / n) if n else "")
        yield csv_line(cells)


PRWS_CSV = JudgmentFormat(
    "prws-csv",
    "PRWS ratings CSV (item, worker, system, score, meaning_changed)",
    "csv",
    "text/csv",
    iter_prws_csv,
)
GMEG_SEGMENT_CSV = JudgmentFormat(
    "gmeg-segment-csv",
    "GMEG segment scores CSV (mean score per sentence and system)",
    "csv",
    "text/csv",
    iter_gmeg_segment_csv,
)


class Prws(Protocol):
    name = "prws"
    label = "PRWS sliders (GMEG)"
    template = "ranking/work.html"
    instructions = INSTRUCTIONS
    answer_field = "score"
    missing_answer = "move every slider before submitting"
    prws_ratings = True
    judgment_formats = (PRWS_CSV, GMEG_SEGMENT_CSV, WMT_CSV, APPRAISE_XML)

    def validate_answer(self, answer: CandidateScore, shown: int) -> None:
        if not whole(answer.score) or not 0 <= answer.score <= 100 or answer.rank is not None:
            raise GecInputError("scores are whole numbers from 0 to 100")

    def trap_passed(self, trap: CandidateScore, base: CandidateScore, margin: int = 1) -> bool:
        return base.score - trap.score >= max(1, margin)

    def gold_relation(self, first: int, second: int) -> int:
        diff = first - second
        return 0 if abs(diff) < PRWS_TIE_MARGIN else (-1 if diff > 0 else 1)

    def live_scores(self, campaign: Campaign, wanted: dict) -> dict[int, dict]:
        """A rating of a collapsed candidate counts for every system that produced its text."""
        rows = (
            valid_ratings(campaign)
            .filter(score__isnull=False)
            .values("candidate__outputs__system_id", "candidate__screen__sentence_id")
            .annotate(mean=Avg("score"), n=Count("id"), changed=Count("id", filter=Q(meaning_changed=True)))
        )
        per_system: dict[int, list[tuple[float, int, int]]] = defaultdict(list)
        for row in rows:
            if row["candidate__outputs__system_id"] in wanted:
                per_system[row["candidate__outputs__system_id"]].append(
                    (row["mean"], row["n"], row["changed"])
                )
        return {
            system_id: {
                "mean_score": sum(m for m, _, _ in segs) / len(segs),
                "ratings": sum(n for _, n, _ in segs),
                "items": len(segs),
                "meaning_changed": sum(c for _, _, c in segs),
                "rank_lo": None,
                "rank_hi": None,
                "cluster": None,
            }
            for system_id, segs in per_system.items()
        }


PRWS = Prws()
