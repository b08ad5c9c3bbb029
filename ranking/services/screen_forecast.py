"""Before a ranking campaign is created: how many distinct outputs its screens would show.

Few systems, or systems that often write the same correction, leave many ranking screens with
fewer than ``MIN_DISTINCT`` distinct outputs (identical outputs are shown once). The campaign form
warns, with the expected distribution, when fewer than ``MIN_SHARE`` of screens reach it, and asks
the researcher to confirm before creating the campaign.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from annotate.models import Corpus, Output, System
from geceval.human.screen_draws import screen_distribution, share_at_least
from ranking.work.judging import normalise

MIN_DISTINCT = 4
MIN_SHARE = 0.8


@dataclass(frozen=True)
class Forecast:
    distribution: dict[int, float]  # distinct outputs per screen -> expected share of screens
    share_ok: float  # share of screens with at least MIN_DISTINCT distinct outputs

    @property
    def warn(self) -> bool:
        return bool(self.distribution) and self.share_ok < MIN_SHARE

    @property
    def rows(self) -> list[tuple[int, float]]:
        return [(d, round(100 * p, 1)) for d, p in self.distribution.items()]


def ranking_forecast(
    *,
    corpus: Corpus,
    systems: Iterable[System],
    max_candidates: int,
    domain: str = "",
    sentences: Iterable[int] | None = None,
) -> Forecast:
    """The expected distribution of distinct outputs per screen for these systems of the corpus
    (``sentences``: only these sentence ids, a campaign's sample)."""
    ids = [s.pk for s in systems]
    outputs = Output.objects.filter(system_id__in=ids, sentence__corpus=corpus)
    if domain:
        outputs = outputs.filter(sentence__domain=domain)
    if sentences is not None:
        outputs = outputs.filter(sentence_id__in=list(sentences))
    texts: dict[int, Counter] = defaultdict(Counter)
    for sentence_id, text in outputs.values_list("sentence_id", "text").iterator(chunk_size=5000):
        texts[sentence_id][normalise(text)] += 1
    distribution = screen_distribution((list(c.values()) for c in texts.values()), max_candidates)
    return Forecast(distribution, share_at_least(distribution, MIN_DISTINCT))


@dataclass(frozen=True)
class Coverage:
    """What a campaign's screens would cover, shown on the form before the first submit (issue 40)."""

    corpus_sentences: int  # in the corpus (or the domain)
    sampled: int  # taken by the sample
    judged: int  # of those, with an output of a chosen system: each gets screens
    sample: str  # the sample in words ("": the whole corpus)

    @property
    def without_outputs(self) -> int:
        return self.sampled - self.judged


def screen_coverage(
    *, corpus: Corpus, systems: Iterable[System], domain: str, sample
) -> tuple[Coverage, list[int]]:
    """How many sentences the campaign would judge, and their ids. ``sample``: a
    ``campaign_checks.Sample`` (its ``GecInputError`` when it cannot be drawn)."""
    pool = list(corpus.sentences.filter(domain=domain) if domain else corpus.sentences.all())
    taken = sample.take(pool)
    ids = [s.pk for s in taken]
    judged = (
        Output.objects.filter(system__in=list(systems), sentence_id__in=ids)
        .values("sentence_id")
        .distinct()
        .count()
    )
    return Coverage(len(pool), len(taken), judged, sample.describe()), ids
