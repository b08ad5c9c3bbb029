"""The example screen a platform's preview shows before a worker accepts (issue 35).

A preview is public (MTurk shows it to anyone browsing HITs), so it never shows a screen of the
campaign's pool: the first screen of the pool was a trap in two campaigns of three, and a worker who
saw it could spot its copy later. It shows the sentence the researcher picked on the campaign form
(``Campaign.preview_sentence``), built on the spot from the campaign's systems' outputs as a judged
screen would be and never saved, judged or counted; or, without one, a built-in example.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from annotate.models import Output
from ranking.models import Campaign
from ranking.work.judging import normalise


@dataclass(frozen=True)
class PreviewExample:
    source: str
    candidates: tuple[str, ...]
    tokenized: bool
    built_in: bool


BUILT_IN_EXAMPLE = PreviewExample(
    source="Yesterday I go to the market for buy some vegetable.",
    candidates=(
        "Yesterday I went to the market to buy some vegetables.",
        "Yesterday I go to the market to buy some vegetables.",
        "Yesterday I went to the market for buy some vegetable.",
        "Yesterday I went to market for buying some vegetables.",
        "Yesterday I go to the market for buy some vegetable.",
    ),
    tokenized=False,
    built_in=True,
)
"""Shown when the researcher picked no sentence: a learner sentence of our own and five corrections of
it, none from any corpus."""


def campaign_preview(campaign: Campaign) -> PreviewExample:
    """What the campaign's preview shows: its example sentence's distinct outputs of the campaign's
    systems (up to the screen size, in a fixed shuffled order), else the built-in example."""
    size = max(2, campaign.max_candidates)
    sentence = campaign.preview_sentence
    if sentence is not None:
        texts: dict[str, str] = {}
        for text in (
            Output.objects.filter(sentence=sentence, system__in=campaign.systems.all())
            .order_by("system__name")
            .values_list("text", flat=True)
        ):
            texts.setdefault(normalise(text), text)
        shown = list(texts.values())
        random.Random(f"{campaign.pk}:preview").shuffle(shown)
        if shown:
            return PreviewExample(sentence.text, tuple(shown[:size]), campaign.corpus.tokenized, False)
    return PreviewExample(
        BUILT_IN_EXAMPLE.source, BUILT_IN_EXAMPLE.candidates[:size], tokenized=False, built_in=True
    )
