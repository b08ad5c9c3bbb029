"""The import preview keeps the upload in file storage (MEDIA_ROOT), never in the session (issue 18).

The finding: the preview kept the whole file base64-encoded in the session, which slowed every page
of that researcher about 100x until the import was confirmed."""

from __future__ import annotations

import io

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.urls import reverse

from ranking.models import Campaign
from tests import factories
from tests.crowd.test_payments_and_pages import mturk_csv

pytestmark = pytest.mark.django_db


def test_the_preview_stores_the_file_under_media_root_and_the_session_only_names_it(
    client, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    researcher = factories.user("imp", "researcher", password="imp-pass-123")
    project = factories.project(researcher, name="Imports")
    client.login(username="imp", password="imp-pass-123")
    data = mturk_csv()
    upload = io.BytesIO(data)
    upload.name = "batch.csv"
    preview = client.post(
        reverse("crowd-import"), {"file": upload, "format": "mturk-csv", "name": "old", "project": project.pk}
    )
    assert preview.status_code == 200
    stored = client.session["crowd_import"]
    assert "data" not in stored
    kept = list((tmp_path / "imports").iterdir())
    assert len(kept) == 1 and kept[0].read_bytes() == data
    assert stored["file"] == f"imports/{kept[0].name}"
    raw = SessionStore(session_key=client.session.session_key).load()
    assert len(repr(raw)) < 600  # the session holds names and choices, not the file
    mapping = preview.context["confirm"].initial["mapping"]
    done = client.post(reverse("crowd-import"), {"action": "import", "mapping": mapping})
    assert done.status_code == 302
    assert Campaign.objects.get(name="old").origin == "imported"
    assert list((tmp_path / "imports").iterdir()) == []  # imported: the kept file is gone
    assert "crowd_import" not in client.session
