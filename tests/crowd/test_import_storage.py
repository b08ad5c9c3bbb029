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


def test_an_mturk_layout_the_detector_cannot_read_is_imported_from_the_web_with_a_mapping(
    client, settings, tmp_path
):
    """Issue 19: only a truly ambiguous layout asks for a mapping, and the web import must take one.
    The finding: the mapping field was on the preview page only, and a file the detector refused
    never reached the preview."""
    settings.MEDIA_ROOT = tmp_path
    researcher = factories.user("imp", "researcher", password="imp-pass-123")
    project = factories.project(researcher, name="Imports")
    client.login(username="imp", password="imp-pass-123")
    data = (
        b"HITId,AssignmentId,WorkerId,AssignmentStatus,Input.seg,Input.orig,Input.s,Answer.slider\n"
        b"X,A1,W1,Approved,7,src <b>text</b>,sysA,60\n"
    )

    def post(**extra):
        upload = io.BytesIO(data)
        upload.name = "sliders.csv"
        fields = {"file": upload, "format": "mturk-csv", "name": "sliders", "project": project.pk}
        return client.post(reverse("crowd-import"), fields | extra)

    refused = post()
    assert refused.status_code == 400
    text = refused.content.decode()
    assert "cannot detect the MTurk layout" in text and "Input.seg" in text and "Needed:" in text
    assert 'name="mapping"' in text  # the same form takes the mapping
    assert post(mapping="[1, 2]").status_code == 400  # not an object: refused, nothing kept
    assert not Campaign.objects.exists() and not (tmp_path / "imports").exists()
    mapping = (
        '{"item": "Input.seg", "source": "Input.orig", "systems": ["Input.s"], '
        '"answers": ["Answer.slider"], "answer_kind": "score"}'
    )
    preview = post(mapping=mapping)
    assert preview.status_code == 200 and "1 judgments of 1 items by 1 workers" in preview.content.decode()
    done = client.post(
        reverse("crowd-import"),
        {"action": "import", "mapping": preview.context["confirm"].initial["mapping"]},
    )
    assert done.status_code == 302
    assert Campaign.objects.get(name="sliders").protocol == "prws"


def test_a_mapping_for_a_format_that_takes_none_is_refused(client):
    researcher = factories.user("imp", "researcher", password="imp-pass-123")
    project = factories.project(researcher, name="Imports")
    client.login(username="imp", password="imp-pass-123")
    upload = io.BytesIO(b"<set/>")
    upload.name = "x.xml"
    fields = {"file": upload, "format": "appraise-xml", "name": "x", "project": project.pk, "mapping": "{}"}
    refused = client.post(reverse("crowd-import"), fields)
    assert refused.status_code == 400
    assert "read only for MTurk batch files" in refused.content.decode()
