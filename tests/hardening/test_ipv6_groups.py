"""Per-address limits count an IPv6 client by its /64 (issue 36 review, finding 5).

Every per-address limit keyed on the full address, so one subscriber's /64 (2**64 addresses) had an
unlimited number of them: a new address per guess, per crowd visit. The stored address stays whole.
"""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from annotate.http import address_group
from crowd.models import CrowdSession
from crowd.services.sessions import invite_links_create
from ranking.models import Assignment, AssignmentStatus
from tests import factories
from tests.factories import crowd_campaign

pytestmark = pytest.mark.django_db


def test_address_groups():
    assert address_group("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert address_group("::ffff:198.51.100.7") == "198.51.100.7"
    assert address_group("198.51.100.7") == "198.51.100.7"
    assert address_group("") == ""


def test_login_guesses_from_many_addresses_of_one_ipv6_64_share_the_per_address_limit(settings):
    cache.clear()
    settings.LOGIN_FAILURES_MAX = 5
    settings.LOGIN_FAILURES_MAX_PER_IP = 50
    factories.user("v6-user", "researcher", password="right-pass-123")
    for i in range(1, 7):  # six guesses, each from a new address of the same /64
        Client().post(
            "/accounts/login/",
            {"username": "v6-user", "password": "wrong"},
            REMOTE_ADDR=f"2001:db8:1:2::{i:x}",
        )
    right = {"username": "v6-user", "password": "right-pass-123"}
    assert Client().post("/accounts/login/", right, REMOTE_ADDR="2001:db8:1:2:dead::beef").status_code == 429
    assert Client().post("/accounts/login/", right, REMOTE_ADDR="2001:db8:1:3::1").status_code == 302
    cache.clear()


def _visit(invite, ip):
    client = Client()
    url = client.get(reverse("crowd-invite", args=[invite.code]), REMOTE_ADDR=ip)["Location"]
    client.post(url, {"consent": "yes"}, REMOTE_ADDR=ip)
    return client.get(url, REMOTE_ADDR=ip)


def test_crowd_visits_from_one_ipv6_64_hold_the_live_hits_of_one_address(settings):
    settings.LIVE_ASSIGNMENTS_PER_ADDRESS = 2
    settings.INVITE_IDENTITIES_PER_ADDRESS_PER_DAY = 0
    campaign = crowd_campaign(judgments_per_item=4)[2]
    (invite,) = invite_links_create(campaign=campaign, count=1, reusable=True)
    for i in range(1, 6):
        _visit(invite, f"2001:db8:7:7::{i:x}")
    assert Assignment.objects.filter(status=AssignmentStatus.ACTIVE).count() == 2
    assert set(CrowdSession.objects.values_list("client_address", flat=True)) >= {
        "2001:db8:7:7::1"
    }  # kept whole
    _visit(invite, "2001:db8:7:8::1")  # another /64 still gets work
    assert Assignment.objects.filter(status=AssignmentStatus.ACTIVE).count() == 3


def test_a_reusable_link_counts_new_identities_of_one_ipv6_64_as_one_address(settings):
    settings.LIVE_ASSIGNMENTS_PER_ADDRESS = 0
    settings.INVITE_IDENTITIES_PER_ADDRESS_PER_DAY = 3
    campaign = crowd_campaign(judgments_per_item=4)[2]
    (invite,) = invite_links_create(campaign=campaign, count=1, reusable=True)
    url = reverse("crowd-invite", args=[invite.code])
    codes = [Client().get(url, REMOTE_ADDR=f"2001:db8:9:9::{i:x}").status_code for i in range(1, 6)]
    assert codes == [302, 302, 302, 429, 429]
    assert Client().get(url, REMOTE_ADDR="2001:db8:9:a::1").status_code == 302
