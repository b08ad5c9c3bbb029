"""The background jobs annotate owns: importing a corpus (source and references) or one system's outputs,
and a corpus's typed M2 export (issue 40). An import streams the kept files as the inline upload does
and calls the same service, which reports how many rows it saved (the job's progress, which renews its
lease); the export reports the (sentence, reference) pairs ERRANT has annotated and keeps its file
only once it is whole."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.urls import reverse

from annotate.formats.services import corpus_export, corpus_import_upload
from annotate.formats.writers import safe_name, zip_files
from annotate.jobs.models import ImportJob
from annotate.jobs.services import JobResult, Progress, import_runner_register, job_corpus, job_file
from annotate.models import Corpus
from annotate.services import corpus_import_text, outputs_import
from geceval.errors import GecInputError

CORPUS, OUTPUTS, EXPORT = "corpus", "outputs", "corpus-export"
EXPORT_FILES = "exports/jobs"


def corpus_run(job: ImportJob, progress: Progress) -> JobResult:
    p = job.params
    names = p["filenames"]
    files = [job_file(job, i, name) for i, name in enumerate(names)]
    progress(f"checking {', '.join(names)}", 0, 0)
    common = {
        "project": job.project,
        "name": p["name"],
        "domain": p.get("domain", ""),
        "tokenized": p.get("tokenized", False),
        "language": p.get("language", "en"),
        "description": p.get("description", ""),
        "progress": lambda done, total: progress("saving the sentences", done, total),
    }
    fmt = p.get("format", "text")
    if fmt in ("text", "jfleg"):
        corpus = corpus_import_text(source=files[0], references=files[1:], **common)
    else:  # issue 40: every format of import_corpus
        corpus = corpus_import_upload(fmt=fmt, source=files[0], others=files[1:], names=names[1:], **common)
    return JobResult(
        f"Imported {corpus.sentences.count()} sentences into {corpus.name}.",
        reverse("corpus-detail", args=[corpus.pk]),
    )


def outputs_run(job: ImportJob, progress: Progress) -> JobResult:
    p = job.params
    corpus = job_corpus(job, p["corpus"], "its outputs")
    file = job_file(job, 0, p["filename"])
    progress(f"checking {p['filename']}", 0, 0)
    system = outputs_import(
        corpus=corpus,
        system_name=p["system"],
        kind=p["kind"],
        file=file,
        progress=lambda done, total: progress("saving the outputs", done, total),
    )
    return JobResult(f"Imported outputs of {system.name}.", reverse("corpus-detail", args=[corpus.pk]))


def export_run(job: ImportJob, progress: Progress) -> JobResult:
    """The corpus's files in a layout, kept in file storage for the job page's download link: written
    whole first, so a failure keeps nothing."""
    p = job.params
    if settings.CELERY_TASK_ALWAYS_EAGER:
        # lazy: retention reads this module's names; with eager Celery (``make run``) no beat runs
        # the hourly expiry, so each new export expires the old files instead
        from annotate.jobs.retention import export_files_expire

        export_files_expire()
    corpus = Corpus.objects.filter(pk=p["corpus"], project=job.project).first()
    if corpus is None:
        raise GecInputError("the corpus was deleted before its export was written")
    progress("reading the corpus", 0, 0)
    files = corpus_export(
        corpus,
        fmt=p["format"],
        untyped=p.get("untyped", False),
        progress=lambda done, total: progress("writing the M2 edits", done, total),
    )
    if len(files) == 1 and not p.get("as_zip"):
        ((filename, content),) = files.items()
    else:
        filename, content = f"{safe_name(corpus.name)}.zip", zip_files(files, corpus.name)
    kept = default_storage.save(f"{EXPORT_FILES}/{uuid.uuid4().hex}.export", ContentFile(content))
    ImportJob.objects.filter(pk=job.pk).update(params={**p, "output": kept, "filename": filename})
    return JobResult(f"Exported {corpus.name} as {filename}.", reverse("import-job-download", args=[job.pk]))


def register_runners() -> None:
    import_runner_register(CORPUS, corpus_run)
    import_runner_register(OUTPUTS, outputs_run)
    import_runner_register(EXPORT, export_run)
