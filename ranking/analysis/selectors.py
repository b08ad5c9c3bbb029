"""Reads for analysis runs (query shapes live here)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, QuerySet

from ranking.analysis.models import AnalysisRun
from ranking.selectors import campaign_list_for


def run_list_for(user: AbstractBaseUser) -> QuerySet[AnalysisRun]:
    """Runs of the campaigns the user may see."""
    return AnalysisRun.objects.filter(campaign__in=campaign_list_for(user)).select_related(
        "campaign", "campaign__project", "created_by"
    )


def run_progress(run: AnalysisRun) -> dict:
    total = run.progress_total or 0
    return {
        "id": run.pk,
        "status": run.status,
        "done": run.progress_done,
        "total": total,
        "percent": round(100 * run.progress_done / total, 1)
        if total
        else (100.0 if run.status == "done" else 0.0),
        "error": run.error,
        "chunks": dict(
            run.chunks.order_by().values("status").annotate(n=Count("id")).values_list("status", "n")
        ),
    }


def run_results(run: AnalysisRun) -> dict:
    """Everything a results page shows, in display order."""
    return {
        "ranks": list(run.rank_results.all()),
        "prws": list(run.prws_results.all()),
        "metrics": list(run.metric_results.order_by("metric", "reference_set", "-score")),
        "correlations": list(run.correlation_results.all()),
        "sentences": list(run.sentence_results.all()),
    }
