"""One session per assignment (issue 35): a second session on a live HIT let a second browser submit
into it. Rows that share an assignment keep its first session (the one that claimed it)."""

from django.db import migrations, models

_TABLE = "crowd_crowdsession_assignments"


class Migration(migrations.Migration):
    dependencies = [
        ("crowd", "0005_session_browser"),
    ]

    operations = [
        migrations.AddField(
            model_name="crowdsession",
            name="browser_proven",
            field=models.BooleanField(
                default=False,
                help_text="that browser sent its cookie back (in MTurk's iframe it may not): from then on "
                "only the cookie, never the client address, tells it apart",
            ),
        ),
        migrations.AlterField(
            model_name="crowdsession",
            name="outcome",
            field=models.CharField(
                blank=True, help_text="completed | screened-out | no-work | superseded", max_length=16
            ),
        ),
        migrations.RunSQL(
            f"DELETE FROM {_TABLE} WHERE id IN (SELECT later.id FROM {_TABLE} later JOIN {_TABLE} first"
            " ON first.assignment_id = later.assignment_id AND first.crowdsession_id < later.crowdsession_id)",
            migrations.RunSQL.noop,
        ),
        migrations.RunSQL(
            f"CREATE UNIQUE INDEX crowd_session_owns_assignment ON {_TABLE} (assignment_id)",
            "DROP INDEX crowd_session_owns_assignment",
        ),
    ]
