from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

from annotate.roles import is_annotator, is_researcher


def researcher_required(view: Callable) -> Callable:
    @login_required
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not is_researcher(request.user):
            raise PermissionDenied("researchers only")
        return view(request, *args, **kwargs)

    return wrapped


def annotator_required(view: Callable) -> Callable:
    @login_required
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not is_annotator(request.user):
            raise PermissionDenied("annotators only")
        return view(request, *args, **kwargs)

    return wrapped
