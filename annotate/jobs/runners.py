"""The background imports annotate owns: a corpus (source and references) and one system's outputs.
Each reads the kept files as the inline upload does and calls the same service."""

from __future__ import annotations

from django.urls import reverse

from annotate.jobs.models import ImportJob
from annotate.jobs.services import JobResult, Progress, import_runner_register, job_corpus, job_file
from annotate.services import corpus_import_text, outputs_import

CORPUS, OUTPUTS = "corpus", "outputs"


def corpus_run(job: ImportJob, progress: Progress) -> JobResult:
    p = job.params
    names = p["filenames"]
    files = []
    for i, name in enumerate(names):
        progress(f"reading {name}", i, len(names) + 1)
        files.append(job_file(job, i, name))
    progress("checking and saving the sentences", len(names), len(names) + 1)
    corpus = corpus_import_text(
        project=job.project,
        name=p["name"],
        source=files[0],
        references=files[1:],
        domain=p.get("domain", ""),
        tokenized=p.get("tokenized", False),
        language=p.get("language", "en"),
        description=p.get("description", ""),
    )
    return JobResult(
        f"Imported {corpus.sentences.count()} sentences into {corpus.name}.",
        reverse("corpus-detail", args=[corpus.pk]),
    )


def outputs_run(job: ImportJob, progress: Progress) -> JobResult:
    p = job.params
    corpus = job_corpus(job, p["corpus"], "its outputs")
    progress(f"reading {p['filename']}", 0, 2)
    file = job_file(job, 0, p["filename"])
    progress("checking and saving the outputs", 1, 2)
    system = outputs_import(corpus=corpus, system_name=p["system"], kind=p["kind"], file=file)
    return JobResult(f"Imported outputs of {system.name}.", reverse("corpus-detail", args=[corpus.pk]))


def register_runners() -> None:
    import_runner_register(CORPUS, corpus_run)
    import_runner_register(OUTPUTS, outputs_run)
