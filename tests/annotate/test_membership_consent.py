"""Issue 36: membership by consent. An e-mail invitation is accepted only by an account with that
address; a role in a project never gives the site-wide researcher role (creating projects, uploading
corpora), which an administrator gives on the account's page."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotate.models import Project, ProjectInvitation
from annotate.projects import services
from tests import factories

pytestmark = pytest.mark.django_db


def _invite(actor, project, email="victim@example.org", role="researcher") -> str:
    return services.invitation_create(
        actor=actor, project=project, email=email, role=role, link_for=str
    ).token


def test_an_invitation_to_an_address_is_refused_to_another_signed_in_account(client):
    """The finding: an invitation sent to victim@example.org was accepted by another signed-in account."""
    res, project = factories.researcher_and_project()
    token = _invite(res, project)
    url = reverse("invitation", args=[token])
    mallory = get_user_model().objects.create_user("mallory", email="mallory@example.org", password="x")
    client.force_login(mallory)
    page = client.get(url)
    assert page.status_code == 403
    html = page.content.decode()
    assert "only an account with that e-mail address can accept it" in html and "victim@example.org" in html
    assert f'action="{reverse("logout")}"' in html and f'name="next" value="{url}"' in html  # switch accounts
    assert client.post(url).status_code == 403
    with pytest.raises(services.ProjectError, match="only an account with that e-mail address"):
        services.invitation_accept(token=token, user=mallory)
    assert not project.members.filter(pk=mallory.pk).exists()
    assert ProjectInvitation.objects.get().used is None
    # an account without any e-mail address cannot take it either
    blank = get_user_model().objects.create_user("blank", password="x")
    with pytest.raises(services.ProjectError):
        services.invitation_accept(token=token, user=blank)
    # the addressed account can, and sees it on its Projects page too
    victim = get_user_model().objects.create_user("victim", email="Victim@Example.org", password="x")
    client.force_login(victim)
    assert "invites you to Team A as researcher" in client.get(reverse("project-list")).content.decode()
    assert client.post(url).status_code == 302
    assert project.members.filter(pk=victim.pk).exists()


def test_signed_out_the_link_still_creates_the_account_with_that_address(client):
    res, project = factories.researcher_and_project()
    token = _invite(res, project, role="annotator")
    form = {"username": "newbie", "password": "long-enough-pass-1", "password2": "long-enough-pass-1"}
    assert client.post(reverse("invitation", args=[token]), form).status_code == 302
    newbie = get_user_model().objects.get(username="newbie")
    assert newbie.email == "victim@example.org" and project.members.filter(pk=newbie.pk).exists()


def test_a_researcher_role_in_a_project_gives_no_site_wide_researcher_role(client):
    """The finding: the account gained the site's researcher group, and with it corpus upload."""
    res, project = factories.researcher_and_project()
    factories.ensure_role_groups()
    guest = get_user_model().objects.create_user("guest", email="guest@example.org", password="x")
    invitation = services.member_invite(actor=res, project=project, username="guest", role="researcher")
    services.invitation_answer(invitation=invitation, user=guest, accept=True)
    assert not guest.groups.filter(name="researcher").exists()
    client.force_login(guest)
    assert client.get(reverse("project-new")).status_code == 403
    assert client.post(reverse("project-new"), {"name": "Mine"}).status_code == 403
    assert client.get(reverse("corpus-upload")).status_code == 403
    assert not Project.objects.filter(name="Mine").exists()
    # a researcher in their project all the same: its pages open
    assert client.get(reverse("project", args=[project.pk])).status_code == 200
    assert client.get(reverse("api:project-list")).json()["results"][0]["id"] == project.pk
    # an administrator gives the site-wide role on the account's page (not Django's admin)
    admin = factories.user("root", "admin")
    admin.is_superuser = True
    admin.save()
    other = Client()
    other.force_login(res)  # a researcher is not an administrator
    assert other.post(reverse("account", args=[guest.pk]), {"action": "grant-researcher"}).status_code == 403
    other.force_login(admin)
    page = other.get(reverse("account", args=[guest.pk])).content.decode()
    assert "guest does not have it." in page
    assert other.post(reverse("account", args=[guest.pk]), {"action": "grant-researcher"}).status_code == 302
    assert guest.groups.filter(name="researcher").exists()
    assert client.get(reverse("corpus-upload")).status_code == 200
    assert client.post(reverse("project-new"), {"name": "Mine"}).status_code == 302
    # and takes it away; a change of the guest's role in the project does not touch it either way
    assert other.post(reverse("account", args=[guest.pk]), {"action": "revoke-researcher"}).status_code == 302
    assert not guest.groups.filter(name="researcher").exists()


def test_a_role_change_in_a_project_keeps_the_site_wide_role_an_administrator_gave():
    res, project = factories.researcher_and_project()
    colleague = factories.user("col", "researcher")  # site-wide researcher, given by an administrator
    factories.join(actor=res, project=project, username="col", role="researcher")
    services.member_set_role(actor=res, project=project, user=colleague, role="annotator")
    assert set(colleague.groups.values_list("name", flat=True)) == {"researcher", "annotator"}


def test_the_first_account_gets_the_site_wide_researcher_role(client):
    form = {
        "username": "first",
        "email": "",
        "password1": "long-enough-pass-1",
        "password2": "long-enough-pass-1",
    }
    assert client.post(reverse("first-account"), form).status_code == 302
    first = get_user_model().objects.get(username="first")
    assert first.groups.filter(name="researcher").exists()
    assert client.get(reverse("project-new")).status_code == 200
