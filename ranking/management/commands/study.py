"""python manage.py study apply FILE | export CAMPAIGN [--out FILE] [--with-files] | validate FILE

A study is a file (issue 39): YAML or JSON, its JSON Schema at /api/schema/study/. ``apply`` creates the
campaign as a draft or brings it to the file (twice: nothing changes); on a launched campaign it changes
only what may change after launch, lists what it refused and exits 1. ``export`` writes any campaign's
file (with ``--with-files``, its corpus beside it, so that ``apply`` into an empty database gives an
equal campaign). ``validate`` needs no database.
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.management.commands._common import export_project
from geceval.errors import GecInputError
from ranking.models import Campaign
from ranking.study.documents import study_apply, study_dump, study_export, study_load, study_problems


class Command(BaseCommand):
    help = "Apply, export or validate a study file (one campaign in one YAML or JSON document)."
    requires_system_checks = []  # validate runs without a database

    def add_arguments(self, parser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        actions.add_parser("apply", help="create or update the campaign the file describes").add_argument(
            "file"
        )
        actions.add_parser("validate", help="check the file against the schema (no database)").add_argument(
            "file"
        )
        export = actions.add_parser("export", help="write a campaign's study file")
        export.add_argument("campaign", help="campaign name (or id with --id)")
        export.add_argument("--id", action="store_true", help="CAMPAIGN is a campaign id")
        export.add_argument(
            "--project", help="project name, when several projects have a campaign of that name"
        )
        export.add_argument(
            "--out", default="-", help="the file (.yaml, .yml or .json; '-' = stdout as YAML)"
        )
        export.add_argument(
            "--with-files", action="store_true", help="write the corpus (JSONL, every system) beside --out"
        )

    def handle(self, *args, **options) -> None:
        try:
            getattr(self, f"_{options['action']}")(options)
        except GecInputError as exc:
            raise CommandError(str(exc)) from None

    def _validate(self, options) -> None:
        problems = study_problems(study_load(options["file"]))
        if problems:
            raise CommandError(f"{options['file']}: " + "; ".join(problems))
        self.stdout.write(f"{options['file']}: a valid study")

    def _apply(self, options) -> None:
        path = Path(options["file"])
        report = study_apply(study_load(path), base=path.resolve().parent)
        for line in report.lines():
            self.stdout.write(line)
        if report.refused:
            raise CommandError(
                f"not applied: {', '.join(report.refused)} (fixed once launched or once a HIT is handed out)"
            )

    def _export(self, options) -> None:
        campaign = self._campaign(options)
        out = options["out"]
        if out == "-":
            if options["with_files"]:
                raise CommandError("--with-files needs --out FILE")
            self.stdout.write(study_dump(study_export(campaign)), ending="")
            return
        path = Path(out).resolve()
        files = path.parent if options["with_files"] else None
        doc = study_export(campaign, files=files, base=path.parent)
        path.write_text(study_dump(doc, "json" if path.suffix == ".json" else "yaml"), encoding="utf-8")
        self.stderr.write(f"wrote {out} from {campaign.name!r}")

    def _campaign(self, options) -> Campaign:
        qs = Campaign.objects.select_related("project", "corpus")
        name = options["campaign"]
        if options["id"]:
            if not name.isdigit():
                raise CommandError("with --id, CAMPAIGN must be a number")
            qs = qs.filter(pk=int(name))
        else:
            qs = qs.filter(name=name)
        project = export_project(options["project"], self.stdout)
        if project:
            qs = qs.filter(project__name=project)
        found = list(qs[:2])
        if not found:
            raise CommandError(f"no campaign {name!r}")
        if len(found) > 1:
            raise CommandError(f"several campaigns are named {name!r}; say which with --project or --id")
        return found[0]
