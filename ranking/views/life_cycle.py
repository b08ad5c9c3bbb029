"""The campaign's life-cycle buttons (launch, pilot, pause, resume, close, reopen): thin over
ranking.services.life_cycle. Closing asks for confirmation on a page that says what it does."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotate.decorators import researcher_required
from geceval.errors import GecInputError
from ranking.selectors import campaign_list_for
from ranking.services.life_cycle import (
    BY_ACTION,
    CLOSE_EXPLAINED,
    TRANSITIONS,
    campaign_transition,
)


def _action(request: HttpRequest, status: str) -> str:
    """The button's action; an older form posts the target status instead."""
    action = request.POST.get("action", "")
    if action or not request.POST.get("status"):
        return action
    wanted = request.POST["status"]
    steps = [t.action for t in TRANSITIONS if t.target == wanted and status in t.sources]
    return steps[0] if steps else f"to {wanted}"


@researcher_required
@require_POST
def campaign_status(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    action = _action(request, campaign.status)
    if (
        action == "close"
        and request.POST.get("confirm") != "yes"
        and campaign.status in BY_ACTION[action].sources
    ):
        context = {"campaign": campaign, "explained": CLOSE_EXPLAINED}
        return render(request, "ranking/campaign_close.html", context)
    try:
        step = campaign_transition(campaign=campaign, action=action)
    except GecInputError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Campaign {campaign.name} {step.done}.")
    return redirect("campaign-detail", pk=campaign.pk)
