"""Migration 0011 gives every existing member a role in each of their projects from their groups.

A database at annotate 0009 (roles were site-wide groups) is migrated forward: owners become their
project's researchers; a member is researcher when in the researcher group, else expert when in the
expert group, else annotator. CI runs this on PostgreSQL.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("annotate", "0009_rewrite_review_reason")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def _leaf_nodes():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_every_member_gets_the_role_of_their_group_in_each_of_their_projects():
    apps = _migrate(BEFORE)
    User = apps.get_model("auth", "User")
    Group = apps.get_model("auth", "Group")
    Project = apps.get_model("annotate", "Project")
    groups = {
        name: Group.objects.get_or_create(name=name)[0] for name in ("researcher", "expert", "annotator")
    }

    def user(name, *roles):
        u = User.objects.create(username=name)
        u.groups.add(*(groups[r] for r in roles))
        return u

    owner_a, owner_b = user("owner_a", "researcher"), user("owner_b")  # an owner needs no group
    res, exp = user("res", "researcher"), user("exp", "expert")
    both = user("both", "expert", "researcher")  # researcher wins
    ann, none = user("ann", "annotator"), user("none")  # no group at all: annotator
    a = Project.objects.create(name="A", owner=owner_a)
    a.members.add(owner_a, res, exp, both, ann, none)
    b = Project.objects.create(name="B", owner=owner_b)  # the owner is not even a member
    b.members.add(exp, ann)
    Project.objects.create(name="C", owner=None).members.add(res)

    _migrate(_leaf_nodes())

    from annotate.models import ProjectRole

    assert sorted(ProjectRole.objects.values_list("project__name", "user__username", "role")) == [
        ("A", "ann", "annotator"),
        ("A", "both", "researcher"),
        ("A", "exp", "expert"),
        ("A", "none", "annotator"),
        ("A", "owner_a", "researcher"),
        ("A", "res", "researcher"),
        ("B", "ann", "annotator"),
        ("B", "exp", "expert"),
        ("B", "owner_b", "researcher"),
        ("C", "res", "researcher"),
    ]
    # members and groups are left as they were
    from annotate.models import Project as Migrated

    assert sorted(Migrated.objects.get(name="B").members.values_list("username", flat=True)) == ["ann", "exp"]
    # reversible: back to 0009 and forward again gives the same rows
    _migrate(BEFORE)
    _migrate(_leaf_nodes())
    assert ProjectRole.objects.count() == 10
