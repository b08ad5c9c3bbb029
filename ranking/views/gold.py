"""The campaign's Gold screens page (issue 41): the researcher answers screens as gold, imports a gold
file, or sets how many gold copies each HIT gets. Thin over ``ranking.quality.gold``."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import F
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotate.decorators import researcher_required
from annotate.paging import paginate
from geceval.errors import GecInputError
from ranking.models import (
    CampaignStatus,
    Candidate,
    GoldScreen,
    Screen,
)
from ranking.protocols import protocol_get
from ranking.quality.gold import (
    gold_assignment_start,
    gold_rate_set,
    gold_screen_mark,
    gold_screen_unmark,
    gold_screens_import,
    qualification_hit_create,
)
from ranking.selectors import (
    campaign_list_for,
)
from ranking.services import (
    screen_submit,
)
from ranking.views.work import posted_screen, read_answers, screen_context, work_template
from ranking.work.assignments import assignment_screen_and_progress


def _screens(campaign):
    """The campaign's judged screens (no control copies, no qualification test), gold ones first."""
    return (
        Screen.objects.filter(campaign=campaign, control__isnull=True, hit__qualification=False)
        .select_related("sentence", "gold")
        .order_by(F("gold").desc(nulls_last=True), "sentence__position", "index")
    )


def _rows(screens: list[Screen]) -> list[dict]:
    golds = {g.screen_id: g.expected for g in GoldScreen.objects.filter(screen__in=screens)}
    by_screen: dict[int, list] = {s.pk: [] for s in screens}
    for candidate in (
        Candidate.objects.filter(screen__in=screens)
        .prefetch_related("outputs__system")
        .order_by("screen_id", "position")
    ):
        by_screen[candidate.screen_id].append(candidate)
    rows = []
    for s in screens:
        expected = golds.get(s.pk, {})
        rows.append(
            {
                "screen": s,
                "gold": s.pk in golds,
                "candidates": [
                    (
                        c,
                        expected.get(str(c.pk), ""),
                        ", ".join(sorted({o.system.name for o in c.outputs.all()})),
                    )
                    for c in by_screen[s.pk]
                ],
            }
        )
    return rows


def _int(raw: str) -> int:
    try:
        return int(raw.strip())
    except ValueError:
        raise GecInputError("answers are whole numbers") from None


@researcher_required
def campaign_gold_screens(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    protocol = protocol_get(campaign.protocol)
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "rate":
                placed = gold_rate_set(campaign=campaign, rate=float(request.POST.get("rate", "x")))
                messages.success(request, f"Gold copies placed: {placed}.")
            elif action == "import":
                upload = request.FILES.get("file")
                if upload is None:
                    raise GecInputError("choose a gold file (CSV or JSON)")
                n = gold_screens_import(
                    campaign=campaign, data=upload.read(), filename=upload.name, by=request.user
                )
                messages.success(request, f"{n} gold screen{'s' if n != 1 else ''} imported.")
            elif action in ("mark", "unmark"):
                screen = get_object_or_404(Screen, pk=_int(request.POST.get("screen", "")), campaign=campaign)
                if action == "unmark":
                    gold_screen_unmark(campaign=campaign, screen=screen)
                    messages.success(request, "No longer gold.")
                else:
                    expected = {
                        c.pk: _int(request.POST.get(f"expected-{c.position}", ""))
                        for c in screen.candidates.all()
                    }
                    gold_screen_mark(campaign=campaign, screen=screen, expected=expected, by=request.user)
                    messages.success(request, "Marked gold; copies placed.")
            else:
                raise GecInputError("unknown action")
        except (GecInputError, ValueError) as exc:
            messages.error(request, str(exc) if isinstance(exc, GecInputError) else "Give a number.")
        return redirect("campaign-gold-screens", pk=campaign.pk)
    listing = paginate(
        request,
        _screens(campaign),
        search=("sentence__text",),
        label="Search the sentences",
        rows=_rows,
        per_page=20,
    )
    return render(
        request,
        "ranking/gold_screens.html",
        {
            "campaign": campaign,
            "screens": listing,
            "answer": protocol.answer_field,
            "is_draft": campaign.status == CampaignStatus.DRAFT,
            "marked": GoldScreen.objects.filter(screen__campaign=campaign, marked__isnull=True).count(),
            "copies": GoldScreen.objects.filter(screen__campaign=campaign, marked__isnull=False).count(),
        },
    )


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
        screen = posted_screen(request, assignment, "sentence", "campaign", "hit")
        try:
            if screen is None:
                raise GecInputError("This screen is not part of the test.")
            screen_submit(
                assignment=assignment,
                screen=screen,
                worker=request.user,
                answers=read_answers(request, campaign, screen),
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
