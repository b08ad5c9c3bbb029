"""Query counts of the rewrite lists at 1 and 3 items: an N+1 shows up as a failure."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotate.rewrites import selectors as sel
from annotate.rewrites import services as svc
from annotate.roles import user_roles
from tests.factories import team, tokenized_corpus

pytestmark = pytest.mark.django_db


def campaigns(n: int):
    researcher, annotators, experts, project = team(n_annotators=2, n_experts=1)
    corpus = tokenized_corpus(project)
    q = svc.qualification_create(
        project=project, name="q", sentences=list(corpus.sentences.all()[:2]), created_by=researcher
    )
    for i in range(n):
        svc.rewrite_campaign_create(
            project=project,
            corpus=corpus,
            name=f"c{i}",
            created_by=researcher,
            groups=[Group.objects.get(name="annotator")],
            qualification=q if i % 2 else None,
            require_review=True,
        )
    return researcher, annotators, experts, q


def count(fn) -> int:
    with CaptureQueriesContext(connection) as ctx:
        fn()
    return len(ctx.captured_queries)


@pytest.mark.parametrize("n", [1, 3])
def test_work_list_takes_four_queries_whatever_the_number_of_campaigns(n):
    _, annotators, _, _ = campaigns(n)
    user = annotators[0]
    user_roles(user)
    assert count(lambda: sel.rewrite_work_list_for(user)) == 4
    assert [c.needs_qualification for c in sel.rewrite_work_list_for(user)] == [
        bool(i % 2) for i in range(n)
    ][::-1]


@pytest.mark.parametrize("n", [1, 3])
def test_index_page_takes_seven_queries_with_one_or_three_campaigns(client, n, django_assert_num_queries):
    researcher, *_ = campaigns(n)
    client.force_login(researcher)
    # 14 before project_list_for read the roles cached on the user: its three calls asked the
    # groups twice each (admin? researcher?); 8 before issue 22 read the roles with the user
    with django_assert_num_queries(7):
        assert client.get(reverse("rewrite-index")).status_code == 200


@pytest.mark.parametrize("n", [1, 3])
def test_qualification_queue_takes_twelve_queries_with_one_or_three_workers(
    client, n, django_assert_num_queries
):
    from tests import factories

    _, _, experts, q = campaigns(1)
    for i in range(n):
        worker = factories.user(f"w{i}", "annotator")
        q.project.members.add(worker)
        attempt = svc.qualification_start(qualification=q, worker=worker)
        samples = q.samples.order_by("position")
        svc.qualification_submit(attempt=attempt, answers={s.pk: s.sentence.text for s in samples})
    client.force_login(experts[0])
    with django_assert_num_queries(12):  # 11, the nav's project switcher and the expert's count, less
        # the roles read that issue 22 folded into the user's
        assert client.get(reverse("qualification", args=[q.pk])).status_code == 200
