from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

from annotate.roles import is_annotator, is_researcher, researches_a_project


def researcher_required(view: Callable) -> Callable:
    """Site-wide researchers, and researchers of a project (the view scopes what they see to it)."""

    @login_required
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not (is_researcher(request.user) or researches_a_project(request.user)):
            raise PermissionDenied("researchers only")
        return view(request, *args, **kwargs)

    return wrapped


def site_researcher_required(view: Callable) -> Callable:
    """The site-wide researcher role only (creating projects, uploading corpora): an administrator gives
    it on the account's page; a researcher role in a project does not (issue 36)."""

    @login_required
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not is_researcher(request.user):
            raise PermissionDenied("the site-wide researcher role is needed")
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


def upload_bound(setting: str) -> Callable[[Callable], Callable]:
    """Bound the uploads of this view by ``settings.<setting>`` instead of ``UPLOAD_MAX_BYTES``.

    The bound has to be known before the body is first read, which happens before the view runs
    (CSRF reads the form in process_view): the upload handler (``config.uploads``) reads it from
    the resolved view, as the CSRF middleware reads ``csrf_exempt``."""

    def mark(view: Callable) -> Callable:
        view.upload_bound = setting  # type: ignore[attr-defined]
        return view

    return mark
