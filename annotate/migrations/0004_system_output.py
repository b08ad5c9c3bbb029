"""System and Output move here from the ranking app (issue 14: systems and outputs belong to the corpus
layer). State only: the tables ``ranking_system`` and ``ranking_output`` keep their names, rows, indexes
and constraints; ranking's 0008 points its foreign keys at the models' new home and drops the old state.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0003_rewrites"),
        ("ranking", "0007_active_selection"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="System",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("name", models.CharField(max_length=200)),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("model", "Model output"),
                                    ("source", "Source (unchanged input)"),
                                    ("reference", "Human reference"),
                                    ("source+error", "Source+error (trap)"),
                                ],
                                default="model",
                                max_length=16,
                            ),
                        ),
                        ("created", models.DateTimeField(auto_now_add=True)),
                        (
                            "corpus",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="systems",
                                to="annotate.corpus",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "ranking_system",
                        "ordering": ["corpus", "name"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("corpus", "name"), name="system_unique_name_per_corpus"
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    ("kind__in", ["model", "source", "reference", "source+error"])
                                ),
                                name="system_kind_valid",
                            ),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="Output",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("text", models.TextField(blank=True)),
                        (
                            "sentence",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="outputs",
                                to="annotate.sentence",
                            ),
                        ),
                        (
                            "system",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="outputs",
                                to="annotate.system",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "ranking_output",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("system", "sentence"), name="output_one_per_system_sentence"
                            )
                        ],
                    },
                ),
            ],
        ),
    ]
