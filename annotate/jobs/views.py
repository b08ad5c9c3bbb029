"""Pages of background imports: one job's progress (a page to leave and come back to) and the list."""

from __future__ import annotations

from django.contrib import messages
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET

from annotate.decorators import researcher_required
from annotate.jobs.models import MAX_ATTEMPTS, ImportJob, ImportJobStatus
from annotate.jobs.runners import EXPORT
from annotate.projects.selectors import in_current_project
from annotate.selectors import project_list_for

RECENT = 50


def job_redirect(request: HttpRequest, job: ImportJob) -> HttpResponse:
    """Where an upload that runs in the background sends the researcher: the job's page."""
    messages.info(
        request, "The upload is large: it is imported in the background. This page shows how far it is."
    )
    return redirect("import-job", pk=job.pk)


def import_jobs_for(user):
    return ImportJob.objects.filter(project__in=project_list_for(user)).select_related(
        "project", "created_by"
    )


def job_progress(job: ImportJob) -> dict:
    return {
        "status": job.status,
        "step": job.step,
        "done": job.done,
        "total": job.total,
        "percent": job.percent,
        "retrying": job.retrying,
    }


@researcher_required
@require_GET
def import_job(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(import_jobs_for(request.user), pk=pk)
    context = {"job": job, "progress": job_progress(job), "max_attempts": MAX_ATTEMPTS}
    return render(request, "annotate/import_job.html", context)


@researcher_required
@require_GET
def import_job_progress(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(job_progress(get_object_or_404(import_jobs_for(request.user), pk=pk)))


@researcher_required
@require_GET
def import_jobs(request: HttpRequest) -> HttpResponse:
    jobs = in_current_project(request, import_jobs_for(request.user))
    return render(
        request, "annotate/import_jobs.html", {"jobs": jobs[:RECENT], "count": jobs.count(), "shown": RECENT}
    )


@researcher_required
@require_GET
def import_job_download(request: HttpRequest, pk: int) -> FileResponse:
    """A finished export job's file (issue 40)."""
    job = get_object_or_404(import_jobs_for(request.user), pk=pk, kind=EXPORT, status=ImportJobStatus.DONE)
    kept = job.params.get("output")
    if not kept or not default_storage.exists(kept):
        raise Http404("the exported file is gone: export again")
    return FileResponse(default_storage.open(kept, "rb"), as_attachment=True, filename=job.params["filename"])
