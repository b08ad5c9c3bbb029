"""A researcher's pages of a judgment campaign: the start page, the campaign, its held work and
workers, exclusion rules, results, study file and pilot."""

from __future__ import annotations

import csv

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotate.decorators import researcher_required
from annotate.http import csv_cell
from annotate.paging import paginate
from annotate.privacy import worker_forget
from annotate.projects.selectors import in_current_project
from annotate.roles import is_researcher
from annotate.selectors import corpus_list_for, project_list_for
from geceval.errors import GecInputError
from geceval.human.worker_checks import MANN_WHITNEY_MIN_RANKED_TRAPS, MANN_WHITNEY_MIN_TRAPS, VOUCH_MARGIN
from ranking.forms import ExclusionRulesForm
from ranking.models import Assignment, AssignmentStatus, Campaign, Screen
from ranking.protocols import protocol_get
from ranking.quality.gold import (
    gold_assignment,
    qualification_hit,
)
from ranking.quality.holds import assignment_hold_drop, assignment_hold_release
from ranking.quality.rules import RULE_FIELDS, exclusion_rules
from ranking.selectors import (
    campaign_held_assignments,
    campaign_list_for,
    campaign_pilot_held_count,
    campaign_progress,
    campaign_results,
    campaign_work_progress_for,
    campaign_worker_list,
    campaign_worker_rows,
)
from ranking.services import (
    campaign_exclusion_rules_set,
    worker_override_set,
)
from ranking.services.campaign_checks import campaign_sample
from ranking.services.campaigns import screen_draw_active
from ranking.services.life_cycle import STATUS_EXPLAINED, transitions_for
from ranking.study.bundles import study_bundle, wants_study
from ranking.study.documents import study_dump, study_export
from ranking.views.work import read_answers, screen_context, work_template


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
        "vouch_margin": VOUCH_MARGIN,
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
            read_answers(request, campaign, screen)
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
