"""Uploads are bounded while they stream (issue 18): past UPLOAD_MAX_BYTES the request answers 413
with a page that says the limit, before the file is kept or processed.

The finding: UPLOAD_MAX_BYTES only set Django's in-memory thresholds, which do not bound file parts
(a 120 MB corpus upload ran past gunicorn's timeout)."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadhandler import MemoryFileUploadHandler
from django.test import Client, RequestFactory
from django.urls import resolve, reverse

from annotate.models import Corpus
from config.uploads import FORM_ROOM, BoundedUploadHandler, UploadTooLarge
from tests import factories

pytestmark = pytest.mark.django_db

LIMIT = 4000


@pytest.fixture
def researcher(settings):
    settings.UPLOAD_MAX_BYTES = LIMIT
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = LIMIT
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = LIMIT
    user = factories.user("res-up", "researcher")
    project = factories.project(user)
    client = Client()
    client.force_login(user)
    return client, project


def _upload(client, project, size):
    source = io.BytesIO(b"He go home .\n" * (size // 13))
    source.name = "src.txt"
    return client.post(
        "/corpora/upload/", {"project": project.pk, "name": "big", "source": source, "language": "en"}
    )


def test_a_file_over_the_limit_is_refused_with_413_and_a_page_saying_the_limit(researcher):
    client, project = researcher
    response = _upload(client, project, 3 * LIMIT)
    assert response.status_code == 413
    page = response.content.decode()
    assert "The upload is larger than the limit of 3.9 KB (UPLOAD_MAX_BYTES)." in page
    assert not Corpus.objects.exists()


def test_a_file_under_the_limit_goes_through(researcher):
    client, project = researcher
    response = _upload(client, project, LIMIT // 2)
    assert response.status_code == 302
    assert Corpus.objects.get().name == "big"


def test_the_handler_counts_the_bytes_of_a_stream_without_a_length(settings):
    """A chunked body has no Content-Length: the handler stops it after LIMIT bytes of file data."""
    settings.UPLOAD_MAX_BYTES = LIMIT
    request = RequestFactory().post("/")
    handler = BoundedUploadHandler(request)
    handler.handle_raw_input(io.BytesIO(), {}, None, b"b")
    assert handler.receive_data_chunk(b"x" * LIMIT, 0) == b"x" * LIMIT
    with pytest.raises(UploadTooLarge):
        handler.receive_data_chunk(b"x", LIMIT)
    # Handlers after it still receive what it passes on.
    assert isinstance(MemoryFileUploadHandler(request), MemoryFileUploadHandler)


def test_a_view_naming_its_own_bound_gets_it_and_a_long_content_length_is_refused_unread(settings):
    """The judgment import is marked with JUDGMENT_UPLOAD_MAX_BYTES (issue 23); the handler reads the
    mark from the resolved view, before the CSRF check reads the body. Every other view keeps
    UPLOAD_MAX_BYTES."""
    settings.UPLOAD_MAX_BYTES, settings.JUDGMENT_UPLOAD_MAX_BYTES = LIMIT, 10 * LIMIT
    for url, setting, limit in (
        (reverse("crowd-import"), "JUDGMENT_UPLOAD_MAX_BYTES", 10 * LIMIT),
        (reverse("corpus-upload"), "UPLOAD_MAX_BYTES", LIMIT),
    ):
        request = RequestFactory().post(url)
        request.resolver_match = resolve(url)
        handler = BoundedUploadHandler(request)
        assert (handler.setting, handler.limit) == (setting, limit)
        assert handler.handle_raw_input(io.BytesIO(), {}, limit + FORM_ROOM, b"b") is None
        with pytest.raises(UploadTooLarge) as caught:
            handler.handle_raw_input(io.BytesIO(), {}, limit + FORM_ROOM + 1, b"b")
        assert caught.value.setting == setting
