"""A campaign's life cycle: draft, pilot, active, paused, closed; no one-way step.

A campaign made in the browser or through the API starts as a draft (nothing handed out). From
there the researcher launches it (active) or pilots it: a pilot is live but hands out only the
first ``PILOT_HITS`` HITs (by their order), so a few workers can try it before everyone comes.
Pause stops new HITs (live ones may be finished), resume starts them again; close does the same
as pause and says the campaign is over; reopen brings a closed campaign back as paused. A
campaign nobody has worked on yet can go back to draft. Every step has one that undoes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from geceval.errors import GecInputError
from ranking.models import Assignment, Campaign, CampaignStatus, Hit

PILOT_HITS = 3
"""HITs a pilot hands out: the first ones by index (each to up to ``judgments_per_item`` workers)."""

S = CampaignStatus


@dataclass(frozen=True)
class Transition:
    action: str
    label: str
    target: str
    sources: tuple[str, ...]
    done: str

    @property
    def past(self) -> str:
        return {"draft": "put back to draft", "pilot": "piloted", "resume": "resumed"}.get(
            self.action, f"{self.action}ed".replace("eed", "ed")
        )


TRANSITIONS = (
    Transition("launch", "Launch", S.ACTIVE, (S.DRAFT, S.PILOT), "launched: workers get HITs"),
    Transition(
        "pilot",
        "Pilot",
        S.PILOT,
        (S.DRAFT, S.PAUSED),
        f"in pilot: workers get only the first {PILOT_HITS} HITs",
    ),
    Transition(
        "pause",
        "Pause",
        S.PAUSED,
        (S.ACTIVE, S.PILOT),
        "paused: no new HITs; HITs in progress may be finished",
    ),
    Transition("resume", "Resume", S.ACTIVE, (S.PAUSED,), "resumed: workers get HITs again"),
    Transition(
        "close",
        "Close",
        S.CLOSED,
        (S.DRAFT, S.PILOT, S.ACTIVE, S.PAUSED),
        "closed: no new HITs; HITs in progress may be finished",
    ),
    Transition("reopen", "Reopen", S.PAUSED, (S.CLOSED,), "reopened as paused: resume it to hand out HITs"),
    Transition(
        "draft", "Back to draft", S.DRAFT, (S.PILOT, S.ACTIVE, S.PAUSED), "back to draft: nothing handed out"
    ),
)
BY_ACTION = {t.action: t for t in TRANSITIONS}

CLOSE_EXPLAINED = (
    "Closing stops the campaign: no new HITs are given out. Workers who have a HIT in progress may "
    "finish it, and their judgments count. You can reopen the campaign later."
)

STATUS_EXPLAINED = {
    S.DRAFT: "Draft: workers get nothing yet. Launch it, or pilot it with a few workers first.",
    S.PILOT: f"Pilot: workers get only the first {PILOT_HITS} HITs. Launch it for everyone, or pause it.",
    S.ACTIVE: "Active: workers get HITs.",
    S.PAUSED: "Paused: no new HITs; HITs in progress may be finished. Resume it to go on.",
    S.CLOSED: "Closed: no new HITs; HITs in progress may be finished. Reopen it (as paused) to go on.",
}

NO_WORK_BECAUSE = {
    S.DRAFT: "This campaign has not started yet: it is not handing out work.",
    S.PAUSED: "This campaign is paused: it is not handing out work at the moment.",
    S.CLOSED: "This campaign is closed: it is not handing out work any more.",
}

PILOT_FULL = (
    f"This campaign is in its pilot, which hands out only its first {PILOT_HITS} HITs: "
    "there are no more for you at the moment."
)


def pilot_hit_ids(campaign: Campaign) -> list[int]:
    """The HITs a pilot hands out: the first ``PILOT_HITS`` by index (qualification tests apart)."""
    hits = Hit.objects.filter(campaign=campaign, qualification=False).order_by("index")
    return list(hits.values_list("pk", flat=True)[:PILOT_HITS])


def _worked_on(campaign: Campaign) -> bool:
    return Assignment.objects.filter(hit__campaign=campaign, hit__qualification=False).exists()


def transitions_for(campaign: Campaign) -> list[Transition]:
    """The steps open to the campaign now, in the order the page shows them."""
    steps = [t for t in TRANSITIONS if campaign.status in t.sources]
    if any(t.action == "draft" for t in steps) and _worked_on(campaign):
        steps = [t for t in steps if t.action != "draft"]
    return steps


@transaction.atomic
def campaign_transition(*, campaign: Campaign, action: str) -> Transition:
    """Apply one step of the life cycle, or raise GecInputError saying why it is not open."""
    step = BY_ACTION.get(action)
    if step is None:
        raise GecInputError("Choose one of the buttons on the campaign page.")
    row = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if row.status not in step.sources:
        raise GecInputError(f"This campaign is {row.status}: it cannot be {step.past} now.")
    if step.action == "draft" and _worked_on(row):
        raise GecInputError("Workers have had HITs of this campaign already: pause or close it instead.")
    row.status = step.target
    row.save(update_fields=["status"])
    campaign.status = step.target
    return step


def campaign_set_status(*, campaign: Campaign, status: str) -> Campaign:
    """Move to ``status`` by the one step that leads there from the current status (kept for the
    status form and older callers; the page names the action)."""
    if status not in CampaignStatus.values:
        raise GecInputError(f"unknown status {status!r}")
    if campaign.status == status:
        return campaign
    steps = [t for t in TRANSITIONS if t.target == status and campaign.status in t.sources]
    if not steps:
        raise GecInputError(f"A {campaign.status} campaign cannot become {status} in one step.")
    campaign_transition(campaign=campaign, action=steps[0].action)
    return campaign
