"""The four roles as Django groups, with the model permissions each needs."""

from django.db import migrations

ROLE_PERMISSIONS = {
    "annotator": [],
    "expert": [],
    "researcher": [
        ("annotate", "project", ["view"]),
        ("annotate", "corpus", ["add", "change", "view"]),
        ("annotate", "sentence", ["add", "view"]),
        ("ranking", "system", ["add", "change", "view"]),
        ("ranking", "output", ["add", "view"]),
        ("ranking", "campaign", ["add", "change", "view"]),
        ("ranking", "systemscore", ["view"]),
    ],
    "admin": "all",
}


def create_roles(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for role, perms in ROLE_PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=role)
        if perms == "all":
            group.permissions.set(Permission.objects.filter(content_type__app_label__in=["annotate", "ranking"]))
            continue
        wanted = []
        for app_label, model, actions in perms:
            for action in actions:
                wanted += list(
                    Permission.objects.filter(
                        content_type__app_label=app_label,
                        content_type__model=model,
                        codename=f"{action}_{model}",
                    )
                )
        group.permissions.set(wanted)


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0001_initial"),
        ("ranking", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_roles, migrations.RunPython.noop)]
