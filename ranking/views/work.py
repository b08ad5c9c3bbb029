"""A worker's pages of a judgment campaign: the work queue, a HIT's screens, heartbeats, giving a HIT back
(the screen helpers are shared with the crowd platforms' task pages, ``crowd.views_work``)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import AbstractBaseUser
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate.decorators import annotator_required
from annotate.selectors import sentence_context
from geceval.errors import GecInputError
from ranking.models import Assignment, AssignmentStatus, Campaign, Screen
from ranking.protocols import protocol_get
from ranking.selectors import (
    assignment_for_worker,
    campaign_member_list_for,
    screen_candidates,
    screen_candidates_for_submit,
)
from ranking.services import (
    CandidateScore,
    NoWork,
    answers_from_form,
    assignment_request,
    assignment_return,
    screen_submit,
)
from ranking.statuses import worker_status
from ranking.work.assignments import assignment_screen_and_progress
from ranking.work.leases import assignment_heartbeat
from ranking.work.screen_handles import screen_handle, screen_id_from_handle
from ranking.work.screen_time import screen_seconds, screen_stamp


def read_answers(request: HttpRequest, campaign: Campaign, screen: Screen) -> dict[int, CandidateScore]:
    return answers_from_form(campaign.protocol, screen_candidates(screen), request.POST)


def posted_screen(request: HttpRequest, assignment: Assignment, *related: str) -> Screen | None:
    """The screen of the assignment's HIT that the page's ``screen`` field names by its handle."""
    pk = screen_id_from_handle(request.POST.get("screen"), assignment_id=assignment.pk)
    if pk is None:
        return None
    return Screen.objects.filter(pk=pk, hit_id=assignment.hit_id).select_related(*related).first()


def screen_form_submit(
    request: HttpRequest, *, assignment: Assignment, worker: AbstractBaseUser
) -> tuple[str | None, bool]:
    """Save the screen a worker's page posted (shared with the crowd platforms' task pages).

    Returns (error for the worker or None, whether a screen was saved); ``assignment`` leaves with
    the status the submission gave it. The screen's candidates are read once, for the form and the
    check alike."""
    screen = posted_screen(request, assignment, "sentence", "campaign")
    if screen is None:
        return "This screen is not part of your HIT.", False
    candidates = screen_candidates_for_submit(screen, screen.campaign)
    try:
        screen_submit(
            assignment=assignment,
            screen=screen,
            worker=worker,
            answers=answers_from_form(screen.campaign.protocol, candidates, request.POST),
            seconds=elapsed_seconds(request, screen, assignment),
            candidates=candidates,
        )
    except GecInputError as exc:
        return str(exc), False
    return None, True


def elapsed_seconds(request: HttpRequest, screen: Screen, assignment: Assignment) -> float | None:
    """Server seconds since the screen was rendered for this assignment, from the page's signed stamp
    (None when missing, forged or another screen's or assignment's): ``ranking.work.screen_time``, as the
    workers' API."""
    return screen_seconds(request.POST.get("started"), screen_id=screen.pk, assignment_id=assignment.pk)


def screen_context(campaign: Campaign, screen: Screen, assignment: Assignment | None = None) -> dict:
    """What a worker page shows of a screen (shared with the crowd platforms' task pages); the time
    stamp counts only when the page is served within ``assignment``."""
    before, after = sentence_context(screen.sentence)
    reference = None
    if campaign.reference_id:
        reference = (
            campaign.reference.outputs.filter(sentence_id=screen.sentence_id)
            .values_list("text", flat=True)
            .first()
        )
    candidates = screen_candidates(screen)
    return {
        "campaign": campaign,
        "screen": screen,
        "candidates": candidates,
        "ranks": range(1, len(candidates) + 1),
        "before": before,
        "after": after,
        "reference": reference,
        "tokenized": campaign.corpus.tokenized,
        "show_changes": campaign.show_changes,
        "started": screen_stamp(screen_id=screen.pk, assignment_id=assignment.pk if assignment else None),
        # The page names the screen by its opaque handle, never its id (issue 35); a page outside any
        # assignment (the pilot) posts none.
        "screen_handle": screen_handle(assignment_id=assignment.pk, screen_id=screen.pk)
        if assignment
        else "",
        **protocol_get(campaign.protocol).screen_extra(screen, candidates),
    }


def work_template(campaign: Campaign) -> str:
    return protocol_get(campaign.protocol).template


@annotator_required
def work(request: HttpRequest, pk: int) -> HttpResponse:
    """The worker asks for work; the server picks the HIT."""
    campaign = get_object_or_404(campaign_member_list_for(request.user), pk=pk)
    try:
        assignment = assignment_request(campaign=campaign, worker=request.user)
    except NoWork as reason:
        return render(request, "ranking/work_done.html", {"campaign": campaign, "reason": str(reason)})
    return redirect("assignment", pk=assignment.pk)


@annotator_required
def assignment_view(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = assignment_for_worker(request.user, pk)
    if assignment is None:
        raise Http404("no such assignment of yours")
    campaign = assignment.hit.campaign
    error = None
    if request.method == "POST":
        error, saved = screen_form_submit(request, assignment=assignment, worker=request.user)
        if saved:
            return redirect("assignment", pk=assignment.pk)
        assignment.refresh_from_db()
    if assignment.status != AssignmentStatus.ACTIVE:
        # The worker is told what the workers' API tells them (``worker_status``): a held HIT reads as
        # submitted, and no page says which rule closed a HIT, so a bot cannot tune itself by the page.
        shown = worker_status(assignment.status)
        context = {"campaign": campaign, "assignment": assignment, "shown_status": shown, "error": error}
        return render(request, "ranking/assignment_done.html", context, status=400 if error else 200)
    screen, done, total = assignment_screen_and_progress(assignment)
    if screen is None:
        return redirect("campaign-work", pk=campaign.pk)
    context = screen_context(campaign, screen, assignment) | {
        "assignment": assignment,
        "done": done,
        "total": total,
        "error": error,
    }
    context |= heartbeat_context(reverse("assignment-heartbeat", args=[assignment.pk]))
    return render(request, work_template(campaign), context, status=400 if error else 200)


def heartbeat_context(url: str) -> dict:
    """What a work page needs to renew its HIT's lease while it is open (static/js/heartbeat.js)."""
    return {"heartbeat_url": url, "heartbeat_seconds": settings.ASSIGNMENT_HEARTBEAT_SECONDS}


def heartbeat_response(assignment: Assignment | None) -> JsonResponse:
    """200 with the new deadline, or 409 when the HIT is no longer open (submitted, expired, returned)."""
    expires = None if assignment is None else assignment_heartbeat(assignment=assignment)
    if expires is None:
        return JsonResponse({"open": False}, status=409)
    return JsonResponse({"open": True, "expires": expires.isoformat()})


@annotator_required
@require_POST
def assignment_heartbeat_view(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = assignment_for_worker(request.user, pk)
    if assignment is None:
        raise Http404("no such assignment of yours")
    return heartbeat_response(assignment)


@annotator_required
@require_POST
def assignment_give_back(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = assignment_for_worker(request.user, pk)
    if assignment is None:
        raise Http404("no such assignment of yours")
    assignment_return(assignment=assignment, worker=request.user)
    messages.info(request, "You gave the HIT back. Thank you for your time.")
    return redirect("home")
