"""Researcher pages: export a corpus or a rewrite campaign, and their statistics. Thin over services.

URLs (added to annotate/urls.py by its owner)::

    path("corpora/<int:pk>/export/", io_views.corpus_export, name="corpus-export"),
    path("corpora/<int:pk>/stats/", io_views.corpus_stats, name="corpus-stats"),
    path("rewrites/<int:pk>/export/", io_views.campaign_export, name="rewrite-campaign-export"),
    path("rewrites/<int:pk>/stats/", io_views.campaign_stats, name="rewrite-campaign-stats"),
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from annotate.decorators import researcher_required
from annotate.formats.services import campaign_export as campaign_files
from annotate.formats.services import campaign_export_problems, corpus_export_problems
from annotate.formats.services import corpus_export as corpus_files
from annotate.formats.writers import safe_name, zip_files
from annotate.jobs.runners import EXPORT
from annotate.jobs.services import import_job_create
from annotate.rewrites.selectors import rewrite_campaign_list_for
from annotate.selectors import corpus_list_for
from annotate.stats import bar_chart_svg, campaign_statistics, corpus_statistics, format_pm
from geceval.errors import GecInputError

FORMAT_CHOICES = [
    ("jfleg", "JFLEG: NAME.src + NAME.ref0..N"),
    ("gmeg", "GMEG: one folder per domain (source, ref0..N, systems)"),
    ("m2", "M2 (edits of each reference)"),
    ("jsonl", "JSONL: every field, one sentence a line"),
]


class ExportForm(forms.Form):
    format = forms.ChoiceField(choices=FORMAT_CHOICES, initial="jfleg")
    untyped = forms.BooleanField(
        required=False, label="M2 untyped (Levenshtein edits of type X instead of ERRANT types)"
    )
    as_zip = forms.BooleanField(required=False, label="Always download a zip (even for one file)")

    def __init__(self, *args, problems: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        problems = problems or {}
        self.fields["format"].choices = [
            (value, f"{label} (cannot be written: {problems[value]})" if value in problems else label)
            for value, label in FORMAT_CHOICES
        ]


class CampaignExportForm(ExportForm):
    rewrites = forms.IntegerField(
        min_value=1,
        max_value=50,
        required=False,
        label="Rewrites per sentence (only sentences with this many accepted rewrites; blank: the campaign's)",
    )
    corpus_systems = forms.BooleanField(
        required=False, initial=True, label="Include the corpus's own references and systems first"
    )


def _problem_rows(problems: dict[str, str]) -> list[tuple[str, str]]:
    labels = dict(FORMAT_CHOICES)
    return [(labels[f].split(":")[0].split(" (")[0], problems[f]) for f, _ in FORMAT_CHOICES if f in problems]


def _download(files: dict[str, bytes], name: str, as_zip: bool) -> HttpResponse:
    if len(files) == 1 and not as_zip:
        ((filename, content),) = files.items()
        response = HttpResponse(content, content_type="text/plain; charset=utf-8")
    else:
        filename = f"{safe_name(name)}.zip"
        response = HttpResponse(zip_files(files, name), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _in_background(corpus, data: dict) -> bool:
    """A typed M2 export of a large corpus (``EXPORT_INLINE_MAX_SENTENCES``): the slow one (issue 40)."""
    if data["format"] != "m2" or data["untyped"]:
        return False
    return corpus.sentences.count() > settings.EXPORT_INLINE_MAX_SENTENCES


@researcher_required
@require_GET
def corpus_export(request: HttpRequest, pk: int) -> HttpResponse:
    corpus = get_object_or_404(corpus_list_for(request.user), pk=pk)
    problems = corpus_export_problems(corpus)
    form = ExportForm(request.GET if "format" in request.GET else None, problems=problems)
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        if _in_background(corpus, data):
            job = import_job_create(
                kind=EXPORT,
                project=corpus.project,
                user=request.user,
                label=f"{corpus.name} as M2 (export)",
                uploads=[],
                params={"corpus": corpus.pk, "format": "m2", "untyped": False, "as_zip": data["as_zip"]},
            )
            messages.info(
                request, "ERRANT annotates every reference: the export is written in the background."
            )
            return redirect("import-job", pk=job.pk)
        try:
            files = corpus_files(corpus, fmt=data["format"], untyped=data["untyped"])
        except GecInputError as exc:
            form.add_error(None, str(exc))
        else:
            return _download(files, corpus.name, data["as_zip"])
    context = {
        "form": form,
        "corpus": corpus,
        "what": "corpus",
        "name": corpus.name,
        "problems": _problem_rows(problems),
    }
    return render(request, "annotate/corpus_export.html", context, status=400 if form.errors else 200)


@researcher_required
@require_GET
def campaign_export(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(rewrite_campaign_list_for(request.user), pk=pk)
    problems = campaign_export_problems(campaign)
    form = CampaignExportForm(request.GET if "format" in request.GET else None, problems=problems)
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        try:
            files = campaign_files(
                campaign,
                fmt=data["format"],
                untyped=data["untyped"],
                n=data["rewrites"],
                include_corpus_systems=data["corpus_systems"],
            )
        except GecInputError as exc:
            form.add_error(None, str(exc))
        else:
            return _download(files, campaign.name, data["as_zip"])
    context = {
        "form": form,
        "campaign": campaign,
        "corpus": campaign.corpus,
        "what": "rewrite campaign",
        "name": campaign.name,
        "problems": _problem_rows(problems),
    }
    return render(request, "annotate/corpus_export.html", context, status=400 if form.errors else 200)


def _stat_rows(stats) -> list[dict]:
    return [
        {
            "s": s,
            "difficulty": format_pm(s.difficulty_mean, s.difficulty_sd),
            "chart": mark_safe(  # built by bar_chart_svg, every label escaped there
                bar_chart_svg(s.types, title=f"ERRANT error types ({s.group or 'all annotators'})")
            ),
        }
        for s in stats
    ]


@researcher_required
@require_GET
def campaign_stats(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(rewrite_campaign_list_for(request.user), pk=pk)
    stats = campaign_statistics(campaign)
    overall, groups = _stat_rows([stats.overall])[0], _stat_rows(stats.groups)
    context = {
        "campaign": campaign,
        "corpus": campaign.corpus,
        "overall": overall,
        "groups": groups,
        "table": [*groups, overall],
        "flags": stats.flags,
    }
    return render(request, "annotate/campaign_stats.html", context)


@researcher_required
@require_GET
def corpus_stats(request: HttpRequest, pk: int) -> HttpResponse:
    corpus = get_object_or_404(corpus_list_for(request.user), pk=pk)
    with_ster = request.GET.get("ster") == "1"
    try:
        systems = corpus_statistics(corpus, with_ster=with_ster)
    except GecInputError as exc:
        return render(
            request, "annotate/campaign_stats.html", {"corpus": corpus, "error": str(exc)}, status=400
        )
    context = {"corpus": corpus, "systems": systems, "with_ster": with_ster}
    return render(request, "annotate/campaign_stats.html", context)
