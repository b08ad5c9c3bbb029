"""The background imports annotate owns: a corpus (source and references) and one system's outputs.
Each streams the kept files as the inline upload does and calls the same service, which reports how
many rows it saved (the job's progress, which renews its lease)."""

from __future__ import annotations

from django.urls import reverse

from annotate.formats.services import corpus_import_upload
from annotate.jobs.models import ImportJob
from annotate.jobs.services import JobResult, Progress, import_runner_register, job_corpus, job_file
from annotate.services import corpus_import_text, outputs_import

CORPUS, OUTPUTS = "corpus", "outputs"


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


def register_runners() -> None:
    import_runner_register(CORPUS, corpus_run)
    import_runner_register(OUTPUTS, outputs_run)
