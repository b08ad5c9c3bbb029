"""Second half of moving System and Output to annotate (see annotate 0004): every foreign key and
many-to-many that pointed at ``ranking.system`` / ``ranking.output`` now points at the annotate models,
and the old model state goes. The database is untouched: the tables, their rows, the join tables
(``ranking_campaign_systems.system_id``, ``ranking_candidate_outputs.output_id``) and the foreign key
constraints already reference ``ranking_system`` / ``ranking_output``, which the moved models keep.
Content types (and with them permissions) are renamed so nothing that refers to them is orphaned.
"""

import django.db.models.deletion
from django.db import migrations, models

MOVED = ("system", "output")


def content_types_to(app_label_from: str, app_label_to: str):
    def move(apps, schema_editor):
        ContentType = apps.get_model("contenttypes", "ContentType")
        db = schema_editor.connection.alias
        for model in MOVED:
            if not ContentType.objects.using(db).filter(app_label=app_label_to, model=model).exists():
                ContentType.objects.using(db).filter(app_label=app_label_from, model=model).update(
                    app_label=app_label_to
                )

    return move


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0004_system_output"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("ranking", "0007_active_selection"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name="campaign",
                    name="systems",
                    field=models.ManyToManyField(related_name="campaigns", to="annotate.system"),
                ),
                migrations.AlterField(
                    model_name="campaign",
                    name="reference",
                    field=models.ForeignKey(
                        blank=True,
                        help_text="shown beside the source",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="annotate.system",
                    ),
                ),
                migrations.AlterField(
                    model_name="campaign",
                    name="trap_system",
                    field=models.ForeignKey(
                        blank=True,
                        limit_choices_to={"kind": "source+error"},
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="annotate.system",
                    ),
                ),
                migrations.AlterField(
                    model_name="candidate",
                    name="outputs",
                    field=models.ManyToManyField(related_name="candidates", to="annotate.output"),
                ),
                migrations.AlterField(
                    model_name="systemscore",
                    name="system",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="scores",
                        to="annotate.system",
                    ),
                ),
                migrations.AlterField(
                    model_name="systemrankresult",
                    name="system",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        to="annotate.system",
                    ),
                ),
                migrations.AlterField(
                    model_name="prwsresult",
                    name="system",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        to="annotate.system",
                    ),
                ),
                migrations.DeleteModel(name="Output"),
                migrations.DeleteModel(name="System"),
            ],
        ),
        migrations.RunPython(
            content_types_to("ranking", "annotate"), content_types_to("annotate", "ranking")
        ),
    ]
