from __future__ import annotations

import csv
import time

from django.contrib import messages
from django.core.signing import BadSignature, Signer
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET

from annotate.decorators import annotator_required, researcher_required
from annotate.selectors import corpus_list_for, project_list_for, sentence_context
from geceval.errors import GecInputError
from ranking.forms import CampaignForm
from ranking.models import Screen
from ranking.selectors import (
    campaign_list_for,
    campaign_progress,
    campaign_results,
    campaign_work_list_for,
    screen_candidates,
    system_list_for,
)
from ranking.services import CandidateScore, campaign_create, judgment_submit, screen_next_for_judge


@researcher_required
def campaign_new(request: HttpRequest) -> HttpResponse:
    corpora = corpus_list_for(request.user)
    form = CampaignForm(request.POST or None, corpora=corpora, systems=system_list_for(request.user))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        corpus = data["corpus"]
        try:
            campaign = campaign_create(
                project=get_object_or_404(project_list_for(request.user), pk=corpus.project_id),
                corpus=corpus,
                name=data["name"],
                systems=data["systems"],
                created_by=request.user,
                judgments_per_item=data["judgments_per_item"],
                instructions=data["instructions"],
            )
        except GecInputError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request, f"Campaign {campaign.name} created with {campaign.screens.count()} screens."
            )
            return redirect("campaign-detail", pk=campaign.pk)
    return render(request, "ranking/campaign_new.html", {"form": form}, status=400 if form.errors else 200)


@researcher_required
def campaign_detail(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    context = {
        "campaign": campaign,
        "progress": campaign_progress(campaign),
        "results": campaign_results(campaign),
    }
    return render(request, "ranking/campaign_detail.html", context)


@researcher_required
@require_GET
def campaign_results_csv(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}-scores.csv"'
    writer = csv.writer(response)
    writer.writerow(["rank", "system", "kind", "mean_score", "items", "ratings", "meaning_changed"])
    for rank, row in enumerate(campaign_results(campaign), start=1):
        writer.writerow(
            [
                rank,
                _csv_safe(row.system.name),
                row.system.kind,
                f"{row.mean_score:.6f}",
                row.items,
                row.ratings,
                row.meaning_changed,
            ]
        )
    return response


def _csv_safe(value: str) -> str:
    """Names come from uploads: keep spreadsheets from reading them as formulas."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


_signer = Signer(salt="ranking.work.started")


@annotator_required
def work(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_work_list_for(request.user), pk=pk)
    error = None
    if request.method == "POST":
        screen = get_object_or_404(Screen, pk=request.POST.get("screen"), campaign=campaign)
        try:
            scores = _read_scores(request, screen)
            judgment_submit(screen=screen, judge=request.user, scores=scores, seconds=_elapsed(request))
        except GecInputError as exc:
            error = str(exc)
        else:
            return redirect("campaign-work", pk=campaign.pk)
    else:
        screen = screen_next_for_judge(campaign=campaign, judge=request.user)
    if screen is None:
        return render(request, "ranking/work_done.html", {"campaign": campaign})
    before, after = sentence_context(screen.sentence)
    context = {
        "campaign": campaign,
        "screen": screen,
        "candidates": screen_candidates(screen),
        "before": before,
        "after": after,
        "started": _signer.sign(f"{screen.pk}:{time.time():.3f}"),
        "error": error,
    }
    return render(request, "ranking/work.html", context, status=400 if error else 200)


def _read_scores(request: HttpRequest, screen: Screen) -> dict[int, CandidateScore]:
    scores: dict[int, CandidateScore] = {}
    for candidate in screen_candidates(screen):
        raw = request.POST.get(f"score-{candidate.pk}", "").strip()
        if raw == "":
            raise GecInputError("move every slider before submitting")
        try:
            value = int(raw)
        except ValueError:
            raise GecInputError("scores are whole numbers from 0 to 100") from None
        changed = request.POST.get(f"changed-{candidate.pk}") == "on"
        scores[candidate.pk] = CandidateScore(score=value, meaning_changed=changed)
    return scores


def _elapsed(request: HttpRequest) -> float | None:
    try:
        screen_id, started = _signer.unsign(request.POST.get("started", "")).split(":")
    except (BadSignature, ValueError):
        return None
    if screen_id != request.POST.get("screen"):
        return None
    return max(0.0, time.time() - float(started))
