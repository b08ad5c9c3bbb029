"""The new-campaign form: its screen forecast, the traps it generates and their preview (issue 20)."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotate.decorators import researcher_required
from annotate.models import Qualification
from annotate.projects.selectors import current_first, current_project_id
from annotate.selectors import corpus_list_for, project_list_for, system_list_for
from geceval.errors import GecInputError
from geceval.traps.hidden import DEFAULT_MIN_DROP
from ranking.forms import CampaignForm, ForecastForm, TrapPreviewForm
from ranking.models import Campaign, CampaignStatus, TrapDesign
from ranking.protocols import DEFAULT_PROTOCOL, protocol_get
from ranking.quality.rules import exclusion_rules
from ranking.quality.trap_generation import PREVIEW_COUNT, trap_preview, trap_system_for_campaign
from ranking.services import campaign_create, campaign_exclusion_rules_set
from ranking.services.campaign_checks import Sample
from ranking.services.campaigns import campaign_options, fresh_seed
from ranking.services.screen_forecast import MIN_DISTINCT, Forecast, ranking_forecast, screen_coverage


@researcher_required
def campaign_new(request: HttpRequest) -> HttpResponse:
    # the current project's corpora first: what the researcher most likely judges
    corpora = current_first(
        corpus_list_for(request.user), current_project_id(request), "project__name", "name"
    )
    form = CampaignForm(
        request.POST or None,
        corpora=corpora,
        systems=system_list_for(request.user),
        qualifications=Qualification.objects.filter(project__in=project_list_for(request.user)),
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        forecast = _forecast(data)
        if forecast is not None and forecast.warn and not data.get("confirm_few_outputs"):
            context = {"form": form, "forecast": forecast, "min_distinct": MIN_DISTINCT}
            return render(request, "ranking/campaign_new.html", context)
        try:
            campaign = _create(request, data)
        except GecInputError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                f"Campaign {campaign.name} created with {campaign.screens.count()} screens "
                f"in {_count(campaign.hits.count(), 'HIT')}. It is a draft: launch or pilot it when you are ready.",
            )
            return redirect("campaign-detail", pk=campaign.pk)
    context = {"form": form, "forecast": None, "preview_count": PREVIEW_COUNT}
    return render(request, "ranking/campaign_new.html", context, status=400 if form.errors else 200)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@transaction.atomic
def _create(request: HttpRequest, data: dict) -> Campaign:
    """The campaign, with its Source+error system when the form asks for one: all or nothing."""
    corpus = data["corpus"]
    options = campaign_options(data)
    if data.get("generate_trap_system"):
        options["trap_system"] = trap_system_for_campaign(
            corpus=corpus,
            error_types=data.get("trap_error_types") or None,
            n_errors=data.get("trap_errors"),
            min_drop=options.get("trap_min_drop", DEFAULT_MIN_DROP),
        )
    campaign = campaign_create(
        project=get_object_or_404(project_list_for(request.user), pk=corpus.project_id),
        corpus=corpus,
        name=data["name"],
        systems=data["systems"],
        created_by=request.user,
        status=CampaignStatus.DRAFT,
        seed=fresh_seed(),
        **options,
    )
    campaign_exclusion_rules_set(campaign=campaign, **exclusion_rules(data))
    return campaign


def _sample(data: dict) -> Sample:
    return Sample(*(data.get(f"sample_{k}") for k in ("first_line", "last_line", "size", "seed")))


def _forecast(data: dict, sentences: list[int] | None = None) -> Forecast | None:
    """A ranking campaign's expected distinct outputs per screen (None for other protocols), over the
    sample's sentences."""
    if not protocol_get(data["protocol"]).draws_systems or data.get("active_selection"):
        return None
    if sentences is None:
        try:
            sentences = _coverage(data)[1]
        except GecInputError:  # campaign_create names what is wrong with the sample
            sentences = None
    return ranking_forecast(
        corpus=data["corpus"],
        systems=data["systems"],
        max_candidates=data["max_candidates"],
        domain=data.get("domain") or "",
        sentences=sentences,
    )


def _coverage(data: dict):
    sample = _sample(data)
    sample.check()
    return screen_coverage(
        corpus=data["corpus"], systems=data["systems"], domain=data.get("domain") or "", sample=sample
    )


@researcher_required
@require_POST
def campaign_forecast(request: HttpRequest) -> HttpResponse:
    """What the campaign form's choices would cover (issue 40): sentences of the corpus the sample takes,
    those with an output to judge, and for ranking the distinct outputs per screen with its warning and
    "Create it anyway" box, so the warning comes before the first submit. The form's script posts the
    whole form here as it changes and shows the fragment above the submit button."""
    form = ForecastForm(
        request.POST, corpora=corpus_list_for(request.user), systems=system_list_for(request.user)
    )
    confirm = CampaignForm({"confirm_few_outputs": request.POST.get("confirm_few_outputs", "")})
    context: dict = {
        "coverage": None,
        "forecast": None,
        "problem": "",
        "min_distinct": MIN_DISTINCT,
        "confirm": confirm["confirm_few_outputs"],  # ticked stays ticked as the fragment is redrawn
    }
    if form.is_valid() and form.cleaned_data.get("systems"):
        data = form.cleaned_data
        try:
            coverage, sentences = _coverage(data)
        except GecInputError as exc:
            context["problem"] = f"{exc.problem[:1].upper()}{exc.problem[1:]}."
        else:
            forecast = _forecast(data, sentences)
            context.update(coverage=coverage, forecast=forecast if forecast and forecast.warn else None)
    elif form.errors and request.POST.getlist("systems"):  # nothing chosen yet: nothing to complain of
        context["problem"] = form.problem()
    return render(request, "ranking/_screen_forecast.html", context)


@researcher_required
@require_POST
def campaign_trap_preview(request: HttpRequest) -> HttpResponse:
    """Ten traps as the form's choices would make them (the protocol's kinds of trap among them),
    beside their bases. The campaign form's "Preview traps" button posts the whole form here; its
    script asks for the fragment only (``?fragment=1``) and shows it under the button, without it the
    page comes whole."""
    form = TrapPreviewForm(
        request.POST, corpora=corpus_list_for(request.user), systems=system_list_for(request.user)
    )
    examples, problem, judges_edits = [], "", False
    if form.is_valid():
        data = form.cleaned_data
        try:
            examples = trap_preview(
                corpus=data["corpus"],
                design=data.get("trap_design") or TrapDesign.HIDDEN,
                protocol=data.get("protocol") or DEFAULT_PROTOCOL,
                systems=data.get("systems") or (),
                domain=data.get("domain") or "",
                error_types=data.get("trap_error_types") or None,
                n_errors=data.get("trap_errors"),
                min_drop=data.get("trap_min_drop") or DEFAULT_MIN_DROP,
            )
            judges_edits = protocol_get(data.get("protocol") or DEFAULT_PROTOCOL).judges_edits
        except GecInputError as exc:
            problem = f"{exc.problem[:1].upper()}{exc.problem[1:]}."
    else:
        problem = form.problem()
    fragment = request.GET.get("fragment") == "1"
    template = "ranking/_trap_preview.html" if fragment else "ranking/trap_preview.html"
    context = {
        "examples": examples,
        "positive_controls": any(e.judged == "better" for e in examples),
        "judges_edits": judges_edits,
        "problem": problem,
        "wanted": PREVIEW_COUNT,
        "design": form.data.get("trap_design"),
    }
    return render(request, template, context, status=200 if not problem else 400)
