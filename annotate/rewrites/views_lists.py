"""The Qualifications page: attempts waiting for an expert's decision, tests open to a worker."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotate.rewrites import selectors as sel


@login_required
def qualification_list(request: HttpRequest) -> HttpResponse:
    user = request.user
    context = {
        "can_review": sel.may_review(user),
        "waiting": sel.qualification_attempts_awaiting(user),
        "open": sel.qualifications_open_to(user),
    }
    return render(request, "annotate/qualification_list.html", context)
