"""python manage.py export_judgments NAME --format wmt-csv|appraise-xml|prws-csv|gmeg-segment-csv|edit-jsonl --out FILE

The formats are the registered protocols' (``Protocol.judgment_formats``); a campaign offers its protocol's.
Beside FILE, FILE.study.yaml: the study the judgments came from (``study export``; issue 39).
"""

from __future__ import annotations

import os

from django.core.management.base import BaseCommand, CommandError

from annotate.management.commands._common import export_project
from geceval.errors import GecInputError
from ranking.analysis.exports import all_judgment_formats, iter_judgments
from ranking.models import Campaign
from ranking.study.documents import study_dump, study_export


class Command(BaseCommand):
    help = (
        "Write a campaign's (or imported judgment set's) valid judgments; worker ids pseudonymised. "
        "PRWS screens become rankings by score for the ranking formats (equal scores tied)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("name", help="campaign name (or id with --id)")
        parser.add_argument("--format", required=True, choices=all_judgment_formats(), dest="fmt")
        parser.add_argument("--out", required=True, help="output file ('-' = stdout)")
        parser.add_argument(
            "--project", help="project name, when several projects have a campaign of that name"
        )
        parser.add_argument("--id", action="store_true", help="NAME is a campaign id")

    def handle(self, *args, **options) -> None:
        qs = Campaign.objects.all()
        if options["id"]:
            if not options["name"].isdigit():
                raise CommandError("with --id, NAME must be a number")
            qs = qs.filter(pk=int(options["name"]))
        else:
            qs = qs.filter(name=options["name"])
        project = export_project(options["project"], self.stdout)
        if project:
            qs = qs.filter(project__name=project)
        found = list(qs.select_related("project")[:2])
        if not found:
            raise CommandError(f"no campaign {options['name']!r}")
        if len(found) > 1:
            raise CommandError(
                f"several campaigns are named {options['name']!r}; say which with --project or --id"
            )
        campaign = found[0]
        try:  # before the file is opened: a format the protocol does not offer leaves no file
            chunks = iter_judgments(campaign, options["fmt"])
        except GecInputError as exc:
            raise CommandError(str(exc)) from None
        count = 0
        if options["out"] == "-":
            for chunk in chunks:
                self.stdout.write(chunk, ending="")
                count += 1
            return
        with open(options["out"], "w", encoding="utf-8", newline="") as handle:
            for chunk in chunks:
                handle.write(chunk)
                count += 1
        study = f"{options['out']}.study.yaml"
        if os.path.isfile(options["out"]):  # not beside a device such as /dev/null
            with open(study, "w", encoding="utf-8") as handle:
                handle.write(study_dump(study_export(campaign)))
        self.stderr.write(
            f"wrote {options['out']} ({options['fmt']}, {count} records/lines) from {campaign.name!r}, "
            f"and its study {study}"
        )
