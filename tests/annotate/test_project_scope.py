"""The nav's project switcher chooses what a researcher's lists show (issue 20, part 2)."""

from __future__ import annotations

import pytest

from annotate.models import Project
from annotate.roles import user_roles
from annotate.selectors import project_list_for
from tests import factories

pytestmark = pytest.mark.django_db


def test_project_list_for_reads_the_roles_cached_on_the_user(django_assert_num_queries):
    researcher = factories.user("res", "researcher")
    mine = factories.project(researcher, name="Mine")
    factories.project(factories.user("other", "researcher"), name="Theirs")
    user_roles(researcher)
    with django_assert_num_queries(0):
        projects = project_list_for(researcher)
    assert list(projects) == [mine]
    admin = factories.user("boss", "admin")
    annotator = factories.user("ann", "annotator")
    mine.members.add(annotator)
    superuser = factories.user("root", "annotator")
    superuser.is_superuser = True
    superuser.save(update_fields=["is_superuser"])
    assert set(project_list_for(admin)) == set(Project.objects.all())
    assert set(project_list_for(superuser)) == set(Project.objects.all())
    assert list(project_list_for(annotator)) == []
