"""Pages of background imports: one job's progress (a page to leave and come back to) and the list."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET

from annotate.decorators import researcher_required
from annotate.jobs.models import MAX_ATTEMPTS, ImportJob, ImportJobStatus
from annotate.jobs.retention import export_file_expired, export_file_expires
from annotate.jobs.runners import EXPORT
from annotate.models import Corpus
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
    expired = export_file_expired(job)
    context = {
        "job": job,
        "progress": job_progress(job),
        "max_attempts": MAX_ATTEMPTS,
        "expires": export_file_expires(job),
        "expired": expired,
        "expired_days": (expired - job.finished).days if expired and job.finished else 0,
        "keep_days": settings.EXPORT_JOB_FILES_KEEP_DAYS,
    }
    if job.kind == EXPORT:
        corpus = Corpus.objects.filter(pk=job.params.get("corpus"), project=job.project).first()
        context["corpus"] = corpus
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
def import_job_download(request: HttpRequest, pk: int) -> HttpResponse:
    """A finished export job's file (issue 40); once deleted by the retention, the job's page, which says when."""
    job = get_object_or_404(import_jobs_for(request.user), pk=pk, kind=EXPORT, status=ImportJobStatus.DONE)
    if export_file_expired(job) is not None:
        messages.warning(request, "That download is no longer kept: this page says when it was deleted.")
        return redirect("import-job", pk=job.pk)
    kept = job.params.get("output")
    if not kept or not default_storage.exists(kept):
        raise Http404("the exported file is gone: export again")
    return FileResponse(default_storage.open(kept, "rb"), as_attachment=True, filename=job.params["filename"])
