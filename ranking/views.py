"""HTML views for judgment campaigns: thin over services and selectors."""

from __future__ import annotations

import csv

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotate.decorators import annotator_required, researcher_required
from annotate.http import csv_cell
from annotate.paging import paginate
from annotate.privacy import worker_forget
from annotate.projects.selectors import in_current_project
from annotate.roles import is_researcher
from annotate.selectors import corpus_list_for, project_list_for, sentence_context
from geceval.errors import GecInputError
from geceval.human.worker_checks import MANN_WHITNEY_MIN_RANKED_TRAPS, MANN_WHITNEY_MIN_TRAPS
from ranking.forms import ExclusionRulesForm
from ranking.models import Assignment, AssignmentStatus, Campaign, Screen
from ranking.protocols import protocol_get
from ranking.quality.rules import RULE_FIELDS, exclusion_rules
from ranking.selectors import (
    assignment_for_worker,
    campaign_held_assignments,
    campaign_list_for,
    campaign_member_list_for,
    campaign_pilot_held_count,
    campaign_progress,
    campaign_results,
    campaign_work_progress_for,
    campaign_worker_list,
    campaign_worker_rows,
    screen_candidates,
    screen_candidates_for_submit,
)
from ranking.services import (
    CandidateScore,
    NoWork,
    answers_from_form,
    assignment_request,
    assignment_return,
    campaign_exclusion_rules_set,
    screen_submit,
    worker_override_set,
)
from ranking.services.campaign_checks import campaign_sample
from ranking.services.campaigns import screen_draw_active
from ranking.services.gold import (
    gold_assignment,
    gold_assignment_start,
    qualification_hit,
    qualification_hit_create,
)
from ranking.services.holds import assignment_hold_drop, assignment_hold_release
from ranking.services.life_cycle import STATUS_EXPLAINED, transitions_for
from ranking.statuses import worker_status
from ranking.study.bundles import study_bundle, wants_study
from ranking.study.documents import study_dump, study_export
from ranking.work.assignments import assignment_screen_and_progress
from ranking.work.leases import assignment_heartbeat
from ranking.work.screen_handles import screen_handle, screen_id_from_handle
from ranking.work.screen_time import screen_seconds, screen_stamp


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Everyone's start page: open work; for researchers also their corpora and campaigns."""
    context = {"work": campaign_work_progress_for(request.user)}
    if is_researcher(request.user):
        context["corpora"] = paginate(
            request,
            in_current_project(request, corpus_list_for(request.user)),
            search=("name",),
            label="Search the corpora",
            prefix="corpora-",
        )
        context["campaigns"] = paginate(
            request,
            in_current_project(request, campaign_list_for(request.user)),
            search=("name",),
            label="Search the campaigns",
            prefix="campaigns-",
        )
        context["ownerless"] = list(project_list_for(request.user).filter(owner__isnull=True))
    return render(request, "home.html", context)


@researcher_required
def campaign_detail(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    context = {
        "campaign": campaign,
        "transitions": transitions_for(campaign),
        "status_explained": STATUS_EXPLAINED[campaign.status],
        "progress": campaign_progress(campaign),
        "held": list(campaign_held_assignments(campaign)[:200]),
        "pilot_held": campaign_pilot_held_count(campaign),
        "sample": campaign_sample(campaign).describe(),
        "results": campaign_results(campaign),
        "workers": paginate(
            request,
            campaign_worker_list(campaign),
            search=("username",),
            label="Search the workers by name",
            rows=lambda workers: campaign_worker_rows(campaign, workers),
        ),
        "is_ranking": protocol_get(campaign.protocol).shows_ranking,
        "gold_test": qualification_hit(campaign),
        "gold_recorded": gold_assignment(campaign) is not None,
        "rules_form": ExclusionRulesForm(
            initial={name: getattr(campaign, name) for name in RULE_FIELDS.values()} | {"rules": "chosen"}
        ),
        "mann_whitney_min_traps": MANN_WHITNEY_MIN_TRAPS,
        "mann_whitney_min_ranked_traps": MANN_WHITNEY_MIN_RANKED_TRAPS,
    }
    return render(request, "ranking/campaign_detail.html", context)


@researcher_required
@require_POST
def campaign_exclusion_rules(request: HttpRequest, pk: int) -> HttpResponse:
    """The researcher chooses which evidence excludes workers; every worker's record follows at once."""
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    form = ExclusionRulesForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose the rules with the form on this page.")
    else:
        excluded = campaign_exclusion_rules_set(campaign=campaign, **exclusion_rules(form.cleaned_data))
        messages.success(request, f"Exclusion rules saved; {excluded} workers are now excluded.")
    return redirect("campaign-detail", pk=campaign.pk)


@researcher_required
@require_POST
def campaign_hold(request: HttpRequest, pk: int, assignment_id: int) -> HttpResponse:
    """The researcher releases a held HIT (it counts) or drops it (it never does; its slot is freed)."""
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    held = get_object_or_404(Assignment, pk=assignment_id, hit__campaign=campaign)
    action = request.POST.get("action", "")
    if held.status != AssignmentStatus.HELD:
        messages.error(request, "That HIT is not held (released or dropped already).")
    elif action == "release":
        assignment_hold_release(assignment=held, by_researcher=True)
        messages.success(request, f"Released: the HIT of {held.worker} counts.")
    elif action == "drop":
        assignment_hold_drop(assignment=held)
        messages.success(request, f"Dropped: the HIT of {held.worker} never counts; its slot is free.")
    else:
        messages.error(request, "Release or drop, with the buttons on this page.")
    return redirect("campaign-detail", pk=campaign.pk)


@researcher_required
@require_POST
def campaign_worker_override(request: HttpRequest, pk: int, worker_id: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    worker = get_object_or_404(get_user_model(), pk=worker_id, screen_judgments__screen__campaign=campaign)
    try:
        record = worker_override_set(
            campaign=campaign, worker=worker, override=request.POST.get("override", "")
        )
    except GecInputError as exc:
        messages.error(request, str(exc))
    else:
        state = "excluded" if record.excluded else "included"
        messages.success(request, f"{worker.get_username()} is {state}.")
    return redirect("campaign-detail", pk=campaign.pk)


@researcher_required
@require_POST
def campaign_worker_forget(request: HttpRequest, pk: int, worker_id: int) -> HttpResponse:
    """Delete a worker's personal data; their judgments stay, anonymous (annotate.privacy)."""
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    worker = get_object_or_404(
        get_user_model().objects.filter(screen_judgments__screen__campaign=campaign).distinct(), pk=worker_id
    )
    if is_researcher(worker) or worker.is_staff:
        messages.error(request, "Only workers' data can be deleted here.")
    else:
        messages.success(request, f"Personal data deleted; the worker is now {worker_forget(worker=worker)}.")
    return redirect("campaign-detail", pk=campaign.pk)


@researcher_required
@require_GET
def campaign_study(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's study file (issue 39), made in the browser or not: ``study apply`` takes it back."""
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    response = HttpResponse(
        study_dump(study_export(campaign)), content_type="application/yaml; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}-study.yaml"'
    return response


@researcher_required
@require_GET
def campaign_results_csv(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    if wants_study(request):
        return study_bundle(
            filename=f"campaign-{campaign.pk}-scores.csv",
            chunks=[_results_csv(campaign).content],
            study=study_export(campaign),
        )
    return _results_csv(campaign)


def _results_csv(campaign: Campaign) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}-scores.csv"'
    writer = csv.writer(response)
    writer.writerow(
        [
            "rank",
            "system",
            "kind",
            "score",
            "rank_lo",
            "rank_hi",
            "cluster",
            "items",
            "ratings",
            "meaning_changed",
        ]
    )
    for rank, row in enumerate(campaign_results(campaign), start=1):
        writer.writerow(
            [
                rank,
                csv_cell(row.system.name),
                row.system.kind,
                f"{row.mean_score:.6f}",
                row.rank_lo if row.rank_lo is not None else "",
                row.rank_hi if row.rank_hi is not None else "",
                row.cluster if row.cluster is not None else "",
                row.items,
                row.ratings,
                row.meaning_changed,
            ]
        )
    return response


def _read_answers(request: HttpRequest, campaign: Campaign, screen: Screen) -> dict[int, CandidateScore]:
    return answers_from_form(campaign.protocol, screen_candidates(screen), request.POST)


def _posted_screen(request: HttpRequest, assignment: Assignment, *related: str) -> Screen | None:
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
    screen = _posted_screen(request, assignment, "sentence", "campaign")
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


@researcher_required
@require_POST
def campaign_gold_test(request: HttpRequest, pk: int) -> HttpResponse:
    """Create the campaign's own qualification test from a few of its screens."""
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    try:
        threshold = float(request.POST.get("threshold", campaign.gold_threshold))
        screens = int(request.POST.get("screens", "5"))
        if not 0 < threshold <= 1:
            raise ValueError
    except ValueError:
        messages.error(request, "Give a number of screens and a pass mark between 0 and 1.")
        return redirect("campaign-detail", pk=campaign.pk)
    try:
        qualification_hit_create(campaign=campaign, screens=screens)
    except GecInputError as exc:
        messages.error(request, str(exc))
    else:
        campaign.gold_threshold = threshold
        campaign.save(update_fields=["gold_threshold"])
        messages.success(request, "Qualification test created: now record the gold answers.")
    return redirect("campaign-detail", pk=campaign.pk)


@researcher_required
def campaign_gold_record(request: HttpRequest, pk: int) -> HttpResponse:
    """The researcher (or an expert) answers the test's screens; those answers are the gold."""
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    try:
        assignment = gold_assignment_start(campaign=campaign, expert=request.user)
    except GecInputError as exc:
        messages.error(request, str(exc))
        return redirect("campaign-detail", pk=campaign.pk)
    error = None
    if request.method == "POST":
        screen = _posted_screen(request, assignment, "sentence", "campaign", "hit")
        try:
            if screen is None:
                raise GecInputError("This screen is not part of the test.")
            screen_submit(
                assignment=assignment,
                screen=screen,
                worker=request.user,
                answers=_read_answers(request, campaign, screen),
            )
        except GecInputError as exc:
            error = str(exc)
        else:
            return redirect("campaign-gold-record", pk=campaign.pk)
    assignment.refresh_from_db()
    screen, done, total = assignment_screen_and_progress(assignment)
    if screen is None:
        messages.success(request, "Gold answers recorded: workers now take the test before their first HIT.")
        return redirect("campaign-detail", pk=campaign.pk)
    context = screen_context(campaign, screen, assignment) | {
        "done": done,
        "total": total,
        "error": error,
        "gold": True,
    }
    return render(request, work_template(campaign), context, status=400 if error else 200)


@researcher_required
def campaign_pilot(request: HttpRequest, pk: int) -> HttpResponse:
    """The researcher works through the screens as a worker would; nothing is saved or counted."""
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    screens = (
        Screen.objects.filter(campaign=campaign)
        .select_related("sentence")
        .order_by("hit__index", "hit_position")
    )
    total = screens.count()
    try:
        index = max(0, int(request.GET.get("i", "0")))
    except ValueError:
        index = 0
    if index >= total:
        messages.info(request, "End of the pilot: every screen shown, nothing counted.")
        return redirect("campaign-detail", pk=campaign.pk)
    screen = screens[index]
    if campaign.active_selection and not screen.candidates.exists():
        screen = screen_draw_active(screen=screen)
    error = None
    if request.method == "POST":
        try:
            _read_answers(request, campaign, screen)
        except GecInputError as exc:
            error = str(exc)
        else:
            return redirect(f"{request.path}?i={index + 1}")
    context = screen_context(campaign, screen) | {
        "pilot": True,
        "done": index,
        "total": total,
        "error": error,
    }
    return render(request, work_template(campaign), context, status=400 if error else 200)
