"""Past judgments imported in the background (``annotate.jobs``): the preview kept the file; the job
reads it and calls ``judgments_import`` as the inline confirm does (all or nothing)."""

from __future__ import annotations

from django.core.files.storage import default_storage
from django.urls import reverse

from annotate.jobs.models import ImportJob
from annotate.jobs.services import JobResult, Progress, import_runner_register, job_corpus, job_file
from crowd.importing.saving import COMPACT_FORMATS, judgments_import

JUDGMENTS = "judgments"


def judgments_run(job: ImportJob, progress: Progress) -> JobResult:
    p = job.params
    corpus = job_corpus(job, p["corpus"], "the judgments") if p.get("corpus") else None
    progress(f"reading {p['filename']}", 0, 0)
    common = {
        "project": job.project,
        "name": p["name"],
        "fmt": p["format"],
        "corpus": corpus,
        "mapping": p.get("mapping"),
        "include_rejected": p.get("include_rejected", False),
        "src_id_base": p.get("src_id_base"),
        "allow_missing": p.get("allow_missing", False),
    }
    if p["format"] in COMPACT_FORMATS:
        # streamed from storage: the compact import reads row by row and picks its form by the size
        with default_storage.open(job.files[0], "rb") as handle:
            handle.name = p["filename"]  # errors name the uploaded file, not where it is kept
            # the compact form reports the lines it reads, then the judgments saved, block by block
            progress("checking the judgments", 0, 0)
            report = judgments_import(path_or_bytes=handle, progress=progress, **common)
    else:  # the judgments saved so far of the file's, a batch at a time (issue 40)
        file = job_file(job, 0, p["filename"])
        progress("checking the judgments", 0, 0)
        report = judgments_import(path_or_bytes=file, progress=progress, **common)
    return JobResult(
        "Imported: " + "; ".join(report.lines()), reverse("campaign-detail", args=[report.campaign.pk])
    )


def register_runner() -> None:
    import_runner_register(JUDGMENTS, judgments_run)
