from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ranking", "0037_h45_added_correction"),
    ]

    operations = [
        migrations.AddField(
            model_name="workerrecord",
            name="crowd_due",
            field=models.DateTimeField(
                blank=True,
                help_text="since when the crowd evidence (agreement, one person, agreement drift) waits for "
                "its task (null: up to date); a submit recounts the worker's own evidence only",
                null=True,
            ),
        ),
    ]
