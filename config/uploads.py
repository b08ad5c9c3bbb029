"""Uploads bounded while they stream (issue 18).

Django's DATA_UPLOAD_MAX_MEMORY_SIZE does not count file parts, and FILE_UPLOAD_MAX_MEMORY_SIZE only
decides memory or disk: neither stops a 120 MB corpus. ``BoundedUploadHandler`` runs first among
the upload handlers and counts every byte of every file part as it arrives; past
``UPLOAD_MAX_BYTES`` it raises ``UploadTooLarge``, and ``bad_request`` (the site's handler400)
answers 413 with a page that says the limit, wherever the body was first read. With DEBUG on,
Django answers with its technical page (status 400) instead, so the handler also marks the request and
``too_large_instead`` (called by the innermost middleware, ``config.not_found``) turns that answer into the same 413 page (issue 40: a
60 MB upload under ``make run``'s DEBUG=true showed Django's page). A request whose Content-Length is
over the limit (plus room for the form's other fields) is refused before its body is read.

A view marked with ``annotate.decorators.upload_bound("JUDGMENT_UPLOAD_MAX_BYTES")`` (the judgment
import, whose large files stream) is bounded by that setting instead. The handler finds the mark on
the resolved view: the URL is resolved before any middleware or view reads the body.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.template.defaultfilters import filesizeformat
from django.views import defaults

FORM_ROOM = 64 * 1024  # the multipart boundaries and the form's other fields
DEFAULT_BOUND = "UPLOAD_MAX_BYTES"  # the setting that bounds a view's uploads unless it says another


class UploadTooLarge(RequestDataTooBig):
    """The upload passed its bound (Django answers a RequestDataTooBig with handler400)."""

    def __init__(self, setting: str = DEFAULT_BOUND) -> None:
        super().__init__(setting)
        self.setting = setting


def bound_bytes(setting: str) -> int:
    """The value of a bound a view may name (only these: a misspelt name fails on its first upload)."""
    bounds = {
        "UPLOAD_MAX_BYTES": settings.UPLOAD_MAX_BYTES,
        "JUDGMENT_UPLOAD_MAX_BYTES": settings.JUDGMENT_UPLOAD_MAX_BYTES,
    }
    return bounds[setting]


def upload_bound(request: HttpRequest | None) -> str:
    """The name of the setting that bounds this request's uploads (its view's mark, or the default)."""
    match = getattr(request, "resolver_match", None)
    return getattr(match.func, "upload_bound", DEFAULT_BOUND) if match is not None else DEFAULT_BOUND


class BoundedUploadHandler(FileUploadHandler):
    def __init__(self, request: HttpRequest | None = None) -> None:
        super().__init__(request)
        self.setting = upload_bound(request)  # handlers are made when the body is first read
        self.total = 0

    @property
    def limit(self) -> int:
        return bound_bytes(self.setting)

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        self.total = 0
        if content_length and content_length > self.limit + FORM_ROOM:
            raise self._too_large()
        return None

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.total += len(raw_data)
        if self.total > self.limit:
            raise self._too_large()
        return raw_data  # the next handler (memory or temporary file) keeps it

    def _too_large(self) -> UploadTooLarge:
        if self.request is not None:
            self.request.upload_too_large = self.setting  # for UploadTooLargeMiddleware
        return UploadTooLarge(self.setting)

    def file_complete(self, file_size: int) -> None:
        return None


_TOO_LARGE_PAGE = engines["django"].from_string(
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Upload too large · GEC Arena</title>'
    '<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main>'
    '<h1>Upload too large</h1><p role="alert">The upload is larger than the limit of {{ limit }} '
    "({{ setting }}). Nothing was saved. Compress the file with gzip, split it, or ask the "
    "administrator to raise the limit.</p></main></body></html>"
)


def too_large_response(setting: str = DEFAULT_BOUND) -> HttpResponse:
    limit = filesizeformat(bound_bytes(setting)).replace("\xa0", " ")
    html = _TOO_LARGE_PAGE.render({"limit": limit, "setting": setting})
    response = HttpResponse(html, status=413)
    response["Connection"] = "close"  # the rest of the body is not read
    return response


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400: UploadTooLarge (a RequestDataTooBig, wherever the body was read: the CSRF check, a
    form) is a 413 with the limit; every other bad request is Django's 400."""
    if isinstance(exception, UploadTooLarge):
        return too_large_response(exception.setting)
    return defaults.bad_request(request, exception)


def too_large_instead(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """The 413 page for a request whose upload passed its bound, whatever answered it (with DEBUG on,
    Django's technical 400 page; with it off, ``bad_request`` already). Called by the innermost
    middleware (``config.not_found``), which every answer passes back through: a middleware of its own
    would deepen every request's stack, and a JSON body nested 900 levels deep then overflowed the
    parser's recursion (tests/hardening/test_api_fuzz.py)."""
    setting = getattr(request, "upload_too_large", None)
    if setting is not None and response.status_code != 413:
        return too_large_response(setting)
    return response
