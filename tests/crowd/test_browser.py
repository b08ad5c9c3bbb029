"""Crowd flows in Debian's Chromium: MTurk inside an iframe of another origin, Prolific, invite links."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.urls import reverse

from crowd.models import CrowdSession
from crowd.services.sessions import campaign_key
from ranking.models import Assignment, ScreenJudgment
from tests.factories import crowd_campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class StandIn:
    """Another local origin: serves a page framing the task (like MTurk) and records what is sent back."""

    def __init__(self):
        self.frame_src = ""
        self.received: list[tuple[str, str, dict]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, body: str, status: int = 200):
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                path = urlsplit(self.path)
                if path.path == "/favicon.ico":
                    self._send("", 404)
                elif path.path == "/frame":
                    self._send(
                        "<!doctype html><title>Worker site</title><h1>Stand-in worker site</h1>"
                        f'<iframe id="task" title="task" src="{outer.frame_src}" width="100%" height="800"></iframe>'
                    )
                else:
                    outer.received.append(("GET", path.path, parse_qs(path.query)))
                    self._send("<!doctype html><title>Recorded</title><p id='recorded'>recorded</p>")

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length).decode()
                outer.received.append(("POST", self.path, parse_qs(body)))
                self._send(
                    "<!doctype html><title>Submitted</title><p id='recorded'>submitted to the stand-in</p>"
                )

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stand_in():
    with StandIn() as server:
        yield server


def rank_all(frame):
    """Rank every output of the screen (the last shown is best), then submit."""
    items = frame.locator(".rank-item")
    items.first.wait_for()
    count = items.count()
    assert 2 <= count <= 3
    submit = frame.locator("#submit")
    assert submit.is_disabled()
    for i in range(count):
        items.nth(i).locator(f"input[type=radio][value='{count - i}']").check()
    frame.locator("#submit:enabled").wait_for()
    screen = frame.locator("input[name=screen]").get_attribute("value")
    submit.click()
    frame.locator(f"input[name=screen][value='{screen}']").wait_for(state="detached")


def test_mturk_external_question_inside_a_foreign_iframe_preview_accept_work_submit(
    live_server, new_page, stand_in, settings
):
    settings.CROWD_MTURK_FRAME_ANCESTORS = [stand_in.origin]
    settings.CROWD_MTURK_SUBMIT_ORIGINS = [stand_in.origin]
    _, _, campaign = crowd_campaign()
    task = live_server.url + reverse("crowd-mturk", args=[campaign_key(campaign)])
    page = new_page()
    context = page.context

    # Preview: an example screen, nothing to submit, no session made.
    stand_in.frame_src = (
        task + "?" + urlencode({"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "H1"})
    )
    page.goto(stand_in.origin + "/frame")
    frame = page.frame_locator("#task")
    frame.locator("#preview-note").wait_for()
    assert frame.locator("form").count() == 0
    assert frame.locator(".candidate").count() >= 2
    assert not CrowdSession.objects.exists()

    # Accepted: MTurk reloads the frame with the real assignment.
    params = {"assignmentId": "ASG1", "hitId": "H1", "workerId": "AWORKER1", "turkSubmitTo": stand_in.origin}
    stand_in.frame_src = task + "?" + urlencode(params)
    page.goto(stand_in.origin + "/frame")
    frame = page.frame_locator("#task")
    context.clear_cookies()  # nothing may depend on (third-party) cookies
    frame.get_by_label("I have read the above and agree to take part").check()
    frame.locator("#start").click()
    for _ in range(2):
        context.clear_cookies()
        rank_all(frame)
    frame.locator("#submit-to-mturk").wait_for()
    page.set_viewport_size({"width": 375, "height": 900})
    page.screenshot(path="/tmp/crowd-mturk-iframe.png", full_page=True)
    frame.locator("#submit-to-mturk").click()
    frame.locator("#recorded").wait_for()
    assert stand_in.received == [
        ("POST", "/mturk/externalSubmit", {"assignmentId": ["ASG1"], "completion": ["done"]})
    ]
    session = CrowdSession.objects.get()
    assert session.worker.external_id == "AWORKER1"
    # counted once MTurk confirms the submission (issue 35): held until then
    finished = Assignment.objects.get(worker=session.worker.user)
    assert (finished.status, finished.hold_reason) == ("held", "unconfirmed")
    assert ScreenJudgment.objects.filter(judge=session.worker.user).count() == 2


def test_prolific_study_url_to_consent_work_and_completion_redirect(
    live_server, new_page, stand_in, settings
):
    settings.CROWD_PROLIFIC_COMPLETION_URL = stand_in.origin + "/submissions/complete"
    _, _, campaign = crowd_campaign()
    url = live_server.url + reverse("crowd-prolific", args=[campaign_key(campaign)])
    page = new_page()
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(url + "?" + urlencode({"PROLIFIC_PID": "60aa11", "STUDY_ID": "st1", "SESSION_ID": "sub1"}))
    page.get_by_text("We store your answers without your name.").wait_for()
    page.screenshot(path="/tmp/crowd-consent.png", full_page=True)
    page.get_by_label("I have read the above and agree to take part").check()
    page.locator("#start").click()
    for _ in range(2):
        rank_all(page)
    page.locator("#recorded").wait_for()
    assert stand_in.received == [("GET", "/submissions/complete", {"cc": ["PROLIFIC-OK"]})]
    assert CrowdSession.objects.get().outcome == "completed"


def test_invite_link_made_by_the_researcher_taken_by_a_worker_to_the_completion_code(live_server, new_page):
    _, _, campaign = crowd_campaign(hits_per_visit=2)
    researcher = new_page()
    researcher.goto(live_server.url + "/accounts/login/")
    researcher.get_by_label("Username").fill("res")
    researcher.get_by_label("Password").fill("res-pass-123")
    researcher.keyboard.press("Enter")
    researcher.wait_for_url(live_server.url + "/")
    researcher.goto(live_server.url + reverse("crowd-campaign", args=[campaign.pk]))
    researcher.get_by_label("Number of links").fill("1")
    researcher.locator("#make-invites").click()
    researcher.get_by_text("1 invite link created.").wait_for()
    researcher.screenshot(path="/tmp/crowd-campaign.png", full_page=True)
    link = researcher.locator("input.invite-link").first.input_value()
    assert link.startswith(live_server.url + "/")  # shown absolute, ready to send

    worker = new_page()
    worker.set_viewport_size({"width": 375, "height": 800})
    worker.goto(link)
    worker.get_by_label("I have read the above and agree to take part").check()
    worker.keyboard.press("Enter")
    for _ in range(2):
        rank_all(worker)
    worker.get_by_text("HIT complete: thank you!").wait_for()
    worker.locator("#next-hit").click()
    for _ in range(2):
        rank_all(worker)
    worker.locator("#completion-code").wait_for()
    assert worker.locator("#completion-code").inner_text() == "C0DE-42"
    worker.screenshot(path="/tmp/crowd-invite-end.png", full_page=True)

    researcher.reload()
    researcher.set_viewport_size({"width": 375, "height": 800})
    researcher.screenshot(path="/tmp/crowd-campaign-phone.png", full_page=True)
    assert researcher.locator("#worker-pay tbody tr").count() == 1
    assert "1.00" in researcher.locator("#worker-pay").inner_text()  # 2 HITs x 0.50
