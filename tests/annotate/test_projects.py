"""Projects in the browser (issue 20): create, members and roles, e-mail invitations, the switcher."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.exceptions import PermissionDenied
from django.urls import reverse
from django.utils import timezone

from annotate.models import Project
from annotate.projects import services
from annotate.projects.models import ProjectInvitation, ProjectRole
from annotate.projects.selectors import token_digest
from tests import factories

pytestmark = pytest.mark.django_db


def roles_of(user) -> set[str]:
    return set(user.groups.values_list("name", flat=True))


def invite(actor, project, email="new@example.org", role="expert") -> str:
    sent = services.invitation_create(
        actor=actor, project=project, email=email, role=role, link_for=lambda t: f"http://x/invitations/{t}/"
    )
    return sent.token


# --------------------------------------------------------------------------- create


def test_researcher_creates_a_project_and_owns_it(client):
    res = factories.user("res", "researcher")
    client.force_login(res)
    response = client.post(reverse("project-new"), {"name": "Team B", "description": "GEC study"})
    project = Project.objects.get(name="Team B")
    assert response.status_code == 302 and response["Location"] == reverse("project", args=[project.pk])
    assert project.owner == res and list(project.members.all()) == [res]
    assert project.description == "GEC study"
    assert client.session["current_project_id"] == project.pk


def test_annotator_cannot_create_a_project(client):
    ann = factories.user("ann", "annotator")
    client.force_login(ann)
    assert client.get(reverse("project-new")).status_code == 403
    assert client.post(reverse("project-new"), {"name": "Mine"}).status_code == 403
    with pytest.raises(PermissionDenied):
        services.project_new(actor=ann, name="Mine")
    assert not Project.objects.exists()


def test_a_taken_project_name_is_a_plain_error_on_the_name(client):
    res = factories.user("res", "researcher")
    factories.project(res, name="Team A")
    client.force_login(res)
    response = client.post(reverse("project-new"), {"name": "Team A"})
    assert response.status_code == 400
    assert "A project named &#x27;Team A&#x27; already exists." in response.content.decode()
    assert Project.objects.count() == 1


def test_project_names_and_descriptions_are_escaped(client):
    res = factories.user("res", "researcher")
    evil = "<script>alert(1)</script>"
    client.force_login(res)
    client.post(reverse("project-new"), {"name": evil, "description": "<b>bold</b>"})
    project = Project.objects.get()
    for url in (reverse("project", args=[project.pk]), reverse("project-list"), reverse("home")):
        html = client.get(url).content.decode()
        assert evil not in html and "<b>bold</b>" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # the nav switcher shows it on every page


# --------------------------------------------------------------------------- members


def test_adding_by_username_is_an_invitation_that_the_account_accepts(client):
    """Issue 36: a researcher added any account by username, without its consent."""
    res, project = factories.researcher_and_project()
    ann = get_user_model().objects.create_user("ann", password="x")
    client.force_login(res)
    response = client.post(
        reverse("project", args=[project.pk]), {"add-username": "ann", "add-role": "annotator"}
    )
    assert response.status_code == 302
    assert not project.members.filter(pk=ann.pk).exists() and roles_of(ann) == set()
    page = client.get(reverse("project", args=[project.pk])).content.decode()
    assert "If an account is called “ann”, it is invited as annotator" in page
    invitation = ProjectInvitation.objects.get(user=ann)
    answer = reverse("invitation-answer", args=[invitation.pk])
    # nobody else can answer it: not the researcher, not another account
    for other in (res, factories.user("mallory", "annotator")):
        client.force_login(other)
        assert client.post(answer, {"answer": "accept"}).status_code == 404
    client.force_login(ann)
    assert "invites you to Team A as annotator" in client.get(reverse("project-list")).content.decode()
    assert client.post(answer, {"answer": "accept"}).status_code == 302
    assert project.members.filter(pk=ann.pk).exists() and roles_of(ann) == {"annotator"}
    assert ProjectRole.objects.get(project=project, user=ann).role == "annotator"


def test_an_invited_account_may_decline():
    res, project = factories.researcher_and_project()
    ann = get_user_model().objects.create_user("ann", password="x")
    invitation = services.member_invite(actor=res, project=project, username="ann", role="expert")
    services.invitation_answer(invitation=invitation, user=ann, accept=False)
    assert not project.members.filter(pk=ann.pk).exists() and not ProjectInvitation.objects.exists()


def test_adding_an_unknown_username_says_the_same_as_a_known_one(client):
    """Issue 36: "No account is called …" told a researcher which usernames exist."""
    res, project = factories.researcher_and_project()
    get_user_model().objects.create_user("qixreal", password="x")
    client.force_login(res)
    said = {}
    for name in ("qixghost", "qixreal"):
        response = client.post(
            reverse("project", args=[project.pk]), {"add-username": name, "add-role": "expert"}
        )
        assert response.status_code == 302
        page = client.get(reverse("project", args=[project.pk])).content.decode()
        said[name] = re.sub(r'value="[\w-]{40,}"', "", page.replace(name, "NAME"))  # CSRF tokens
    assert said["qixghost"] == said["qixreal"]
    assert "No account is called" not in said["qixghost"]
    assert project.members.count() == 1
    assert list(ProjectInvitation.objects.values_list("user__username", flat=True)) == ["qixreal"]


def test_an_annotator_member_cannot_add_members(client):
    _res, project = factories.researcher_and_project()
    ann = factories.user("ann", "annotator")
    other = factories.user("other", "annotator")
    project.members.add(ann)
    client.force_login(ann)
    page = client.get(reverse("project", args=[project.pk])).content.decode()
    assert "Add member" not in page and "Send invitation" not in page
    response = client.post(
        reverse("project", args=[project.pk]), {"add-username": "other", "add-role": "researcher"}
    )
    assert response.status_code == 403
    with pytest.raises(PermissionDenied):
        factories.join(actor=ann, project=project, username="other", role="researcher")
    assert not project.members.filter(pk=other.pk).exists() and roles_of(other) == {"annotator"}


def test_a_researcher_of_project_x_cannot_manage_project_y(client):
    res_x, _x = factories.researcher_and_project("resx")
    res_y = factories.user("resy", "researcher")
    y = factories.project(res_y, name="Team Y")
    member = factories.user("ann", "annotator")
    y.members.add(member)
    client.force_login(res_x)
    assert client.get(reverse("project", args=[y.pk])).status_code == 404
    post = client.post(reverse("project", args=[y.pk]), {"add-username": "ann", "add-role": "expert"})
    assert post.status_code == 404
    remove = reverse("project-member-remove", args=[y.pk, member.pk])
    assert client.post(remove).status_code == 404
    role = reverse("project-member-role", args=[y.pk, member.pk])
    assert client.post(role, {"role": "researcher"}).status_code == 404
    for call in (
        lambda: factories.join(actor=res_x, project=y, username="ann", role="expert"),
        lambda: services.member_remove(actor=res_x, project=y, user=member),
        lambda: services.member_set_role(actor=res_x, project=y, user=member, role="researcher"),
        lambda: invite(res_x, y),
    ):
        with pytest.raises(PermissionDenied):
            call()
    assert y.members.filter(pk=member.pk).exists() and roles_of(member) == {"annotator"}
    assert not ProjectInvitation.objects.exists()


def test_role_change_sets_exactly_one_role(client):
    res, project = factories.researcher_and_project()
    ann = factories.user("ann", "annotator")
    project.members.add(ann)
    client.force_login(res)
    response = client.post(reverse("project-member-role", args=[project.pk, ann.pk]), {"role": "expert"})
    assert response.status_code == 302 and roles_of(ann) == {"expert"}


def test_role_change_refused_for_the_owner():
    res, project = factories.researcher_and_project()
    colleague = factories.user("col", "researcher")
    factories.join(actor=res, project=project, username="col", role="researcher")
    with pytest.raises(services.ProjectError, match="owner stays a researcher"):
        services.member_set_role(actor=colleague, project=project, user=res, role="annotator")
    assert roles_of(res) == {"researcher"}


def test_a_role_changes_in_this_project_only_even_for_a_member_of_projects_the_actor_does_not_manage():
    """Roles are per project: the old refusal ("a role counts in every project") is gone."""
    res, project = factories.researcher_and_project()
    shared = factories.user("shared", "annotator")
    z = factories.project(factories.user("resz", "researcher"), name="Team Z", members=[shared])
    factories.join(actor=res, project=project, username="shared", role="annotator")
    services.member_set_role(actor=res, project=project, user=shared, role="researcher")
    assert ProjectRole.objects.get(project=project, user=shared).role == "researcher"
    assert ProjectRole.objects.get(project=z, user=shared).role == "annotator"
    # the annotator group stays (the nav offers annotator work); a project role gives no site-wide
    # researcher role (issue 36)
    assert roles_of(shared) == {"annotator"}


def test_removal_asks_for_confirmation_then_removes(client):
    res, project = factories.researcher_and_project()
    ann = factories.user("ann", "annotator")
    project.members.add(ann)
    client.force_login(res)
    url = reverse("project-member-remove", args=[project.pk, ann.pk])
    confirm = client.get(url)
    assert confirm.status_code == 200 and "Remove ann from Team A?" in confirm.content.decode()
    assert project.members.filter(pk=ann.pk).exists()
    assert client.post(url).status_code == 302
    assert not project.members.filter(pk=ann.pk).exists() and roles_of(ann) == {"annotator"}


def test_the_owner_cannot_be_removed():
    res, project = factories.researcher_and_project()
    colleague = factories.user("col", "researcher")
    factories.join(actor=res, project=project, username="col", role="researcher")
    with pytest.raises(services.ProjectError, match="owner cannot be removed"):
        services.member_remove(actor=colleague, project=project, user=res)
    assert project.members.filter(pk=res.pk).exists()


# --------------------------------------------------------------------------- invitations


def test_invitation_is_mailed_with_a_link_and_only_its_hash_is_stored(client):
    res, project = factories.researcher_and_project()
    client.force_login(res)
    response = client.post(
        reverse("project", args=[project.pk]), {"invite-email": "eve@example.org", "invite-role": "expert"}
    )
    assert response.status_code == 302
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["eve@example.org"]
    token = re.search(r"/invitations/([\w-]+)/", mail.outbox[0].body).group(1)
    invitation = ProjectInvitation.objects.get()
    assert invitation.token_hash == token_digest(token) and token not in invitation.token_hash
    assert (invitation.project, invitation.email, invitation.role, invitation.invited_by) == (
        project,
        "eve@example.org",
        "expert",
        res,
    )
    assert invitation.expires - invitation.created == pytest.approx(
        timedelta(days=14), abs=timedelta(seconds=5)
    )


def test_a_bad_invitation_email_is_a_plain_error(client):
    res, project = factories.researcher_and_project()
    client.force_login(res)
    response = client.post(
        reverse("project", args=[project.pk]), {"invite-email": "nope", "invite-role": "expert"}
    )
    assert response.status_code == 400
    assert "Enter a valid e-mail address." in response.content.decode()
    assert not ProjectInvitation.objects.exists() and mail.outbox == []


def test_a_new_person_signs_up_from_the_link_and_joins_with_the_role(client):
    res, project = factories.researcher_and_project()
    token = invite(res, project, role="expert")
    url = reverse("invitation", args=[token])
    page = client.get(url)
    assert page.status_code == 200 and "Join Team A" in page.content.decode()
    response = client.post(
        url, {"username": "eve", "password": "a-long-passphrase-9", "password2": "a-long-passphrase-9"}
    )
    assert response.status_code == 302 and response["Location"] == reverse("project", args=[project.pk])
    eve = get_user_model().objects.get(username="eve")
    assert eve.email == "new@example.org" and eve.check_password("a-long-passphrase-9")
    assert project.members.filter(pk=eve.pk).exists() and roles_of(eve) == {"expert"}
    assert client.session["_auth_user_id"] == str(eve.pk)
    assert client.get(response["Location"]).status_code == 200  # signed in for the next request
    invitation = ProjectInvitation.objects.get()
    assert invitation.used is not None and invitation.used_by == eve


def test_signup_applies_the_password_validators_and_saves_nothing_on_error(client):
    res, project = factories.researcher_and_project()
    token = invite(res, project)
    url = reverse("invitation", args=[token])
    response = client.post(url, {"username": "eve", "password": "123", "password2": "123"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "This password is too short." in html and "This password is entirely numeric." in html
    assert not get_user_model().objects.filter(username="eve").exists()
    assert ProjectInvitation.objects.get().used is None


def test_a_used_invitation_link_says_so_and_cannot_be_used_twice(client):
    res, project = factories.researcher_and_project()
    token = invite(res, project)
    stale = ProjectInvitation.objects.get()  # read before the first use, as a racing request would
    first = factories.user("first", "annotator")
    second = factories.user("second", "annotator")
    get_user_model().objects.filter(pk__in=[first.pk, second.pk]).update(email="new@example.org")
    first.refresh_from_db()
    second.refresh_from_db()
    services.invitation_accept(token=token, user=first)
    with pytest.raises(services.ProjectError, match="already used"):
        services.invitation_accept(token=token, user=second)
    # the single-use guarantee is the conditional UPDATE, not the earlier read
    assert ProjectInvitation.objects.filter(pk=stale.pk, used__isnull=True).update(used=timezone.now()) == 0
    page = client.get(reverse("invitation", args=[token]))
    assert page.status_code == 410 and "This invitation was already used." in page.content.decode()
    signup = client.post(
        reverse("invitation", args=[token]), {"username": "x", "password": "p", "password2": "p"}
    )
    assert signup.status_code == 410 and not get_user_model().objects.filter(username="x").exists()
    assert not project.members.filter(pk=second.pk).exists() and roles_of(second) == {"annotator"}


def test_the_loser_of_a_race_gets_no_account(monkeypatch):
    res, project = factories.researcher_and_project()
    token = invite(res, project)
    winner = factories.user("winner", "annotator")
    real = services.invitation_problem
    calls = []

    def problem_then_race(invitation, **kw):
        # the signup's check passes, then someone else uses the link before the UPDATE
        if not calls:
            calls.append(1)
            answer = real(invitation, **kw)
            ProjectInvitation.objects.filter(pk=invitation.pk).update(used=timezone.now(), used_by=winner)
            return answer
        return ""

    monkeypatch.setattr(services, "invitation_problem", problem_then_race)
    with pytest.raises(services.ProjectError, match="already used"):
        services.invitation_signup(
            token=token, username="late", password="a-long-passphrase-9", password2="a-long-passphrase-9"
        )
    assert not get_user_model().objects.filter(username="late").exists()


def test_an_expired_invitation_says_so(client):
    res, project = factories.researcher_and_project()
    token = invite(res, project)
    ProjectInvitation.objects.update(expires=timezone.now() - timedelta(minutes=1))
    page = client.get(reverse("invitation", args=[token]))
    assert page.status_code == 410 and "This invitation expired on" in page.content.decode()
    with pytest.raises(services.ProjectError, match="expired"):
        services.invitation_accept(token=token, user=factories.user("late", "annotator"))


def test_an_unknown_token_is_a_404_with_plain_words(client):
    page = client.get(reverse("invitation", args=["not-a-token"]))
    assert page.status_code == 404 and "This invitation link is not valid." in page.content.decode()


def test_a_signed_in_user_accepts_the_invitation(client):
    res, project = factories.researcher_and_project()
    token = invite(res, project, role="annotator")
    someone = get_user_model().objects.create_user("someone", email="New@Example.org", password="x")
    client.force_login(someone)
    page = client.get(reverse("invitation", args=[token]))
    assert "You are signed in as someone." in page.content.decode()
    assert client.post(reverse("invitation", args=[token])).status_code == 302
    assert project.members.filter(pk=someone.pk).exists() and roles_of(someone) == {"annotator"}


# --------------------------------------------------------------------------- nav


def test_switcher_shows_the_current_project_and_switches(client):
    res, a = factories.researcher_and_project()
    b = factories.project(res, name="Team B")
    client.force_login(res)
    html = client.get(reverse("project-list")).content.decode()
    assert f'<option value="{a.pk}" selected>Team A</option>' in html  # the first by name by default
    response = client.post(reverse("project-switch"), {"project": b.pk, "next": reverse("rewrite-index")})
    assert response["Location"] == reverse("rewrite-index")
    html = client.get(reverse("project-list")).content.decode()
    assert f'<option value="{b.pk}" selected>Team B</option>' in html


def test_switching_to_a_project_one_does_not_belong_to_is_refused(client):
    res, _ = factories.researcher_and_project()
    other = factories.project(factories.user("o", "researcher"), name="Secret")
    client.force_login(res)
    client.post(reverse("project-switch"), {"project": other.pk, "next": "https://evil.example/"})
    assert client.session.get("current_project_id") is None
    html = client.get(reverse("project-list")).content.decode()
    assert "Secret" not in html


def test_switch_never_redirects_off_site(client):
    res, a = factories.researcher_and_project()
    client.force_login(res)
    response = client.post(reverse("project-switch"), {"project": a.pk, "next": "https://evil.example/"})
    assert response["Location"] == reverse("project-list")


def test_annotators_and_experts_see_their_projects_in_the_switcher(client):
    _res, project = factories.researcher_and_project()
    ann = factories.user("ann", "annotator")
    project.members.add(ann)
    client.force_login(ann)
    html = client.get(reverse("home")).content.decode()
    assert f'<option value="{project.pk}" selected>Team A</option>' in html


def test_only_admins_get_the_admin_link(client):
    res, _ = factories.researcher_and_project()
    admin = get_user_model().objects.create_superuser("root", password="x")
    admin_role = factories.user("boss", "admin")
    client.force_login(res)
    assert 'href="/admin/"' not in client.get(reverse("home")).content.decode()
    for user in (admin, admin_role):
        client.force_login(user)
        assert '<a href="/admin/">Admin</a>' in client.get(reverse("home")).content.decode()


def test_the_member_and_invitation_forms_start_at_the_least_privileged_role(client):
    res, project = factories.researcher_and_project()
    client.force_login(res)
    page = client.get(reverse("project", args=[project.pk])).content.decode()
    for prefix in ("add", "invite"):
        select = re.search(rf'<select name="{prefix}-role".*?</select>', page, re.S).group(0)
        assert re.search(r'<option value="annotator" selected>', select), select


def test_one_invitation_form_invites_several_addresses_each_with_its_own_link(client):
    res, project = factories.researcher_and_project()
    client.force_login(res)
    response = client.post(
        reverse("project", args=[project.pk]),
        {
            "invite-email": "a@example.org, b@example.org\nc@example.org A@example.org",
            "invite-role": "annotator",
        },
    )
    assert response.status_code == 302
    assert [m.to for m in mail.outbox] == [["a@example.org"], ["b@example.org"], ["c@example.org"]]
    assert sorted(ProjectInvitation.objects.values_list("email", flat=True)) == [
        "a@example.org",
        "b@example.org",
        "c@example.org",
    ]
    tokens = {re.search(r"/invitations/([\w-]+)/", m.body).group(1) for m in mail.outbox}
    assert len(tokens) == 3
    bad = client.post(
        reverse("project", args=[project.pk]), {"invite-email": "d@example.org nope", "invite-role": "expert"}
    )
    assert bad.status_code == 400
    assert "Enter a valid e-mail address. Not one: nope." in bad.content.decode()
    assert ProjectInvitation.objects.count() == 3  # nothing sent when one address is bad
