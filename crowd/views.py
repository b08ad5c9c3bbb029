"""Researchers' crowd pages: publishing links, consent and codes, payments, importing past results."""

from __future__ import annotations

import csv
import json
import uuid

from django.conf import settings
from django.contrib import messages
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotate.decorators import researcher_required, upload_bound
from annotate.http import csv_cell
from annotate.jobs.services import import_job_create, runs_in_background
from annotate.jobs.views import job_redirect
from annotate.projects.selectors import current_first, current_project_id
from annotate.selectors import corpus_list_for, project_list_for
from annotate.services import open_upload
from crowd.forms import ConfirmImportForm, CrowdSettingsForm, ImportForm, InviteForm
from crowd.importing import judgments_import, judgments_parse
from crowd.importing.background import JUDGMENTS
from crowd.selectors import campaign_costs, invite_links, mturk_hits, platform_calls
from crowd.services.mturk import sandbox_default
from crowd.services.sessions import address_limits, campaign_key, crowd_settings_for, invite_links_create
from crowd.views_requester import BonusForm, MturkPublishForm, MturkReviewForm, ProlificReviewForm
from geceval.errors import GecInputError
from geceval.formats.inputs import content_size
from ranking.selectors import campaign_list_for

PROLIFIC_PARAMS = "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
IMPORT_SESSION_KEY = "crowd_import"


@researcher_required
def campaign_crowd(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    key = campaign_key(campaign)
    crowd = crowd_settings_for(campaign)
    live, per_day = address_limits(crowd)
    context = {
        "campaign": campaign,
        "settings_form": CrowdSettingsForm(instance=crowd),
        "crowd": crowd,
        "live_per_address": live,
        "identities_per_address_day": per_day,
        "invite_form": InviteForm(),
        "invites": [
            (link, request.build_absolute_uri(reverse("crowd-invite", args=[link.code])))
            for link in invite_links(campaign)[:200]
        ],
        "prolific_url": request.build_absolute_uri(reverse("crowd-prolific", args=[key]))
        + "?"
        + PROLIFIC_PARAMS,
        "mturk_url": request.build_absolute_uri(reverse("crowd-mturk", args=[key])),
        "costs": campaign_costs(campaign),
        "mturk_hits": mturk_hits(campaign),
        "calls": platform_calls(campaign),
        "publish_form": MturkPublishForm(
            initial={
                "title": f"Judge corrections of English sentences ({campaign.name})"[:128],
                "description": "Rank (or rate) corrections of English sentences made by computer systems.",
                "keywords": "grammar, English, correction, ranking",
                "hits": campaign.hits.count(),
                "max_assignments": campaign.judgments_per_item,
                "min_approval_percent": 98,
                "locales": "US",
                "min_hits_approved": 500,
                "require_screening": bool(campaign.qualification_id),
                "sandbox": sandbox_default(),
            },
            auto_id="id_pub_%s",
        ),
        "mturk_actions": [
            ("sync", "Sync assignments"),
            ("block", "Block excluded workers"),
            ("expire", "Expire all HITs"),
        ],
        "mturk_review_form": MturkReviewForm(auto_id="id_mrev_%s"),
        "mturk_bonus_form": BonusForm(auto_id="id_mbon_%s"),
        "prolific_review_form": ProlificReviewForm(auto_id="id_prev_%s"),
        "prolific_bonus_form": BonusForm(auto_id="id_pbon_%s"),
    }
    return render(request, "crowd/campaign.html", context)


@researcher_required
@require_POST
def campaign_crowd_settings(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    form = CrowdSettingsForm(request.POST, instance=crowd_settings_for(campaign))
    if form.is_valid():
        with transaction.atomic():
            form.instance.campaign = campaign
            form.save()
        messages.success(request, "Crowd settings saved.")
    else:
        messages.error(
            request, "Settings not saved: " + "; ".join(e for errs in form.errors.values() for e in errs)
        )
    return redirect("crowd-campaign", pk=campaign.pk)


@researcher_required
@require_POST
def invites_create(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    form = InviteForm(request.POST)
    if form.is_valid():
        links = invite_links_create(
            campaign=campaign,
            count=form.cleaned_data["count"],
            reusable=form.cleaned_data["reusable"],
            label=form.cleaned_data["label"],
        )
        messages.success(request, f"{len(links)} invite link{'s' if len(links) != 1 else ''} created.")
    else:
        messages.error(request, "No links created: give a number from 1 to 1000.")
    return redirect("crowd-campaign", pk=campaign.pk)


@researcher_required
@require_GET
def invites_csv(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}-invites.csv"'
    writer = csv.writer(response)
    writer.writerow(["url", "reusable", "label", "uses"])
    for link in invite_links(campaign):
        url = request.build_absolute_uri(reverse("crowd-invite", args=[link.code]))
        writer.writerow([url, link.reusable, csv_cell(link.label), link.uses])
    return response


@researcher_required
@require_GET
def payments_csv(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    costs = campaign_costs(campaign)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}-payments.csv"'
    writer = csv.writer(response)
    writer.writerow(["platform", "worker", "hits", "rejected", "work_seconds", "bonuses", "earnings"])
    for w in costs.workers:
        writer.writerow(
            [w.platform, csv_cell(w.identity), w.hits, w.rejected, f"{w.seconds:.1f}", w.bonuses, w.earnings]
        )
    writer.writerow([])
    for label, value in [
        ("reward_per_hit", costs.reward_per_hit),
        ("hits_paid", costs.hits_submitted - costs.hits_rejected),
        ("hits_rejected", costs.hits_rejected),
        ("rewards", costs.rewards),
        ("bonuses", costs.bonuses),
        ("fees", costs.fees),
        ("spent", costs.spent),
        ("projected", costs.projected),
        ("median_seconds_per_hit", "" if costs.median_seconds is None else f"{costs.median_seconds:.1f}"),
        ("hourly_pay", "" if costs.hourly is None else costs.hourly),
        ("min_hourly_wage", costs.min_wage),
    ]:
        writer.writerow(["total", label, value])
    return response


def _keep_upload(data: bytes, previous: dict | None) -> str:
    """The previewed file goes to file storage (MEDIA_ROOT/imports/), never the session: a session
    holding the file base64-encoded slowed every page of its researcher until the import."""
    if previous and previous.get("file"):
        default_storage.delete(previous["file"])  # one preview at a time per researcher
    return default_storage.save(f"imports/{uuid.uuid4().hex}.bin", ContentFile(data))


def _kept_upload(name: str) -> bytes:
    try:
        with default_storage.open(name, "rb") as kept:
            return kept.read()
    except OSError:
        raise GecInputError("the previewed file is gone; upload it again") from None


@upload_bound("JUDGMENT_UPLOAD_MAX_BYTES")  # large WMT/PRWS CSV files stream (crowd.importing.compact)
@researcher_required
def import_judgments_view(request: HttpRequest) -> HttpResponse:
    """Upload -> preview with the detected column mapping -> confirm (same service as the command)."""
    current = current_project_id(request)
    corpora = current_first(corpus_list_for(request.user), current, "project__name", "name")
    projects = project_list_for(request.user)
    stored = request.session.get(IMPORT_SESSION_KEY)
    if stored and not stored.get("file"):  # a preview of before issue 18 (the file in the session)
        stored = None
    if request.method == "POST" and request.POST.get("action") == "import" and stored:
        return _import_confirm(request, stored, corpora, projects)

    form = ImportForm(
        request.POST or None,
        request.FILES or None,
        corpora=corpora,
        projects=projects,
        initial={"project": current},
    )
    context: dict = {"form": form}
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            # a large file, or a small gzip file of a large one, skips the preview (which reads it whole)
            held = content_size(upload, upto=settings.IMPORT_INLINE_MAX_BYTES + 1)
            if runs_in_background(max(upload.size, held)):
                return job_redirect(request, _judgments_job(request, form.cleaned_data))
            opened = open_upload(upload, name=upload.name)
            context |= _preview(request, form.cleaned_data, opened)
        except GecInputError as exc:
            form.add_error(None, str(exc))
    return render(request, "crowd/import.html", context, status=400 if form.errors else 200)


def _preview(request: HttpRequest, data: dict, opened) -> dict:
    """Parse the upload, keep it in file storage for the confirm step, and say what it holds."""
    corpus = data["corpus"]
    parsed = judgments_parse(
        fmt=data["format"],
        path_or_bytes=opened,
        mapping=data["mapping"],
        include_rejected=data["include_rejected"],
        src_id_base=data["src_id_base"],
        corpus_lines=corpus.sentences.count()
        if corpus is not None and data["format"] == "appraise-xml"
        else None,
    )
    stored = {
        "name": data["name"],
        "format": data["format"],
        "corpus": corpus.pk if corpus else None,
        "project": data["project"].pk,
        "include_rejected": data["include_rejected"],
        "src_id_base": data["src_id_base"],
        "allow_missing": data["allow_missing"],
        "file": _keep_upload(opened.data, request.session.get(IMPORT_SESSION_KEY)),
        "filename": data["file"].name,
    }
    request.session[IMPORT_SESSION_KEY] = stored
    return {
        "parsed": parsed,
        "sample": parsed.judgments[:10],
        "skipped": sorted(parsed.skipped.items()),
        "workers": len({j.worker for j in parsed.judgments}),
        "items": len({j.item for j in parsed.judgments}),
        "item_key": parsed.item_key.describe() if parsed.item_key is not None else "",
        "stored": stored,
        "confirm": ConfirmImportForm(
            initial={"mapping": json.dumps(parsed.mapping, indent=2) if parsed.mapping else ""}
        ),
    }


def _judgments_job(request: HttpRequest, data: dict):
    """A large results file skips the preview: it is imported in the background with the upload
    form's choices (and mapping, for an MTurk layout the detector cannot read); the job's page shows
    the import's report, or why nothing was imported."""
    upload, corpus = data["file"], data["corpus"]
    return import_job_create(
        kind=JUDGMENTS,
        project=data["project"],
        user=request.user,
        label=f"judgments {data['name']} ({upload.name})",
        uploads=[upload],
        params={
            "name": data["name"],
            "format": data["format"],
            "filename": upload.name,
            "corpus": corpus.pk if corpus else None,
            "mapping": data["mapping"],
            "include_rejected": data["include_rejected"],
            "src_id_base": data["src_id_base"],
            "allow_missing": data["allow_missing"],
        },
    )


def _import_confirm(request: HttpRequest, stored: dict, corpora, projects) -> HttpResponse:
    """The preview's confirm button: import the kept upload with the (possibly edited) mapping."""
    confirm = ConfirmImportForm(request.POST)
    corpus = corpora.filter(pk=stored.get("corpus")).first() if stored.get("corpus") else None
    if confirm.is_valid():
        project = get_object_or_404(projects, pk=stored["project"])
        try:
            report = judgments_import(
                project=project,
                name=stored["name"],
                fmt=stored["format"],
                path_or_bytes=_kept_upload(stored["file"]),
                corpus=corpus,
                mapping=confirm.cleaned_data["mapping"],
                include_rejected=stored["include_rejected"],
                src_id_base=stored.get("src_id_base"),
                allow_missing=stored.get("allow_missing", False),
            )
        except GecInputError as exc:
            messages.error(request, str(exc))
        else:
            del request.session[IMPORT_SESSION_KEY]
            default_storage.delete(stored["file"])
            messages.success(request, "Imported: " + "; ".join(report.lines()))
            return redirect("campaign-detail", pk=report.campaign.pk)
    return render(
        request,
        "crowd/import.html",
        {"form": ImportForm(corpora=corpora, projects=projects), "confirm": confirm, "stored": stored},
        status=400,
    )
