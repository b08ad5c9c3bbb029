"""The Qualifications page (issue 20): experts see the attempts waiting for them and a count in the
nav; annotators see the qualifications open to them with a link to take them."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotate.rewrites import qualifications as quals
from annotate.rewrites import selectors as sel
from tests import factories

pytestmark = pytest.mark.django_db


def world():
    researcher, annotators, experts, project = factories.team(n_annotators=3, n_experts=1)
    corpus = factories.tokenized_corpus(project)
    q = quals.qualification_create(
        project=project, name="Screen <1>", sentences=list(corpus.sentences.all()[:2]), created_by=researcher
    )
    return researcher, annotators, experts[0], project, q


def submit(q, worker):
    attempt = quals.qualification_start(qualification=q, worker=worker)
    answers = {s.pk: s.sentence.text for s in q.samples.all()}
    return quals.qualification_submit(attempt=attempt, answers=answers)


def test_expert_sees_submitted_attempts_of_their_projects_and_the_count_in_the_nav(client):
    _, annotators, expert, _, q = world()
    submit(q, annotators[0])
    submit(q, annotators[1])
    quals.qualification_start(qualification=q, worker=annotators[2])  # in progress: not waiting
    # another project's attempt, the expert is not a member there: not theirs to review
    other_res = factories.user("other", "researcher")
    other = factories.project(other_res, name="Other", members=[annotators[0]])
    oc = factories.tokenized_corpus(other)
    oq = quals.qualification_create(
        project=other, name="oq", sentences=list(oc.sentences.all()[:1]), created_by=other_res
    )
    submit(oq, annotators[0])
    client.force_login(expert)
    html = client.get(reverse("qualification-list")).content.decode()
    assert "Qualifications (2 waiting)" in html
    assert "Review ann0 on Screen &lt;1&gt;" in html and "Review ann1 on Screen &lt;1&gt;" in html
    # as rows of the list, not bare substrings: a random CSRF token once held "oq" (CI, 2026-11-28)
    assert "<td>ann2</td>" not in html and "Review ann2 on" not in html
    assert "on oq</a>" not in html and "<td>Other</td>" not in html
    assert [a.worker.username for a in sel.qualification_attempts_awaiting(expert)] == ["ann0", "ann1"]


def test_a_decided_attempt_leaves_the_list(client):
    _, annotators, expert, _, q = world()
    attempt = submit(q, annotators[0])
    quals.qualification_review(attempt=attempt, reviewer=expert, accept=True)
    client.force_login(expert)
    html = client.get(reverse("qualification-list")).content.decode()
    assert "Qualifications (0 waiting)" in html and "No answers are waiting for review." in html


def test_an_expert_never_sees_their_own_attempt_as_waiting():
    _, _, expert, _, q = world()
    submit(q, expert)
    assert list(sel.qualification_attempts_awaiting(expert)) == []


def test_annotator_sees_open_qualifications_with_a_link_and_their_status(client):
    _, annotators, _expert, _, q = world()
    client.force_login(annotators[0])
    html = client.get(reverse("home")).content.decode()
    assert '<a href="/qualifications/">Qualifications</a>' in html  # no count for annotators
    html = client.get(reverse("qualification-list")).content.decode()
    take = reverse("qualification-take", args=[q.pk])
    assert f'<a href="{take}">Take Screen &lt;1&gt;</a>' in html
    assert "Waiting for your review" not in html
    submit(q, annotators[0])
    html = client.get(reverse("qualification-list")).content.decode()
    assert "awaiting review" in html and f'href="{take}"' not in html


def test_annotator_outside_the_project_sees_no_qualification(client):
    _, _, _, _, _q = world()
    stranger = factories.user("stranger", "annotator")
    client.force_login(stranger)
    html = client.get(reverse("qualification-list")).content.decode()
    assert "No qualification is open to you at the moment." in html and "Screen" not in html


def test_researchers_get_no_qualification_count_in_the_nav(client):
    researcher, *_ = world()
    client.force_login(researcher)
    assert "waiting)" not in client.get(reverse("home")).content.decode()


@pytest.mark.parametrize("n", [1, 3])
def test_the_list_takes_the_same_queries_with_one_or_three_attempts(client, n, django_assert_num_queries):
    _, annotators, expert, _, q = world()
    for a in annotators[:n]:
        submit(q, a)
    client.force_login(expert)
    with django_assert_num_queries(6):  # 7 before issue 22 read the roles with the user
        assert client.get(reverse("qualification-list")).status_code == 200
