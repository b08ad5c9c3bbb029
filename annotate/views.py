from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from annotate.decorators import researcher_required
from annotate.forms import CorpusUploadForm, OutputsUploadForm
from annotate.roles import is_researcher
from annotate.selectors import corpus_list_for, project_list_for
from annotate.services import InputFile, corpus_import_text, open_upload
from geceval.errors import GecInputError
from ranking.selectors import campaign_list_for, campaign_work_list_for
from ranking.services import outputs_import


@login_required
def home(request: HttpRequest) -> HttpResponse:
    context = {"work": campaign_work_list_for(request.user)}
    if is_researcher(request.user):
        context["corpora"] = corpus_list_for(request.user)
        context["campaigns"] = campaign_list_for(request.user)
        context["ownerless"] = list(project_list_for(request.user).filter(owner__isnull=True))
    return render(request, "home.html", context)


def _broker_status() -> str:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "eager"
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception:
        return "down"
    return "ok"


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        database = "ok"
    except Exception:
        database = "down"
    body = {"database": database, "broker": _broker_status()}
    return JsonResponse(body, status=200 if database == "ok" else 503)


def _file(upload) -> InputFile:
    return open_upload(upload, name=upload.name)


@researcher_required
def corpus_upload(request: HttpRequest) -> HttpResponse:
    projects = project_list_for(request.user)
    form = CorpusUploadForm(request.POST or None, request.FILES or None, projects=projects)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            corpus = corpus_import_text(
                project=data["project"],
                name=data["name"],
                source=_file(data["source"]),
                references=[_file(f) for f in data["references"]],
                domain=data["domain"],
                tokenized=data["tokenized"],
                language=data["language"],
                description=data["description"],
            )
        except GecInputError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Imported {corpus.sentences.count()} sentences into {corpus.name}.")
            return redirect("corpus-detail", pk=corpus.pk)
    return render(request, "annotate/corpus_upload.html", {"form": form}, status=400 if form.errors else 200)


@researcher_required
def corpus_detail(request: HttpRequest, pk: int) -> HttpResponse:
    corpus = get_object_or_404(corpus_list_for(request.user), pk=pk)
    form = OutputsUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            system = outputs_import(
                corpus=corpus,
                system_name=form.cleaned_data["system"],
                kind=form.cleaned_data["kind"],
                file=_file(form.cleaned_data["file"]),
            )
        except GecInputError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Imported outputs of {system.name}.")
            return redirect("corpus-detail", pk=corpus.pk)
    context = {
        "corpus": corpus,
        "sentences": corpus.sentences.order_by("position")[:50],
        "systems": corpus.systems.order_by("kind", "name"),
        "form": form,
    }
    return render(request, "annotate/corpus_detail.html", context, status=400 if form.errors else 200)
