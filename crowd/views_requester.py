"""Researchers' requester operations on MTurk and Prolific, from the campaign's crowd page.

Thin: each POST validates a small form and calls one service of
crowd.services.mturk / crowd.services.prolific with a client built from the
environment (``mturk.mturk_client`` / ``prolific.prolific_client``, which
tests replace with stubbed clients). Every call lands in the audit log.
"""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate.decorators import researcher_required
from crowd.models import CrowdSettings
from crowd.services import mturk, prolific
from crowd.services.sessions import campaign_key
from geceval.errors import GecInputError
from ranking.selectors import campaign_list_for


class MturkPublishForm(forms.Form):
    title = forms.CharField(label="Title", max_length=128)
    description = forms.CharField(label="Description", max_length=2000)
    keywords = forms.CharField(label="Keywords", max_length=1000, required=False)
    hits = forms.IntegerField(label="MTurk HITs", min_value=1, max_value=1000)
    max_assignments = forms.IntegerField(label="Assignments per HIT", min_value=1, max_value=1000)
    lifetime_hours = forms.IntegerField(
        label="Lifetime (hours)", min_value=1, max_value=24 * 365, initial=168
    )
    duration_minutes = forms.IntegerField(
        label="Time per assignment (minutes)", min_value=1, max_value=24 * 60 * 7, initial=60
    )
    auto_approve_hours = forms.IntegerField(
        label="Auto-approve after (hours)", min_value=0, max_value=720, initial=72
    )
    min_approval_percent = forms.IntegerField(
        label="Approval rate at least (%)", min_value=0, max_value=100, required=False
    )
    locales = forms.CharField(label="Locales (e.g. US, GB, CA-ON)", required=False)
    min_hits_approved = forms.IntegerField(label="HITs approved at least", min_value=0, required=False)
    require_screening = forms.BooleanField(label="Only workers who passed our screening", required=False)
    sandbox = forms.BooleanField(label="Sandbox", required=False)


class MturkReviewForm(forms.Form):
    assignment_id = forms.CharField(label="MTurk assignment id", max_length=64)
    decision = forms.ChoiceField(label="Decision", choices=[("approve", "approve"), ("reject", "reject")])
    feedback = forms.CharField(label="Feedback to the worker", max_length=1024, required=False)


class BonusForm(forms.Form):
    worker_id = forms.CharField(label="Worker id (WorkerId / PROLIFIC_PID)", max_length=64)
    assignment_id = forms.CharField(label="MTurk assignment id", max_length=64, required=False)
    study_id = forms.CharField(label="Prolific study id", max_length=64, required=False)
    amount = forms.DecimalField(label="Amount", min_value=Decimal("0.01"), max_digits=8, decimal_places=2)
    reason = forms.CharField(label="Reason", max_length=1000)


class ProlificReviewForm(forms.Form):
    submission_id = forms.CharField(label="Submission id (SESSION_ID)", max_length=64)
    decision = forms.ChoiceField(label="Decision", choices=[("approve", "approve"), ("reject", "reject")])
    message = forms.CharField(label="Message (rejections: 100+ characters)", required=False)
    category = forms.ChoiceField(
        label="Rejection category", choices=[(c, c) for c in prolific.REJECTION_CATEGORIES], required=False
    )


def _locales(raw: str) -> list[str]:
    return [x.strip().upper() for x in raw.replace(";", ",").split(",") if x.strip()]


def _mturk_publish(request, campaign) -> str:
    form = MturkPublishForm(request.POST)
    if not form.is_valid():
        raise GecInputError("; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
    d = form.cleaned_data
    client = mturk.mturk_client(sandbox=d["sandbox"])
    screening = ""
    if d["require_screening"]:
        crowd = CrowdSettings.objects.filter(campaign=campaign).first()
        screening = crowd.mturk_qualification_type_id if crowd else ""
        if not screening:
            screening = mturk.mturk_screening_qualification_create(
                client=client,
                campaign=campaign,
                name=f"Screening passed: {campaign.name}"[:128],
                description="Granted to workers who passed the screening of this study.",
            )
        mturk.mturk_qualification_grant(client=client, campaign=campaign)
    hit_type = mturk.mturk_hit_type_create(
        client=client,
        campaign=campaign,
        title=d["title"],
        description=d["description"],
        keywords=d["keywords"],
        assignment_duration_seconds=d["duration_minutes"] * 60,
        auto_approval_delay_seconds=d["auto_approve_hours"] * 3600,
        requirements=mturk.Requirements(
            min_approval_percent=d["min_approval_percent"],
            locales=_locales(d["locales"]),
            min_hits_approved=d["min_hits_approved"],
            screening_qualification_id=screening,
        ),
    )
    url = request.build_absolute_uri(reverse("crowd-mturk", args=[campaign_key(campaign)]))
    batch = str(campaign.mturk_hits.count())
    hits = mturk.mturk_hits_create(
        client=client,
        campaign=campaign,
        hit_type_id=hit_type,
        external_url=url,
        count=d["hits"],
        max_assignments=d["max_assignments"],
        lifetime_seconds=d["lifetime_hours"] * 3600,
        batch=batch,
    )
    return f"{len(hits)} MTurk HITs published (HIT type {hit_type})."


def _mturk_review(request, campaign) -> str:
    form = MturkReviewForm(request.POST)
    if not form.is_valid():
        raise GecInputError("give the assignment id and a decision")
    d = form.cleaned_data
    client = mturk.mturk_client()
    if d["decision"] == "approve":
        mturk.mturk_approve(
            client=client, campaign=campaign, assignment_id=d["assignment_id"], feedback=d["feedback"]
        )
        return f"Assignment {d['assignment_id']} approved."
    mturk.mturk_reject(
        client=client, campaign=campaign, assignment_id=d["assignment_id"], feedback=d["feedback"]
    )
    return f"Assignment {d['assignment_id']} rejected."


def _mturk_bonus(request, campaign) -> str:
    form = BonusForm(request.POST)
    if not form.is_valid() or not form.cleaned_data["assignment_id"]:
        raise GecInputError("give the worker, the assignment, an amount and a reason")
    d = form.cleaned_data
    mturk.mturk_bonus(
        client=mturk.mturk_client(),
        campaign=campaign,
        worker_id=d["worker_id"],
        assignment_id=d["assignment_id"],
        amount=d["amount"],
        reason=d["reason"],
    )
    return f"Bonus of {d['amount']} sent to {d['worker_id']}."


def _mturk_sync(request, campaign) -> str:
    n = mturk.mturk_assignments_sync(client=mturk.mturk_client(), campaign=campaign)
    return f"{n} MTurk assignments synced."


def _mturk_expire(request, campaign) -> str:
    n = mturk.mturk_hits_expire(client=mturk.mturk_client(), campaign=campaign)
    return f"{n} MTurk HITs expired."


def _mturk_block(request, campaign) -> str:
    reason = request.POST.get("reason", "").strip() or "Failed the quality checks of this study."
    ids = mturk.mturk_block_excluded(client=mturk.mturk_client(), campaign=campaign, reason=reason)
    return f"{len(ids)} excluded MTurk workers blocked."


def _prolific_review(request, campaign) -> str:
    form = ProlificReviewForm(request.POST)
    if not form.is_valid():
        raise GecInputError("give the submission id and a decision")
    d = form.cleaned_data
    with prolific.prolific_client() as client:
        if d["decision"] == "approve":
            prolific.prolific_approve(client=client, campaign=campaign, submission_id=d["submission_id"])
            return f"Submission {d['submission_id']} approved."
        prolific.prolific_reject(
            client=client,
            campaign=campaign,
            submission_id=d["submission_id"],
            message=d["message"],
            category=d["category"],
        )
    return f"Submission {d['submission_id']} rejected."


def _prolific_bonus(request, campaign) -> str:
    form = BonusForm(request.POST)
    if not form.is_valid() or not form.cleaned_data["study_id"]:
        raise GecInputError("give the participant, the study, an amount and a reason")
    d = form.cleaned_data
    with prolific.prolific_client() as client:
        prolific.prolific_bonus(
            client=client,
            campaign=campaign,
            study_id=d["study_id"],
            participant_id=d["worker_id"],
            amount=d["amount"],
            reason=d["reason"],
        )
    return f"Bonus of {d['amount']} paid to {d['worker_id']}."


ACTIONS = {
    ("mturk", "publish"): _mturk_publish,
    ("mturk", "review"): _mturk_review,
    ("mturk", "bonus"): _mturk_bonus,
    ("mturk", "sync"): _mturk_sync,
    ("mturk", "expire"): _mturk_expire,
    ("mturk", "block"): _mturk_block,
    ("prolific", "review"): _prolific_review,
    ("prolific", "bonus"): _prolific_bonus,
}


@researcher_required
@require_POST
def platform_action(request: HttpRequest, pk: int, platform: str, action: str) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    run = ACTIONS.get((platform, action))
    if run is None:
        raise Http404("no such operation")
    try:
        messages.success(request, run(request, campaign))
    except GecInputError as exc:
        messages.error(request, str(exc))
    return redirect("crowd-campaign", pk=campaign.pk)
