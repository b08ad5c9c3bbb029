"""The study file's ``gold`` section (issue 39): the gold pass mark, the researcher's gold screens
(issue 41) and the campaign's own qualification test with the expert's answers. Rows are written as
a JSON gold file's (``ranking.quality.gold.gold_screens_import``): the sentence's 0-based position in
the corpus, the screen's index among that sentence's screens, the expected answer by system name;
no database id, so applied into another database they name the same screens. They are checked by
the gold file's own check. All of it is fixed once launched: gold copies are placed in a draft's
HITs, and workers already graded against the gold would be graded against another."""

from __future__ import annotations

import json
from typing import Any

from geceval.errors import GecInputError
from ranking.models import Campaign
from ranking.protocols import protocol_get
from ranking.protocols.base import CandidateScore
from ranking.quality.gold import (
    gold_assignment_start,
    gold_rows_meaning,
    gold_screens_import,
    gold_screens_rows,
    qualification_rows,
    qualification_test_replace,
)
from ranking.study.sections import StudySection
from ranking.work.assignments import screen_submit

PASS_MARK_DEFAULT = 0.7  # the model's (Campaign.gold_threshold)


def _row_schema(answers_required: bool) -> dict[str, Any]:
    whole = {"type": "integer", "minimum": 0}
    return {
        "type": "object",
        "properties": {
            "sentence": {**whole, "description": "the sentence's position in the corpus, from 0"},
            "screen": {
                **whole,
                "default": 0,
                "description": "the screen's index among the sentence's screens",
            },
            "expected": {
                "type": "object",
                "minProperties": 1,
                "additionalProperties": {"type": "integer"},
                "description": "system name -> the expected score or rank of its candidate (as a worker "
                "answers); every candidate of the screen answered",
            },
        },
        "required": ["sentence", "expected"] if answers_required else ["sentence"],
        "additionalProperties": False,
    }


SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "gold answers: the researcher's gold screens, placed and scored like traps, and the "
    "campaign's qualification test with the expert's answers. Fixed once launched.",
    "properties": {
        "pass_mark": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": 1,
            "default": PASS_MARK_DEFAULT,
            "description": "share of candidate pairs a worker must order as the gold does (better, "
            "equal, worse), on a gold copy or the qualification test",
        },
        "screens": {
            "type": "array",
            "items": _row_schema(True),
            "default": [],
            "description": "gold screens: their copies go into other HITs (traps/gold_rate per judged screen)",
        },
        "qualification": {
            "type": "array",
            "items": _row_schema(False),
            "default": [],
            "description": "the qualification test, in its order: the screens it copies and the expert's "
            "answers (left out on every row: not recorded yet). Empty: no test",
        },
    },
    "additionalProperties": False,
}


def _read(campaign: Campaign) -> dict[str, Any]:
    return {
        "pass_mark": campaign.gold_threshold,
        "screens": gold_screens_rows(campaign),
        "qualification": qualification_rows(campaign),
    }


def _write(campaign: Campaign, values: dict[str, Any]) -> None:
    if "pass_mark" in values:
        campaign.gold_threshold = float(values["pass_mark"])
        campaign.save(update_fields=["gold_threshold"])
    try:
        if "screens" in values:
            data = json.dumps(values["screens"]).encode()
            gold_screens_import(campaign=campaign, data=data, filename="study.json", replace=True)
        if "qualification" in values:
            answered = qualification_test_replace(campaign=campaign, rows=values["qualification"])
            if answered:
                _record(campaign, answered)
    except GecInputError as exc:
        raise GecInputError(f"gold: {exc}") from None


def _record(campaign: Campaign, answered: list) -> None:
    """The expert's answers of the test, recorded as the Gold answers page records them, by the
    campaign's creator (or the project's owner)."""
    expert = campaign.created_by or campaign.project.owner
    if expert is None:
        raise GecInputError(
            "qualification test: its gold answers are recorded as the campaign's creator or the project's"
            f" owner, and it has neither (set one: python manage.py create_project {campaign.project.name}"
            " --owner USERNAME)"
        )
    assignment = gold_assignment_start(campaign=campaign, expert=expert)
    field = protocol_get(campaign.protocol).answer_field
    for copy, expected in answered:
        screen_submit(
            assignment=assignment,
            screen=copy,
            worker=expert,
            answers={pk: CandidateScore(**{field: value}) for pk, value in expected.items()},
        )


def _differs(campaign: Campaign, wanted: dict[str, Any]) -> list[str]:
    """The keys whose meaning differs (a row naming one system of a shared text, or rows in another
    order, is the same gold)."""
    now = _read(campaign)
    out = ["pass_mark"] if float(wanted["pass_mark"]) != float(now["pass_mark"]) else []
    for key, qualification in (("screens", False), ("qualification", True)):
        if gold_rows_meaning(campaign, wanted[key], qualification=qualification) != gold_rows_meaning(
            campaign, now[key], qualification=qualification
        ):
            out.append(key)
    return out


def gold_section() -> StudySection:
    return StudySection(
        name="gold", schema=SCHEMA, read=_read, write=_write, after_launch=False, differs=_differs
    )
