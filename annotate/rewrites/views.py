"""HTML views for rewrite collection: thin over services and selectors."""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotate.decorators import researcher_required
from annotate.formats.campaign import pseudonym
from annotate.http import id_field_or_404
from annotate.models import (
    Qualification,
    QualificationAttempt,
    QualificationStatus,
    RewriteCampaign,
    RewriteCampaignStatus,
    RewriteFlag,
    Sentence,
)
from annotate.paging import paginate
from annotate.projects.selectors import current_project_id, in_current_project
from annotate.rewrites import selectors as sel
from annotate.rewrites import services
from annotate.rewrites.diff import word_diff
from annotate.rewrites.forms import QualificationForm, RewriteCampaignForm
from annotate.rewrites.presets import PRESET_INSTRUCTIONS
from annotate.rewrites.review import rewrite_review_decide
from annotate.rewrites.tokens import shown as _shown
from annotate.rewrites.validation import max_rewrite_chars
from annotate.selectors import project_list_for, sentence_context


def _managed_campaign(request: HttpRequest, pk: int) -> RewriteCampaign:
    campaign = get_object_or_404(sel.rewrite_campaign_list_for(request.user), pk=pk)
    return campaign


# --------------------------------------------------------------------------- researcher


@researcher_required
def campaign_new(request: HttpRequest) -> HttpResponse:
    projects = project_list_for(request.user)
    form = RewriteCampaignForm(
        request.POST or None, projects=projects, current_project=current_project_id(request)
    )
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        groups = dict.fromkeys(d["groups"], d["per_group"]) if d["per_group"] else list(d["groups"])
        try:
            campaign = services.rewrite_campaign_create(
                project=d["project"],
                corpus=d["corpus"],
                name=d["name"],
                created_by=request.user,
                preset=d["preset"],
                instructions=d["instructions"],
                rewrites_per_sentence=d["rewrites_per_sentence"],
                groups=groups,
                ask_difficulty=d["ask_difficulty"],
                require_review=d["require_review"],
                pay_per_sentence=d["pay_per_sentence"],
                domain=d["domain"],
                first_position=d["first_position"],
                last_position=d["last_position"],
                qualification=d["qualification"],
                far_length_ratio=d["far_length_ratio"] or 3.0,
                far_edit_rate=(d["far_edit_rate"] or 80) / 100,
            )
        except services.RewriteError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                f"Rewrite campaign {campaign.name} created: {campaign.slots.count()} rewrites to collect.",
            )
            return redirect("rewrite-campaign", pk=campaign.pk)
    context = {"form": form, "presets": {str(k): v for k, v in PRESET_INSTRUCTIONS.items()}}
    return render(request, "annotate/rewrite_campaign_new.html", context, status=400 if form.errors else 200)


@researcher_required
def campaign_detail(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = _managed_campaign(request, pk)
    context = {
        "campaign": campaign,
        "progress": sel.rewrite_campaign_progress(campaign),
        "groups": campaign.group_links.select_related("group"),
        "statuses": RewriteCampaignStatus.choices,
    }
    return render(request, "annotate/rewrite_campaign_detail.html", context)


@researcher_required
@require_POST
def campaign_status(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = _managed_campaign(request, pk)
    try:
        services.rewrite_campaign_set_status(campaign=campaign, status=request.POST.get("status", ""))
    except services.RewriteError as exc:
        messages.error(request, str(exc))
    return redirect("rewrite-campaign", pk=campaign.pk)


# --------------------------------------------------------------------------- annotator


def _worker_campaign(request: HttpRequest, pk: int) -> RewriteCampaign:
    campaign = get_object_or_404(RewriteCampaign.objects.select_related("corpus", "qualification"), pk=pk)
    refusal = sel.rewrite_campaign_refusal(campaign, request.user)
    if refusal is not None:
        if refusal.code == sel.RefusalCode.QUALIFICATION:
            raise _NeedsQualification(campaign.qualification_id)
        raise PermissionDenied(refusal.message)
    return campaign


class _NeedsQualification(Exception):
    def __init__(self, qualification_id: int):
        self.qualification_id = qualification_id


@login_required
def work(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        campaign = _worker_campaign(request, pk)
    except _NeedsQualification as need:
        messages.info(request, "Pass this qualification before working on the campaign.")
        return redirect("qualification-take", pk=need.qualification_id)
    error = ""
    status = 200
    posted = None
    if request.method == "POST":
        sentence = get_object_or_404(
            Sentence, pk=id_field_or_404(request.POST, "sentence"), corpus=campaign.corpus
        )
        posted = request.POST
        try:
            rewrite, created = services.rewrite_submit(
                campaign=campaign,
                user=request.user,
                sentence=sentence,
                text=request.POST.get("text", ""),
                flag=request.POST.get("flag", ""),
                difficulty=request.POST.get("difficulty"),
                seconds=request.POST.get("seconds"),
            )
        except services.RewriteError as exc:
            error, status = str(exc), 400
        else:
            if created and rewrite.far_from_sentence:
                messages.warning(
                    request,
                    "Your rewrite is far from its sentence ("
                    + services.far_reason(campaign, sentence.text, rewrite.text)
                    + "): an expert will review it before it counts.",
                )
            return redirect("rewrite-work", pk=campaign.pk)
    slot = services.slot_claim(campaign=campaign, user=request.user)
    done, total = sel.rewrite_progress(campaign, request.user)
    if slot is None:
        context = {"campaign": campaign, "done": done, "total": total}
        return render(request, "annotate/rewrite_done.html", context)
    sentence = slot.sentence
    tokenized = campaign.corpus.tokenized
    before, after = sentence_context(sentence, window=2)
    draft = sel.draft_for(campaign, sentence, request.user)
    source_shown = _shown(sentence.text, tokenized)
    if posted is not None and str(sentence.pk) == posted.get("sentence"):
        initial = {
            "text": posted.get("text", ""),
            "flag": posted.get("flag", ""),
            "difficulty": posted.get("difficulty", ""),
        }
    elif draft is not None:
        initial = {"text": draft.text, "flag": draft.flag, "difficulty": draft.difficulty or ""}
    else:
        initial = {"text": source_shown, "flag": "", "difficulty": ""}
    context = {
        "campaign": campaign,
        "sentence": sentence,
        "source": source_shown,
        "before": [_shown(s.text, tokenized) for s in before],
        "after": [_shown(s.text, tokenized) for s in after],
        "initial": initial,
        "draft_seconds": draft.seconds if draft else 0,
        "draft_updated": int(draft.updated.timestamp() * 1000) if draft else 0,
        "flags": [c for c in RewriteFlag.choices if c[0]],
        "levels": [1, 2, 3, 4, 5],
        "done": done,
        "total": total,
        "error": error,
        "max_chars": max_rewrite_chars(source_shown),
        "group": slot.group.name if slot.group else "",
    }
    return render(request, "annotate/rewrite_work.html", context, status=status)


@login_required
@require_POST
def skip(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = _worker_campaign(request, pk)
    sentence = get_object_or_404(
        Sentence, pk=id_field_or_404(request.POST, "sentence"), corpus=campaign.corpus
    )
    services.rewrite_skip(campaign=campaign, user=request.user, sentence=sentence)
    return redirect("rewrite-work", pk=campaign.pk)


@login_required
@require_POST
def draft(request: HttpRequest, pk: int) -> JsonResponse:
    try:
        campaign = _worker_campaign(request, pk)
    except _NeedsQualification:
        raise PermissionDenied("qualification needed") from None
    try:
        body = json.loads(request.body or b"{}")
        if not isinstance(body, dict):
            raise ValueError("expected a JSON object")
        sentence = Sentence.objects.get(pk=int(body.get("sentence")), corpus=campaign.corpus)
        saved = services.draft_save(
            campaign=campaign,
            user=request.user,
            sentence=sentence,
            text=body.get("text", ""),
            flag=body.get("flag", "") or "",
            difficulty=body.get("difficulty"),
            seconds=body.get("seconds"),
        )
    except (ValueError, TypeError, Sentence.DoesNotExist, services.RewriteError) as exc:
        return JsonResponse({"saved": False, "error": str(exc)}, status=400)
    return JsonResponse({"saved": True, "updated": saved.updated.isoformat()})


@login_required
def mine(request: HttpRequest, pk: int) -> HttpResponse:
    # Only campaigns the user belongs to (or wrote in): a campaign's name is not for everyone.
    visible = RewriteCampaign.objects.filter(
        Q(project__in=project_list_for(request.user))
        | Q(project__members=request.user)
        | Q(rewrites__annotator=request.user)
    ).distinct()
    campaign = get_object_or_404(visible.select_related("corpus"), pk=pk)
    listing = paginate(
        request,
        sel.my_rewrites(campaign, request.user).order_by("-created"),
        search=("text", "sentence__text"),
        label="Search your rewrites",
    )
    tokenized = campaign.corpus.tokenized
    rows = [
        {"rewrite": r, "diff": word_diff(_shown(r.sentence.text, tokenized), _shown(r.text, tokenized))}
        for r in listing.items
    ]
    done, total = sel.rewrite_progress(campaign, request.user)
    context = {"campaign": campaign, "rows": rows, "listing": listing, "done": done, "total": total}
    return render(request, "annotate/rewrite_mine.html", context)


# --------------------------------------------------------------------------- expert review


@login_required
def review(request: HttpRequest, pk: int) -> HttpResponse:
    if not sel.may_review(request.user):
        raise PermissionDenied("experts only")
    campaign = get_object_or_404(sel.review_campaign_list_for(request.user), pk=pk)
    error = ""
    if request.method == "POST":
        rewrite = get_object_or_404(
            campaign.rewrites.select_related("sentence", "campaign__corpus"),
            pk=id_field_or_404(request.POST, "rewrite"),
        )
        try:
            rewrite_review_decide(
                rewrite=rewrite,
                reviewer=request.user,
                decision=request.POST.get("decision", ""),
                text=request.POST.get("text", ""),
                reason=request.POST.get("reason", ""),
            )
        except services.RewriteError as exc:
            error = str(exc)
        else:
            return redirect("rewrite-review", pk=campaign.pk)
    rewrite = services.review_claim(campaign=campaign, expert=request.user)
    context = {
        "campaign": campaign,
        "rewrite": rewrite,
        "error": error,
        "reason": request.POST.get("reason", ""),
    }
    if rewrite is not None:
        tokenized = campaign.corpus.tokenized
        context["source"] = _shown(rewrite.sentence.text, tokenized)
        context["shown_text"] = _shown(rewrite.text, tokenized)
        context["diff"] = word_diff(context["source"], context["shown_text"]) if rewrite.text else []
        before, after = sentence_context(rewrite.sentence, window=1)
        if rewrite.flag == "merge" and not after:  # no paragraph data: the next line is what MERGE joins
            after = list(
                Sentence.objects.filter(
                    corpus_id=rewrite.sentence.corpus_id, position=rewrite.sentence.position + 1
                )
            )
        context["before"] = [_shown(s.text, tokenized) for s in before]
        context["after"] = [_shown(s.text, tokenized) for s in after]
        context["remaining"] = (
            campaign.rewrites.filter(status="submitted").exclude(annotator=request.user).count()
        )
        context["reviewed"] = campaign.rewrites.filter(reviewer__isnull=False).count()
        context["author"] = pseudonym(rewrite.annotator_id, settings.SECRET_KEY)
    return render(request, "annotate/rewrite_review.html", context, status=400 if error else 200)


# --------------------------------------------------------------------------- qualification


@researcher_required
def qualification_new(request: HttpRequest) -> HttpResponse:
    projects = project_list_for(request.user)
    form = QualificationForm(
        request.POST or None, projects=projects, current_project=current_project_id(request)
    )
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        found = {
            s.position: s for s in Sentence.objects.filter(corpus=d["corpus"], position__in=d["positions"])
        }
        missing = [p for p in d["positions"] if p not in found]
        if missing:
            form.add_error("positions", f"The corpus has no line {missing[0] + 1}.")
        else:
            try:
                q = services.qualification_create(
                    project=d["project"],
                    name=d["name"],
                    sentences=[found[p] for p in d["positions"]],
                    created_by=request.user,
                    instructions=d["instructions"],
                )
            except services.RewriteError as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, f"Qualification {q.name} created.")
                return redirect("qualification", pk=q.pk)
    return render(
        request, "annotate/qualification_new.html", {"form": form}, status=400 if form.errors else 200
    )


def _reviewable_qualification(request: HttpRequest, pk: int) -> Qualification:
    """The qualification, for its project's researchers and experts (``ProjectRole``) and admins;
    ``q.can_review`` says whether this user decides attempts here."""
    q = get_object_or_404(Qualification.objects.select_related("project"), pk=pk)
    q.can_review = sel.may_review_in(request.user, q.project_id)
    if not (q.can_review or sel.may_manage(request.user, q)):
        raise PermissionDenied("researchers and experts of the project only")
    return q


@login_required
def qualification_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The review queue: each worker's answers with their automatic grades and diffs."""
    q = _reviewable_qualification(request, pk)
    tokenized = {}
    attempts = []
    for attempt in sel.qualification_review_queue(q):
        answers = []
        for a in attempt.answers.all():
            corpus_id = a.sample.sentence.corpus_id
            if corpus_id not in tokenized:
                tokenized[corpus_id] = a.sample.sentence.corpus.tokenized
            src = _shown(a.sample.sentence.text, tokenized[corpus_id])
            answers.append({"answer": a, "diff": word_diff(src, _shown(a.text, tokenized[corpus_id]))})
        attempts.append({"attempt": attempt, "answers": answers})
    context = {
        "qualification": q,
        "attempts": attempts,
        "samples": q.samples.select_related("sentence"),
        "can_review": q.can_review,
        "can_manage": sel.may_manage(request.user, q),
    }
    return render(request, "annotate/qualification_detail.html", context)


@login_required
@require_POST
def qualification_decide(request: HttpRequest, pk: int) -> HttpResponse:
    attempt = get_object_or_404(QualificationAttempt, pk=pk)
    q = _reviewable_qualification(request, attempt.qualification_id)
    decision = request.POST.get("decision")
    try:
        if decision == "retry":
            if not sel.may_manage(request.user, q):
                raise PermissionDenied("researchers only")
            services.qualification_allow_retry(attempt=attempt)
        else:
            services.qualification_review(attempt=attempt, reviewer=request.user, accept=decision == "accept")
    except services.RewriteError as exc:
        messages.error(request, str(exc))
    return redirect("qualification", pk=q.pk)


@login_required
def qualification_take(request: HttpRequest, pk: int) -> HttpResponse:
    q = get_object_or_404(Qualification.objects.select_related("project"), pk=pk)
    if not (q.project.owner_id == request.user.pk or q.project.members.filter(pk=request.user.pk).exists()):
        raise PermissionDenied("not a member of this project")
    attempt = sel.qualification_attempt_for(request.user, q)
    error = ""
    restartable = (
        attempt is not None and attempt.status == QualificationStatus.REJECTED and attempt.retry_allowed
    )
    if attempt is None or attempt.status == QualificationStatus.IN_PROGRESS or restartable:
        try:
            attempt = services.qualification_start(qualification=q, worker=request.user)
        except services.RewriteError as exc:
            error = str(exc)
    samples = list(q.samples.select_related("sentence__corpus"))
    if request.method == "POST" and attempt is not None and attempt.status == QualificationStatus.IN_PROGRESS:
        answers = {s.pk: request.POST.get(f"sample-{s.pk}", "") for s in samples}
        try:
            services.qualification_submit(attempt=attempt, answers=answers)
        except services.RewriteError as exc:
            error = str(exc)
        else:
            messages.success(request, "Thank you: an expert will review your answers.")
            return redirect("qualification-take", pk=q.pk)
    rows = [
        {
            "sample": s,
            "source": _shown(s.sentence.text, s.sentence.corpus.tokenized),
            "value": request.POST.get(f"sample-{s.pk}") if request.method == "POST" else None,
        }
        for s in samples
    ]
    context = {"qualification": q, "attempt": attempt, "rows": rows, "error": error}
    return render(request, "annotate/qualification_take.html", context, status=400 if error else 200)


@login_required
def index(request: HttpRequest) -> HttpResponse:
    """Researchers: campaigns and qualifications; workers: their campaigns; experts: review queues."""
    context = {
        "work": sel.rewrite_work_list_for(request.user),
        "reviews": sel.review_campaign_list_for(request.user),
        "campaigns": paginate(
            request,
            in_current_project(request, sel.rewrite_campaign_list_for(request.user)),
            search=("name", "corpus__name"),
            label="Search the rewrite campaigns",
            prefix="campaigns-",
        ),
        "qualifications": in_current_project(request, sel.qualification_list_for(request.user))
        if sel.may_review(request.user) or sel.rewrite_campaign_list_for(request.user).exists()
        else [],
    }
    return render(request, "annotate/rewrite_index.html", context)
