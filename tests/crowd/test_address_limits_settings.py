"""Issue 40: the per-address limits are the campaign's, seen and set on the crowd page (the server's
settings are the defaults), and a "shared network" preset serves a lab or a classroom: no address
limits, a reusable link admits at most its seats, one identity per browser."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from crowd.models import CrowdSession, CrowdSettings, CrowdWorker
from crowd.services.sessions import address_limits, invite_links_create, visit_hit_limit
from ranking.models import Assignment, AssignmentStatus
from tests.factories import crowd_campaign

pytestmark = pytest.mark.django_db

ROOM = "198.51.100.7"


@pytest.fixture
def server_defaults(settings):
    settings.LIVE_ASSIGNMENTS_PER_ADDRESS = 2
    settings.INVITE_IDENTITIES_PER_ADDRESS_PER_DAY = 3


@pytest.fixture
def made(server_defaults):
    return crowd_campaign(judgments_per_item=4)  # 2 HITs x 4 slots


def _crowd(campaign, **fields) -> CrowdSettings:
    crowd = CrowdSettings.objects.get(campaign=campaign)
    for name, value in fields.items():
        setattr(crowd, name, value)
    crowd.save()
    return crowd


def _visit(client, invite, ip=ROOM):
    entry = client.get(reverse("crowd-invite", args=[invite.code]), REMOTE_ADDR=ip)
    if entry.status_code != 302:
        return entry.status_code, entry
    url = entry["Location"]
    client.post(url, {"consent": "yes"}, REMOTE_ADDR=ip)
    return 302, client.get(url, REMOTE_ADDR=ip)


def _working(page) -> bool:
    return "ranking/work_rank.html" in [t.name for t in page.templates]


def test_the_server_settings_are_the_defaults_and_the_campaign_overrides_them(made):
    _, _, campaign = made
    crowd = CrowdSettings.objects.get(campaign=campaign)
    assert address_limits(crowd) == (2, 3)
    crowd = _crowd(campaign, live_per_address=5, identities_per_address_day=0)
    assert address_limits(crowd) == (5, 0)
    assert address_limits(_crowd(campaign, shared_network=True, seats=30)) == (0, 0)


def test_a_campaigns_own_limit_of_new_people_per_address_replaces_the_servers(made):
    _, _, campaign = made
    _crowd(campaign, identities_per_address_day=1)
    (invite,) = invite_links_create(campaign=campaign, count=1, reusable=True)
    codes = [
        Client().get(reverse("crowd-invite", args=[invite.code]), REMOTE_ADDR=ROOM).status_code
        for _ in range(3)
    ]
    assert codes == [302, 429, 429]


def test_a_campaigns_own_live_limit_per_address_replaces_the_servers(made):
    _, _, campaign = made
    _crowd(campaign, live_per_address=1)
    (invite,) = invite_links_create(campaign=campaign, count=1, reusable=True)
    first, second = (_visit(Client(), invite)[1] for _ in range(2))
    assert _working(first)
    assert "Other HITs of this study are open from your network already." in second.content.decode()


def test_a_shared_network_serves_a_classroom_up_to_its_seats_one_identity_per_browser(made):
    """The finding: the third student in a room saw "Other HITs ... from your network", the fourth 429."""
    _, _, campaign = made
    _crowd(campaign, shared_network=True, seats=4)
    (invite,) = invite_links_create(campaign=campaign, count=1, reusable=True)
    students = [Client() for _ in range(4)]
    pages = [_visit(student, invite)[1] for student in students]
    assert all(_working(page) for page in pages)  # four HITs live from one address at once
    assert Assignment.objects.filter(status=AssignmentStatus.ACTIVE).count() == 4
    # the fifth browser finds every seat taken
    status, refused = _visit(Client(), invite)
    assert status == 403
    assert "All 4 places of this study&#x27;s link are taken." in refused.content.decode()
    # a student who lost the link's cookie (not the browser) keeps their place and identity
    workers = set(CrowdSession.objects.values_list("worker_id", flat=True))
    students[0].cookies.pop(f"crowd_invite_{campaign.pk}")
    again = students[0].get(reverse("crowd-invite", args=[invite.code]), REMOTE_ADDR=ROOM)
    assert again.status_code == 302
    assert set(CrowdSession.objects.values_list("worker_id", flat=True)) == workers
    assert CrowdWorker.objects.filter(platform="invite").count() == 4


def test_the_crowd_page_says_which_limits_apply_and_what_they_protect_against(made):
    researcher, _, campaign = made
    client = Client()
    client.force_login(researcher)
    url = reverse("crowd-campaign", args=[campaign.pk])
    page = client.get(url).content.decode()
    assert "at most <strong>2</strong> live HITs at once from one address" in page
    assert "against one person holding many HITs by opening the link again and again" in page
    assert "at most <strong>3</strong> new people a day from one address" in page
    assert "against one person becoming many workers by dropping the link's cookie" in page
    assert "Empty: the server default (2); 0: no limit." in page
    form = {
        "hits_per_visit": 0,
        "fee_percent": "0",
        "live_per_address": "",
        "identities_per_address_day": "",
        "shared_network": "on",
        "seats": "",
    }
    client.post(reverse("crowd-settings", args=[campaign.pk]), form)
    assert CrowdSettings.objects.get(campaign=campaign).shared_network is False  # no seats: refused
    client.post(reverse("crowd-settings", args=[campaign.pk]), form | {"seats": "25"})
    crowd = CrowdSettings.objects.get(campaign=campaign)
    assert (crowd.shared_network, crowd.seats) == (True, 25)
    page = client.get(url).content.decode()
    assert "a reusable link admits at most <strong>25</strong> people in all, one per browser" in page


def test_an_invite_visit_goes_on_until_no_work_is_left_unless_the_campaign_says_otherwise(server_defaults):
    """The finding: an invite visit ended after one HIT by default."""
    _, _, campaign = crowd_campaign(judgments_per_item=1, hits_per_visit=None)  # 2 HITs, one slot each
    crowd = CrowdSettings.objects.get(campaign=campaign)
    assert (
        visit_hit_limit(crowd, "invite"),
        visit_hit_limit(crowd, "prolific"),
        visit_hit_limit(crowd, "mturk"),
    ) == (
        0,
        1,
        1,
    )
    _crowd(campaign, hits_per_visit=3)
    crowd.refresh_from_db()
    assert (
        visit_hit_limit(crowd, "invite"),
        visit_hit_limit(crowd, "prolific"),
        visit_hit_limit(crowd, "mturk"),
    ) == (
        3,
        3,
        1,
    )
    _crowd(campaign, hits_per_visit=None)
    (invite,) = invite_links_create(campaign=campaign, count=1)
    client = Client()
    status, page = _visit(client, invite)
    assert status == 302 and _working(page)
    url = reverse("crowd-invite", args=[invite.code])
    session = CrowdSession.objects.get()
    assignment = session.assignments.get()
    Assignment.objects.filter(pk=assignment.pk).update(status=AssignmentStatus.SUBMITTED)
    work_url = client.get(url, REMOTE_ADDR=ROOM)["Location"]
    after = client.get(work_url + "?done=1", REMOTE_ADDR=ROOM).content.decode()
    assert "HIT complete: thank you! You have finished 1 HIT." in after  # not the end page: more work
