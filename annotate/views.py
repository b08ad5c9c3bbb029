from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate.decorators import researcher_required, site_researcher_required
from annotate.first_account import FirstAccountForm, FirstAccountTaken, first_account_create, setup_open
from annotate.formats.services import corpus_import_upload
from annotate.forms import SYSTEM_TAGS, CorpusUploadForm, OutputsUploadForm, SystemTagsForm
from annotate.jobs.runners import CORPUS, OUTPUTS
from annotate.jobs.services import import_job_create, runs_in_background
from annotate.jobs.views import job_redirect
from annotate.models import System
from annotate.paging import paginate
from annotate.projects.selectors import current_project_id
from annotate.selectors import corpus_list_for, project_list_for
from annotate.services import corpus_import_text, outputs_import
from geceval.errors import GecInputError
from geceval.formats.inputs import content_size


def _held(upload) -> int:
    """What an upload holds: its size, or what a gzip upload decompresses to (counted up to the inline
    bound), so a small gzip of a large corpus is imported in the background, not in the request."""
    return max(upload.size, content_size(upload, upto=settings.IMPORT_INLINE_MAX_BYTES + 1))


@site_researcher_required
def corpus_upload(request: HttpRequest) -> HttpResponse:
    projects = project_list_for(request.user)
    form = CorpusUploadForm(
        request.POST or None,
        request.FILES or None,
        projects=projects,
        current_project=current_project_id(request),
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        uploads = [data["source"], *data["references"]]
        if runs_in_background(*(_held(u) for u in uploads)):
            job = import_job_create(
                kind=CORPUS,
                project=data["project"],
                user=request.user,
                label=f"corpus {data['name']}",
                uploads=uploads,
                params={
                    "name": data["name"],
                    "format": data["format"],
                    "filenames": [u.name for u in uploads],
                    "domain": data["domain"],
                    "tokenized": data["tokenized"],
                    "language": data["language"],
                    "description": data["description"],
                },
            )
            return job_redirect(request, job)
        common = {
            "project": data["project"],
            "name": data["name"],
            "domain": data["domain"],
            "tokenized": data["tokenized"],
            "language": data["language"],
            "description": data["description"],
        }
        try:
            if data["format"] in ("text", "jfleg"):
                corpus = corpus_import_text(source=data["source"], references=data["references"], **common)
            else:
                corpus = corpus_import_upload(
                    fmt=data["format"],
                    source=data["source"],
                    others=data["references"],
                    names=[u.name for u in data["references"]],
                    **common,
                )
        except GecInputError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Imported {corpus.sentences.count()} sentences into {corpus.name}.")
            return redirect("corpus-detail", pk=corpus.pk)
    limit = filesizeformat(settings.UPLOAD_MAX_BYTES).replace("\xa0", " ")
    context = {"form": form, "upload_limit": limit}
    return render(request, "annotate/corpus_upload.html", context, status=400 if form.errors else 200)


@researcher_required
def corpus_detail(request: HttpRequest, pk: int) -> HttpResponse:
    corpus = get_object_or_404(corpus_list_for(request.user), pk=pk)
    form = OutputsUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        if runs_in_background(_held(upload)):
            job = import_job_create(
                kind=OUTPUTS,
                project=corpus.project,
                user=request.user,
                label=f"outputs of {form.cleaned_data['system']} for {corpus.name}",
                uploads=[upload],
                params={
                    "corpus": corpus.pk,
                    "system": form.cleaned_data["system"],
                    "kind": form.cleaned_data["kind"],
                    "filename": upload.name,
                },
            )
            return job_redirect(request, job)
        try:
            system = outputs_import(
                corpus=corpus,
                system_name=form.cleaned_data["system"],
                kind=form.cleaned_data["kind"],
                file=form.cleaned_data["file"],
            )
        except GecInputError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Imported outputs of {system.name}.")
            return redirect("corpus-detail", pk=corpus.pk)
    context = {
        "corpus": corpus,
        "sentences": paginate(
            request, corpus.sentences.order_by("position"), search=("text",), label="Search the sentences"
        ),
        "systems": corpus.systems.order_by("kind", "name"),
        "system_tags": SYSTEM_TAGS,
        "form": form,
    }
    return render(request, "annotate/corpus_detail.html", context, status=400 if form.errors else 200)


def first_account(request: HttpRequest) -> HttpResponse:
    """An empty installation's first account, the administrator (annotate.first_account); afterwards
    this page only sends people to the login page."""
    if not setup_open():
        return redirect("home" if request.user.is_authenticated else "login")
    form = FirstAccountForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = first_account_create(form)
        except FirstAccountTaken:
            messages.error(request, "Someone created the first account a moment ago: log in instead.")
            return redirect("login")
        login(request, user, backend=settings.AUTHENTICATION_BACKENDS[0])
        messages.success(
            request,
            f"Welcome, {user.get_username()}: you are this installation's administrator. "
            "Start with a project: Projects, then New project.",
        )
        return redirect("home")
    status = 400 if form.errors else 200
    return render(request, "annotate/first_account.html", {"form": form}, status=status)


@researcher_required
@require_POST
def system_tags(request: HttpRequest, pk: int, system_pk: int) -> HttpResponse:
    """Set a system's meta-evaluation tags (classic, fluent, input) from the corpus page."""
    corpus = get_object_or_404(corpus_list_for(request.user), pk=pk)
    system = get_object_or_404(System, pk=system_pk, corpus=corpus)
    form = SystemTagsForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Tags of {system.name}: choose among classic, fluent and input.")
        return redirect(f"{reverse('corpus-detail', args=[corpus.pk])}#systems")
    system.tags = form.tags_text()
    system.save(update_fields=["tags"])
    messages.success(request, f"Tags of {system.name}: {system.tags or 'none'}.")
    return redirect(f"{reverse('corpus-detail', args=[corpus.pk])}#systems")
