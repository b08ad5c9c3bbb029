"""Roles per project: a role given in one project opens that project only (ProjectRole).

Before, roles were site-wide groups and a project's researchers were its members with the
researcher group, so a role given in one project counted in every project the person was in.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from annotate.models import QualificationAttempt, QualificationStatus
from annotate.projects import services
from annotate.projects.models import ProjectRole
from annotate.rewrites import qualifications as quals
from annotate.rewrites import selectors as rewrite_selectors
from annotate.rewrites.services import RewriteError, rewrite_campaign_create
from tests import factories

pytestmark = pytest.mark.django_db


def _team(name: str, owner_name: str):
    """A project with a corpus and a judgment campaign, owned by a new researcher."""
    owner = factories.user(owner_name, "researcher")
    project = factories.project(owner, name=name)
    corpus = factories.tokenized_corpus(project, name=f"{name} corpus")
    campaign = factories.imported_campaign(
        project, f"{name} ranking", rankings=factories.synthetic_rankings(20)
    )
    return owner, project, corpus, campaign


def _invite_and_accept(client, actor, project, user, role: str) -> None:
    """The browser path: the manager sends an invitation, the signed-in person opens its link and joins
    (an account with the invitation's e-mail address: issue 36)."""
    user.email = f"{user.username}@example.org"
    user.save(update_fields=["email"])
    sent = services.invitation_create(
        actor=actor, project=project, email=f"{user.username}@example.org", role=role, link_for=str
    )
    client.force_login(user)
    joined = client.post(reverse("invitation", args=[sent.token]))
    assert joined.status_code == 302 and joined["Location"] == reverse("project", args=[project.pk])


def _api_campaign_ids(client) -> set[int]:
    body = client.get(reverse("api:campaign-list")).json()
    return {row["id"] for row in body["results"]}


def test_a_researcher_of_a_invited_into_b_as_annotator_gets_no_researcher_access_to_b(client):
    res_a, _a, corpus_a, campaign_a = _team("Team A", "resa")
    res_b, b, corpus_b, campaign_b = _team("Team B", "resb")
    _invite_and_accept(client, res_b, b, res_a, "annotator")
    assert b.members.filter(pk=res_a.pk).exists()
    assert ProjectRole.objects.get(project=b, user=res_a).role == "annotator"

    client.force_login(res_a)
    assert client.get(reverse("corpus-detail", args=[corpus_b.pk])).status_code == 404
    assert client.get(reverse("campaign-detail", args=[campaign_b.pk])).status_code == 404
    assert client.get(reverse("api:campaign-detail", args=[campaign_b.pk])).status_code == 404
    assert _api_campaign_ids(client) == {campaign_a.pk}
    page = client.get(reverse("project", args=[b.pk])).content.decode()
    assert "Add member" not in page  # not a manager of B
    # still a researcher of their own project
    assert client.get(reverse("corpus-detail", args=[corpus_a.pk])).status_code == 200
    assert client.get(reverse("campaign-detail", args=[campaign_a.pk])).status_code == 200


def test_a_researcher_of_a_added_to_b_as_annotator_by_username_gets_no_researcher_access_to_b(client):
    res_a, _a, _corpus_a, campaign_a = _team("Team A", "resa")
    res_b, b, corpus_b, _campaign_b = _team("Team B", "resb")
    client.force_login(res_b)
    added = client.post(reverse("project", args=[b.pk]), {"add-username": "resa", "add-role": "annotator"})
    assert added.status_code == 302
    client.force_login(res_a)
    assert client.get(reverse("corpus-detail", args=[corpus_b.pk])).status_code == 404
    assert _api_campaign_ids(client) == {campaign_a.pk}
    with pytest.raises(PermissionDenied):
        factories.join(actor=res_a, project=b, username="resb", role="annotator")


def test_an_annotator_of_a_made_researcher_of_b_cannot_open_a_s_researcher_pages(client):
    res_a, a, corpus_a, campaign_a = _team("Team A", "resa")
    res_b, b, corpus_b, campaign_b = _team("Team B", "resb")
    ann = factories.user("ann", "annotator")
    factories.join(actor=res_a, project=a, username="ann", role="annotator")
    factories.join(actor=res_b, project=b, username="ann", role="annotator")
    client.force_login(res_b)
    changed = client.post(reverse("project-member-role", args=[b.pk, ann.pk]), {"role": "researcher"})
    assert changed.status_code == 302
    # issue 36: a researcher role in B gives no site-wide researcher role
    assert set(ann.groups.values_list("name", flat=True)) == {"annotator"}

    client.force_login(ann)
    assert client.get(reverse("corpus-detail", args=[corpus_a.pk])).status_code == 404
    assert client.get(reverse("campaign-detail", args=[campaign_a.pk])).status_code == 404
    assert client.get(reverse("api:campaign-detail", args=[campaign_a.pk])).status_code == 404
    assert "Add member" not in client.get(reverse("project", args=[a.pk])).content.decode()
    assert client.post(reverse("project-member-remove", args=[a.pk, res_a.pk])).status_code == 403
    assert _api_campaign_ids(client) == {campaign_b.pk}
    assert client.get(reverse("corpus-detail", args=[corpus_b.pk])).status_code == 200
    assert ProjectRole.objects.get(project=a, user=ann).role == "annotator"


def test_an_annotator_of_a_invited_into_b_as_researcher_cannot_open_a_s_researcher_pages(client):
    res_a, a, corpus_a, campaign_a = _team("Team A", "resa")
    res_b, b, corpus_b, _campaign_b = _team("Team B", "resb")
    ann = factories.user("ann", "annotator")
    factories.join(actor=res_a, project=a, username="ann", role="annotator")
    _invite_and_accept(client, res_b, b, ann, "researcher")
    assert client.get(reverse("corpus-detail", args=[corpus_a.pk])).status_code == 404
    assert client.get(reverse("api:campaign-detail", args=[campaign_a.pk])).status_code == 404
    assert client.get(reverse("corpus-detail", args=[corpus_b.pk])).status_code == 200


def test_an_expert_reviews_only_in_the_projects_where_they_are_an_expert(client):
    res_a, a, corpus_a, _ = _team("Team A", "resa")
    res_b, b, corpus_b, _ = _team("Team B", "resb")
    expert = factories.user("exp", "expert")
    factories.join(actor=res_a, project=a, username="exp", role="expert")
    factories.join(actor=res_b, project=b, username="exp", role="annotator")
    reviewed = {}
    for owner, project, corpus in ((res_a, a, corpus_a), (res_b, b, corpus_b)):
        campaign = rewrite_campaign_create(
            project=project, corpus=corpus, name="rw", created_by=owner, require_review=True
        )
        q = quals.qualification_create(
            project=project, name="q", sentences=list(corpus.sentences.all()[:1]), created_by=owner
        )
        worker = factories.user(f"w{project.pk}", "annotator")
        factories.join(actor=owner, project=project, username=worker.username, role="annotator")
        attempt = quals.qualification_start(qualification=q, worker=worker)
        QualificationAttempt.objects.filter(pk=attempt.pk).update(status=QualificationStatus.SUBMITTED)
        reviewed[project.name] = (campaign, q, attempt)

    campaign_a, q_a, attempt_a = reviewed["Team A"]
    campaign_b, q_b, attempt_b = reviewed["Team B"]
    assert list(rewrite_selectors.review_campaign_list_for(expert)) == [campaign_a]
    assert list(rewrite_selectors.qualification_attempts_awaiting(expert)) == [attempt_a]
    client.force_login(expert)
    assert client.get(reverse("rewrite-review", args=[campaign_a.pk])).status_code == 200
    assert client.get(reverse("rewrite-review", args=[campaign_b.pk])).status_code == 404
    assert client.get(reverse("qualification", args=[q_a.pk])).status_code == 200
    assert client.get(reverse("qualification", args=[q_b.pk])).status_code == 403
    decide = client.post(reverse("qualification-decide", args=[attempt_b.pk]), {"decision": "accept"})
    assert decide.status_code == 403
    attempt_b.refresh_from_db()
    assert attempt_b.status == QualificationStatus.SUBMITTED
    with pytest.raises(RewriteError, match="Only experts review"):
        quals.qualification_review(attempt=attempt_b, reviewer=expert, accept=True)


def _role_cells(html: str) -> dict[str, str]:
    table = html.split('<table id="members">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>\s*<td>(.*?)</td>\s*<td>(.*?)</td>", table, flags=re.S)
    return {
        re.sub(r"<.*?>|\(owner\)", "", who).strip(): re.sub(r"<.*?>", "", role).strip() for who, role in rows
    }


def test_the_members_table_shows_each_member_s_role_in_this_project(client):
    res_a, a, _, _ = _team("Team A", "resa")
    res_b, b, _, _ = _team("Team B", "resb")
    factories.user("both", "annotator")
    factories.join(actor=res_a, project=a, username="both", role="researcher")
    factories.join(actor=res_b, project=b, username="both", role="annotator")
    client.force_login(res_a)
    assert _role_cells(client.get(reverse("project", args=[a.pk])).content.decode()) == {
        "both": "researcher",
        "resa": "researcher",
    }
    client.force_login(res_b)
    html = client.get(reverse("project", args=[b.pk])).content.decode()
    assert _role_cells(html) == {"both": "annotator", "resb": "researcher"}
    assert re.search(r'<option value="annotator" selected>', html)


def test_removing_a_member_removes_their_role_in_that_project_only():
    res_a, a, _, _ = _team("Team A", "resa")
    res_b, b, _, _ = _team("Team B", "resb")
    get_user_model().objects.create_user("ann", password="x")
    factories.join(actor=res_a, project=a, username="ann", role="expert")
    factories.join(actor=res_b, project=b, username="ann", role="expert")
    ann = get_user_model().objects.get(username="ann")
    services.member_remove(actor=res_a, project=a, user=ann)
    assert list(ProjectRole.objects.filter(user=ann).values_list("project__name", "role")) == [
        ("Team B", "expert")
    ]


def test_a_project_s_owner_is_its_researcher(client):
    res = factories.user("res", "researcher")
    client.force_login(res)
    client.post(reverse("project-new"), {"name": "Mine"})
    assert list(ProjectRole.objects.values_list("project__name", "user__username", "role")) == [
        ("Mine", "res", "researcher")
    ]


def test_the_owner_accepting_an_annotator_invitation_to_their_own_project_stays_its_researcher(client):
    owner, project, _corpus, _campaign = _team("Own", "own")
    _invite_and_accept(client, owner, project, owner, "annotator")
    assert ProjectRole.objects.get(project=project, user=owner).role == "researcher"


def test_the_django_admin_shows_the_roles_on_the_project(client):
    _res, project, _, _ = _team("Team A", "resa")
    boss = get_user_model().objects.create_superuser("boss", password="pw-for-tests-1")
    client.force_login(boss)
    url = reverse("admin:annotate_project_change", args=[project.pk])
    page = client.get(url)
    assert page.status_code == 200 and 'name="roles-0-role"' in page.content.decode()
