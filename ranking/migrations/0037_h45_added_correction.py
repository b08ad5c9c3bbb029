# The edit-level protocol's positive control (issue 41): a trap that adds a correction the references
# agree on. Only the field's choices change: no column, no data.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ranking", "0036_worker_gold_ok"),
    ]

    operations = [
        migrations.AlterField(
            model_name="control",
            name="kind",
            field=models.CharField(
                choices=[
                    ("added_error", "trap: 1-2 errors added to the base"),
                    ("undone_correction", "trap: one of the base's corrections undone"),
                    ("added_correction", "trap: a correction the references agree on added"),
                    ("repeat", "repeat: the same screen again"),
                    ("gold", "gold: a copy of a screen the researcher answered"),
                ],
                max_length=20,
            ),
        ),
    ]
