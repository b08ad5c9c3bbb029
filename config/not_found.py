"""A 404 is a plain page for workers, even with DEBUG on.

Django answers an unknown address or a view's ``Http404`` with its technical page when DEBUG is
on: URL patterns and the raised message ("no such assignment of yours"), which a worker should
never read. This middleware turns such an answer into templates/404.html for everyone but
researchers and staff (who keep Django's page while developing). It leaves alone a 404 a view
rendered on purpose (its own page) and the API's JSON. With DEBUG off Django's ``handler404``
renders the same template. Being the innermost middleware, it also turns any answer to an upload past
its bound into the 413 page (``config.uploads.too_large_instead``; Django's DEBUG page otherwise)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from annotate.roles import is_researcher
from config.uploads import too_large_instead


def plain_not_found(request: HttpRequest) -> HttpResponse:
    return render(request, "404.html", status=404)


def _for_a_worker(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and (user.is_staff or is_researcher(user)):
        return False
    return not request.path.startswith("/api/")


class PlainNotFoundMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = too_large_instead(request, self.get_response(request))  # issue 40: DEBUG or not
        unresolved = getattr(request, "resolver_match", None) is None
        if response.status_code == 404 and unresolved and _for_a_worker(request):
            return plain_not_found(request)  # no URL matched: Django's page would list the patterns
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Http404) and _for_a_worker(request):
            return plain_not_found(request)
        return None
