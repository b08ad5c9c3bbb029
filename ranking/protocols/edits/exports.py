"""The edit-level protocol's results: one JSONL row per labelled edit and system (``edit-jsonl``), and
the per-system edit-level score an analysis run's page shows.

A row: ``sentence`` (as ``srcIndex`` in WMT CSV and ``id`` in Appraise XML: the 0-based corpus line,
or the sentence's name in a corpus that names them; ``ranking.protocols.files``),
``system``, ``span`` ([start, end) source tokens), ``original`` (those tokens), ``correction`` (what
they became; "" deletes them), ``type`` (ERRANT's), ``label`` (good, bad, neutral) and ``judge`` (the
worker's pseudonym, as in every export). A correction several systems wrote is labelled once and gives
one row per system; traps and control screens give none (``ranking.selectors.valid_judgment``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator

from ranking.models import Campaign
from ranking.protocols.edits.models import EditLabel, EditLabelChoice
from ranking.protocols.edits.scores import edit_scores
from ranking.protocols.files import JudgmentFormat, item_names, pseudonym
from ranking.selectors import valid_judgment


def valid_edit_labels(campaign: Campaign):
    """The labels of the campaign's valid judgments, one row per system the candidate stands for."""
    return EditLabel.objects.filter(
        valid_judgment("judgment__"),
        judgment__screen__campaign=campaign,
        candidate__outputs__system__in=campaign.systems.all(),
    )


def iter_edit_jsonl(campaign: Campaign) -> Iterator[str]:
    rows = (
        valid_edit_labels(campaign)
        .order_by("judgment_id", "candidate__position", "edit__index", "candidate__outputs__system__name")
        .values_list(
            "judgment__screen__sentence_id",
            "judgment__screen__sentence__position",
            "candidate__outputs__system__name",
            "edit__o_start",
            "edit__o_end",
            "edit__o_text",
            "edit__c_text",
            "edit__error_type",
            "label",
            "judgment__judge_id",
        )
    )
    item, labelled = item_names(campaign), rows.iterator(2000)
    for sentence, position, system, start, end, original, correction, kind, label, judge in labelled:
        row = {
            "sentence": item(sentence, position),
            "system": system,
            "span": [start, end],
            "original": original,
            "correction": correction,
            "type": kind,
            "label": label,
            "judge": pseudonym(judge),
        }
        yield json.dumps(row, ensure_ascii=False) + "\n"


EDIT_JSONL = JudgmentFormat(
    "edit-jsonl",
    "Edit labels JSONL (one row per edit and system: span, correction, ERRANT type, label, judge)",
    "jsonl",
    "application/jsonl",
    iter_edit_jsonl,
)


def campaign_edit_scores(campaign: Campaign):
    """Per system: share of its labelled edits marked good, with a bootstrap interval over sentences."""
    counts: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for system, sentence, label in valid_edit_labels(campaign).values_list(
        "candidate__outputs__system__name", "judgment__screen__sentence_id", "label"
    ):
        cell = counts[system][sentence]
        cell[0] += label == EditLabelChoice.GOOD
        cell[1] += 1
    return edit_scores(
        {system: [tuple(c) for c in per.values()] for system, per in counts.items()}, seed=campaign.seed
    )


def edit_scores_panel(campaign: Campaign) -> dict:
    return {"template": "ranking/analysis/_edit_scores.html", "edit_scores": campaign_edit_scores(campaign)}
