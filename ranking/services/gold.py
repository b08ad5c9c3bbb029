"""A campaign's own qualification: a few screens answered by an expert (the gold), then by each worker.

A worker passes when the share of candidate pairs they order as the expert did
(better, equal, worse) reaches ``campaign.gold_threshold``. For PRWS scores,
two candidates count as equal when their scores differ by less than
``PRWS_TIE_MARGIN`` points (``ranking.protocols.prws``), since two judges rarely give the same number.
"""

from __future__ import annotations

import random
from itertools import combinations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max

from annotate.sql_rows import row
from geceval.errors import GecInputError
from ranking.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    Candidate,
    Hit,
    Rating,
    Screen,
    WorkerRecord,
)
from ranking.protocols import protocol_get
from ranking.services.campaigns import screen_draw_active


@transaction.atomic
def qualification_hit_create(*, campaign: Campaign, screens: int = 5, seed: int | None = None) -> Hit:
    """Copy ``screens`` randomly chosen screens into the campaign's qualification HIT."""
    if Hit.objects.filter(campaign=campaign, qualification=True).exists():
        raise GecInputError("this campaign already has a qualification test")
    # control screens (hidden traps, repeats) are never gold: a test copies judged screens only
    pool = list(
        Screen.objects.filter(campaign=campaign, hit__qualification=False, control__isnull=True).order_by(
            "pk"
        )
    )
    if not 1 <= screens <= len(pool):
        raise GecInputError(f"choose 1 to {len(pool)} screens for the test")
    chosen = random.Random(f"{campaign.seed if seed is None else seed}:gold").sample(pool, screens)
    top = Hit.objects.filter(campaign=campaign).aggregate(m=Max("index"))["m"] or 0
    hit = Hit.objects.create(campaign=campaign, index=top + 1, qualification=True)
    offset = (Screen.objects.filter(campaign=campaign).aggregate(m=Max("index"))["m"] or 0) + 1
    for position, original in enumerate(chosen):
        if campaign.active_selection and not original.candidates.exists():
            original = screen_draw_active(screen=original)
        copy = Screen.objects.create(
            campaign=campaign, sentence_id=original.sentence_id, index=offset, hit=hit, hit_position=position
        )
        for candidate in original.candidates.all():
            new = Candidate.objects.create(screen=copy, position=candidate.position, text=candidate.text)
            new.outputs.set(candidate.outputs.all())
    return hit


def qualification_hit(campaign: Campaign) -> Hit | None:
    """The campaign's qualification HIT, if it has one (asked on every claim: a plain statement)."""
    return row(Hit, campaign_id=campaign.pk, qualification=True, first_by="index")


def gold_assignment(campaign: Campaign) -> Assignment | None:
    return Assignment.objects.filter(
        hit__campaign=campaign, hit__qualification=True, gold=True, status=AssignmentStatus.SUBMITTED
    ).first()


def gold_assignment_start(*, campaign: Campaign, expert: AbstractBaseUser) -> Assignment:
    """The expert's assignment on the qualification HIT; their answers become the gold."""
    from datetime import timedelta

    from django.utils import timezone

    hit = qualification_hit(campaign)
    if hit is None:
        raise GecInputError("create the qualification test first")
    existing = Assignment.objects.filter(hit=hit, worker=expert).first()
    if existing is not None:
        return existing
    if gold_assignment(campaign) is not None:
        raise GecInputError("the gold answers are already recorded")
    slot = (Assignment.objects.filter(hit=hit).aggregate(m=Max("slot"))["m"] or 0) + 1
    return Assignment.objects.create(
        hit=hit, worker=expert, slot=slot, gold=True, expires=timezone.now() + timedelta(days=7)
    )


def _relations(protocol: str, values: dict[int, int]) -> dict[tuple[int, int], int]:
    """Per pair of candidate positions: -1 first better, 0 equal, 1 second better."""
    relation = protocol_get(protocol).gold_relation
    return {(a, b): relation(values[a], values[b]) for a, b in combinations(sorted(values), 2)}


def _answers(assignment: Assignment, protocol: str) -> dict[int, dict[int, int]]:
    """sentence id -> {candidate position: score or rank} of one assignment."""
    field = protocol_get(protocol).answer_field
    out: dict[int, dict[int, int]] = {}
    for sentence_id, position, value in Rating.objects.filter(judgment__assignment=assignment).values_list(
        "judgment__screen__sentence_id", "candidate__position", field
    ):
        out.setdefault(sentence_id, {})[position] = value
    return out


def gold_agreement(campaign: Campaign, assignment: Assignment) -> float | None:
    """Share of candidate pairs the worker ordered as the gold did (None without gold)."""
    gold = gold_assignment(campaign)
    if gold is None:
        return None
    expected = _answers(gold, campaign.protocol)
    given = _answers(assignment, campaign.protocol)
    agree = total = 0
    for sentence_id, gold_values in expected.items():
        mine = _relations(campaign.protocol, given.get(sentence_id, {}))
        for pair, relation in _relations(campaign.protocol, gold_values).items():
            total += 1
            agree += mine.get(pair) == relation
    return agree / total if total else None


def qualification_grade(*, campaign: Campaign, assignment: Assignment) -> WorkerRecord:
    """Called when a worker finishes the qualification HIT."""
    record, _ = WorkerRecord.objects.select_for_update().get_or_create(
        campaign=campaign, worker=assignment.worker
    )
    agreement = gold_agreement(campaign, assignment)
    record.gold_agreement = agreement
    record.qualified = agreement is not None and agreement >= campaign.gold_threshold
    record.save(update_fields=["gold_agreement", "qualified"])
    return record
