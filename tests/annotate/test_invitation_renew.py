"""Issue 40: the project page lists the e-mail invitations not used yet with their state, and a
"Send a new link" button per row: only a hash of each token is stored, so the old link cannot be
shown; a new token replaces it (the old link stops working) and is mailed again."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from annotate.projects import services
from annotate.projects.models import ProjectInvitation
from annotate.projects.selectors import invitation_for_token
from tests import factories

pytestmark = pytest.mark.django_db

ODD = "o'neil&co@example.org"  # a valid address whose characters HTML must escape


def _invite(actor, project, email: str) -> str:
    link = lambda t: f"http://testserver/invitations/{t}/"  # noqa: E731
    return services.invitation_create(
        actor=actor, project=project, email=email, role="annotator", link_for=link
    ).token


def _token(message) -> str:
    return re.search(r"/invitations/([\w-]+)/", message.body).group(1)


def test_pending_invitations_show_their_state_escaped_with_a_keyboard_usable_new_link_button(client):
    res, project = factories.researcher_and_project()
    _invite(res, project, "waiting@example.org")
    _invite(res, project, ODD)
    ProjectInvitation.objects.filter(email=ODD).update(expires=timezone.now() - timedelta(hours=1))
    client.force_login(res)
    page = client.get(reverse("project", args=[project.pk])).content.decode()
    table = page[
        page.index('<table id="invitations"') : page.index("</table>", page.index('id="invitations"'))
    ]
    rows = table.split("<tr>")[2:]
    assert len(rows) == 2
    odd = next(r for r in rows if "o&#x27;neil&amp;co@example.org" in r)
    waiting = next(r for r in rows if "waiting@example.org" in r)
    assert "<strong>expired</strong>" in odd and "waiting, link valid until" in waiting
    assert "o'neil&co" not in page  # escaped everywhere, the button's label included
    for row, invitation in zip(
        (odd, waiting),
        ProjectInvitation.objects.filter(email__in=[ODD, "waiting@example.org"]).order_by("email"),
    ):
        action = reverse("project-invitation-renew", args=[project.pk, invitation.pk])
        assert f'<form method="post" action="{action}">' in row  # a real form: Tab, then Enter or Space
        assert '<button type="submit" aria-label="Send a new link to ' in row


def test_send_a_new_link_revokes_the_old_one_and_mails_a_fresh_one_valid_for_the_full_time(client):
    res, project = factories.researcher_and_project()
    old = _invite(res, project, ODD)
    invitation = ProjectInvitation.objects.get()
    ProjectInvitation.objects.filter(pk=invitation.pk).update(expires=timezone.now() - timedelta(days=1))
    mail.outbox.clear()
    client.force_login(res)
    response = client.post(reverse("project-invitation-renew", args=[project.pk, invitation.pk]), follow=True)
    assert response.status_code == 200
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [ODD]
    new = _token(mail.outbox[0])
    assert new != old and invitation_for_token(old) is None
    assert invitation_for_token(new).pk == invitation.pk  # the same invitation, its new link
    assert f"/invitations/{new}/" in response.content.decode()  # shown once, to the researcher
    renewed = ProjectInvitation.objects.get()
    assert renewed.expires - timezone.now() == pytest.approx(timedelta(days=14), abs=timedelta(seconds=30))
    assert services.invitation_problem(renewed) == ""

    signup = client.get(reverse("invitation", args=[old]))
    assert "not valid" in signup.content.decode()


def test_only_the_projects_managers_renew_and_a_used_invitation_gets_no_new_link(client):
    res, project = factories.researcher_and_project()
    _invite(res, project, "eve@example.org")
    invitation = ProjectInvitation.objects.get()
    url = reverse("project-invitation-renew", args=[project.pk, invitation.pk])
    factories.user("ann", "annotator")
    factories.join(actor=res, project=project, username="ann", role="annotator")
    before = ProjectInvitation.objects.get(pk=invitation.pk).token_hash
    client.force_login(factories.user("other", "researcher"))
    assert client.post(url).status_code == 404  # not their project
    client.logout()
    client.force_login(get_user_model().objects.get(username="ann"))
    assert client.post(url).status_code == 403  # a member, not a manager
    assert client.get(url).status_code == 405  # a change is a POST
    ProjectInvitation.objects.filter(pk=invitation.pk).update(used=timezone.now())
    client.force_login(res)
    assert client.post(url).status_code == 404  # no longer pending
    assert ProjectInvitation.objects.get(pk=invitation.pk).token_hash == before
