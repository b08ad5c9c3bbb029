"""Roles per project from the site-wide groups: every member gets one row, every owner researcher.

A member's role is researcher when they own the project or are in the researcher group, else
expert when in the expert group, else annotator. Projects keep their members; only rows are added.
"""

from django.conf import settings
from django.db import migrations

RESEARCHER, EXPERT, ANNOTATOR = "researcher", "expert", "annotator"


def _role_from_groups(groups: set[str]) -> str:
    if RESEARCHER in groups:
        return RESEARCHER
    if EXPERT in groups:
        return EXPERT
    return ANNOTATOR


def roles_from_groups(apps, schema_editor):
    Project = apps.get_model("annotate", "Project")
    ProjectRole = apps.get_model("annotate", "ProjectRole")
    User = apps.get_model(settings.AUTH_USER_MODEL)
    Membership = Project.members.through
    groups: dict[int, set[str]] = {}
    for user_id, name in User.groups.through.objects.values_list("user_id", "group__name").iterator():
        groups.setdefault(user_id, set()).add(name)
    owners = dict(Project.objects.filter(owner__isnull=False).values_list("pk", "owner_id"))
    roles: dict[tuple[int, int], str] = {(p, o): RESEARCHER for p, o in owners.items()}
    for project_id, user_id in Membership.objects.values_list("project_id", "user_id").iterator():
        roles.setdefault((project_id, user_id), _role_from_groups(groups.get(user_id, set())))
    ProjectRole.objects.bulk_create(
        [ProjectRole(project_id=p, user_id=u, role=role) for (p, u), role in sorted(roles.items())],
        batch_size=1000,
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0010_project_roles"),
    ]

    operations = [
        migrations.RunPython(roles_from_groups, migrations.RunPython.noop),
    ]
