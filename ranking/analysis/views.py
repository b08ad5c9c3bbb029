"""Analysis pages: runs of a campaign, a run's results with plots, progress JSON, exports. Thin."""

from __future__ import annotations

import json

from csp.constants import NONE, UNSAFE_INLINE
from csp.decorators import csp_replace
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotate.decorators import researcher_required
from annotate.paging import paginate
from geceval.errors import GecInputError
from ranking.analysis import exports, meta2024, plots, services
from ranking.analysis.forms import ImportedScoresForm, RunForm
from ranking.analysis.imported_scores import imported_scores_save
from ranking.analysis.models import AnalysisKind, ImportedScores, RunStatus
from ranking.analysis.parameters import parameters_in_words
from ranking.analysis.selectors import run_list_for, run_progress, run_results
from ranking.protocols import protocol_get
from ranking.selectors import campaign_left_out, campaign_list_for
from ranking.study.bundles import run_bundle, study_bundle, wants_study
from ranking.study.documents import study_export


@researcher_required
def campaign_analysis(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    form = RunForm(request.POST or None, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        try:
            run = services.analysis_run_create(
                campaign=campaign,
                kind=form.cleaned_data["kind"],
                parameters=form.parameters(),
                seed=form.cleaned_data["seed"],
                created_by=request.user,
            )
        except services.AnalysisError as exc:
            form.add_error(None, str(exc))
        else:
            if not services.analysis_run_enqueue(run):
                messages.warning(request, services.QUEUE_DOWN)
            return redirect("analysis-run", pk=run.pk)
    return _campaign_page(request, campaign, form=form)


def _campaign_page(
    request: HttpRequest,
    campaign,
    *,
    form: RunForm | None = None,
    scores_form: ImportedScoresForm | None = None,
) -> HttpResponse:
    form = form or RunForm(campaign=campaign)
    scores_form = scores_form or ImportedScoresForm()
    runs = paginate(
        request,
        run_list_for(request.user).filter(campaign=campaign),
        search=("kind", "status"),
        label="Search the runs (kind or status)",
    )
    status = 400 if form.errors or scores_form.errors else 200
    return render(
        request,
        "ranking/analysis/campaign.html",
        {
            "campaign": campaign,
            "form": form,
            "runs": runs,
            "judgment_formats": protocol_get(campaign.protocol).judgment_formats,
            "left_out": campaign_left_out(campaign),
            "imported_scores": ImportedScores.objects.filter(corpus_id=campaign.corpus_id).select_related(
                "created_by"
            ),
            "scores_form": scores_form,
        },
        status=status,
    )


@researcher_required
@require_POST
def imported_scores_upload(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    form = ImportedScoresForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            saved = imported_scores_save(
                corpus=campaign.corpus,
                name=form.cleaned_data["name"],
                source=upload,  # streamed: never opened whole (issue 36)
                file_name=upload.name,
                user=request.user,
            )
        except GecInputError as exc:
            form.add_error(None, str(exc))
        else:
            what = f"{saved.systems} systems" + (f", {saved.sentences} sentences" if saved.sentences else "")
            messages.success(request, f"Imported {saved.name} ({saved.get_level_display()}; {what}).")
            if saved.left_out:
                messages.warning(
                    request,
                    f"{saved.left_out} item{pluralize(saved.left_out)} of the file "
                    f"{pluralize(saved.left_out, 'is,are')} not a sentence of the corpus: left out.",
                )
            return redirect(f"{reverse('campaign-analysis', args=[campaign.pk])}#imported-scores")
    return _campaign_page(request, campaign, scores_form=form)


@researcher_required
@require_POST
def imported_scores_delete(request: HttpRequest, pk: int, scores_pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    scores = get_object_or_404(ImportedScores, pk=scores_pk, corpus_id=campaign.corpus_id)
    scores.delete()
    messages.info(request, f"Deleted the imported scores {scores.name}; runs made with them keep their copy.")
    return redirect(f"{reverse('campaign-analysis', args=[campaign.pk])}#imported-scores")


def _run(request: HttpRequest, pk: int):
    return get_object_or_404(run_list_for(request.user), pk=pk)


def _edit_distance_rows(table: dict) -> dict:
    bins = table["bins"]
    systems = sorted({n for b in bins for n in b["scores"]})
    return {"bins": bins, "rows": [(n, [b["scores"].get(n) for b in bins]) for n in systems]}


def _protocol_panels(run) -> list[dict]:
    """What the campaign's protocol adds to the run's page (an imported campaign's unknown protocol: nothing)."""
    try:
        return protocol_get(run.campaign.protocol).run_panels(run)
    except GecInputError:
        return []


@researcher_required
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run(request, pk)
    results = run_results(run)
    context = {
        "run": run,
        "parameters": parameters_in_words(run.parameters),
        "progress": run_progress(run),
        "finished": run.status == RunStatus.DONE,
        "is_ranking": run.kind in services.RANKING_KINDS,
        "is_curve": run.kind == AnalysisKind.GLEU_VS_REFS,
        "needed": run.summary.get("needed"),
        "needed_note": run.summary.get("needed_note"),
        "reliability": run.summary.get("reliability"),
        "cross_validation": run.summary.get("cross_validation"),
        "agreement": run.summary.get("agreement"),
        "edit_distance": [
            (refset, f"edit-distance-{i}", _edit_distance_rows(run.summary["gleu_by_edit_distance"][refset]))
            for i, refset in enumerate(sorted(run.summary.get("gleu_by_edit_distance") or {}))
        ],
        **results,
        "protocol_panels": _protocol_panels(run),
    }
    errant = [m for m in results["metrics"] if m.metric == "errant" and m.details.get("edit_types")]
    if errant:
        totals: dict[str, int] = {}
        for m in errant:
            for t, n in m.details["edit_types"].items():
                totals[t] = totals.get(t, 0) + n
        types = sorted(totals, key=lambda t: (-totals[t], t))[:10]
        context["edit_types"] = types
        context["edit_type_rows"] = [
            (m.reference_set, m.name, [m.details["edit_types"].get(t, 0) for t in types]) for m in errant
        ]
        context["edit_type_plots"] = [
            (refset, f"types-{i}") for i, refset in enumerate(sorted({m.reference_set for m in errant}))
        ]
    for rows in (results["ranks"], results["prws"]):
        for prev, row in zip([None, *rows], rows):
            row.cluster_start = prev is not None and prev.cluster != row.cluster
    if results["correlations"]:
        context["scatters"] = [(c, f"scatter-{i}") for i, c in enumerate(results["correlations"])]
        labels = [f"{c.metric}/{c.reference_set}" for c in results["correlations"]]
        context["williams_rows"] = [
            (label, [c.williams.get(other) for other in labels])
            for label, c in zip(labels, results["correlations"])
        ]
        context["williams_labels"] = labels
        tags = meta2024.corpus_tags(run.campaign.corpus_id)
        context["subset_rows"] = meta2024.subset_rows(results["correlations"], tags)
        context["subset_williams"] = meta2024.subset_williams(results["correlations"], tags)
        context["has_windows"] = bool(meta2024.window_lines(results["correlations"], tags))
        context["window_k"] = meta2024.WINDOW
        context["sentence_rows"] = meta2024.sentence_rows(results["sentences"], tags)
    context["sentence_level"] = (
        run.summary.get("sentence_level") if run.kind == AnalysisKind.META_EVAL else None
    )
    return render(request, "ranking/analysis/run.html", context)


@researcher_required
@require_GET
def run_progress_json(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(run_progress(_run(request, pk)))


@researcher_required
@require_POST
def run_resume(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run(request, pk)
    try:
        services.analysis_run_resume(run=run)
    except services.BrokerUnreachable:
        messages.warning(request, services.QUEUE_DOWN)
    else:
        messages.info(request, "Unfinished parts of the run were sent to the workers again.")
    return redirect("analysis-run", pk=run.pk)


@researcher_required
@require_GET
@csp_replace({"default-src": [NONE], "style-src": [UNSAFE_INLINE]})  # matplotlib's SVG carries a <style>
def run_plot(request: HttpRequest, pk: int, name: str) -> HttpResponse:
    run = _run(request, pk)
    if run.status != RunStatus.DONE:
        raise Http404("the run has not finished")
    res = run_results(run)
    if name == "ranks" and res["ranks"]:
        svg = plots.rank_range_svg(res["ranks"])
    elif name == "heatmap" and res["correlations"]:
        svg = plots.heatmap_svg(res["correlations"])
    elif name == "williams" and res["correlations"]:
        svg = plots.williams_svg(res["correlations"])
    elif name.startswith("scatter-") and res["correlations"]:
        index = int(name.removeprefix("scatter-")) if name.removeprefix("scatter-").isdigit() else -1
        if not 0 <= index < len(res["correlations"]):
            raise Http404("no such plot")
        c = res["correlations"][index]
        svg = plots.scatter_svg(c.points, xlabel=f"{c.metric} ({c.reference_set})", ylabel="human")
    elif name.startswith("edit-distance-") and run.summary.get("gleu_by_edit_distance"):
        tables = run.summary["gleu_by_edit_distance"]
        keys = sorted(tables)
        index = name.removeprefix("edit-distance-")
        if not index.isdigit() or int(index) >= len(keys):
            raise Http404("no such plot")
        svg = plots.edit_distance_svg(tables[keys[int(index)]])
    elif name.startswith("types-") and any(m.metric == "errant" for m in res["metrics"]):
        refsets = sorted({m.reference_set for m in res["metrics"] if m.metric == "errant"})
        index = name.removeprefix("types-")
        if not index.isdigit() or int(index) >= len(refsets):
            raise Http404("no such plot")
        chosen = [
            m for m in res["metrics"] if m.metric == "errant" and m.reference_set == refsets[int(index)]
        ]
        svg = plots.edit_types_svg(chosen)
    elif name == "window" and res["correlations"]:
        lines = meta2024.window_lines(res["correlations"], meta2024.corpus_tags(run.campaign.corpus_id))
        if not lines:
            raise Http404("fewer systems than a window")
        svg = plots.window_svg(lines, k=meta2024.WINDOW)
    elif name == "curve" and res["metrics"] and run.kind == AnalysisKind.GLEU_VS_REFS:
        svg = plots.curve_svg(res["metrics"])
    else:
        raise Http404("no such plot")
    return HttpResponse(svg, content_type="image/svg+xml")


@researcher_required
@require_GET
def run_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    run = _run(request, pk)
    if run.status != RunStatus.DONE:
        raise Http404("the run has not finished")
    res = run_results(run)
    name = f"run-{run.pk}"
    if fmt == "ranking.csv" and res["ranks"]:
        body, ctype = exports.rankings_csv(res["ranks"]), "text/csv"
    elif fmt == "ranking.json" and res["ranks"]:
        body, ctype = exports.rankings_json(run, res["ranks"]), "application/json"
    elif fmt == "ranking.tex" and res["ranks"]:
        body, ctype = exports.rankings_latex(res["ranks"]), "text/x-tex"
    elif fmt == "metrics.csv" and res["metrics"]:
        body, ctype = exports.metric_csv(res["metrics"]), "text/csv"
    elif fmt == "metrics.tex" and res["metrics"]:
        body, ctype = exports.metric_latex(res["metrics"]), "text/x-tex"
    elif fmt == "model.json" and run.summary.get("model"):
        body, ctype = json.dumps(run.summary["model"], indent=2), "application/json"
    else:
        raise Http404("no such export for this run")
    if wants_study(request) and ctype == "text/csv":  # the study as the run saw it (older runs: a note)
        return run_bundle(
            filename=f"{name}-{fmt}",
            chunks=[body],
            snapshot=run.study,
            run_label=f"Analysis run {run.pk} of campaign {run.campaign.name!r}",
            made=run.created,
            campaign_study=lambda: study_export(run.campaign),
        )
    response = HttpResponse(body, content_type=f"{ctype}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}-{fmt}"'
    return response


@researcher_required
@require_GET
def campaign_judgments_export(request: HttpRequest, pk: int, fmt: str) -> StreamingHttpResponse:
    campaign = get_object_or_404(campaign_list_for(request.user), pk=pk)
    chosen = exports.judgment_formats(campaign).get(fmt)
    if chosen is None:
        raise Http404("this campaign's protocol does not export to that format")
    if wants_study(request):
        return study_bundle(
            filename=f"campaign-{campaign.pk}-{fmt}.{chosen.extension}",
            chunks=chosen.writer(campaign),
            study=study_export(campaign),
        )
    response = StreamingHttpResponse(
        chosen.writer(campaign), content_type=f"{chosen.content_type}; charset=utf-8"
    )
    response["Content-Disposition"] = (
        f'attachment; filename="campaign-{campaign.pk}-{fmt}.{chosen.extension}"'
    )
    return response
