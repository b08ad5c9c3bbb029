"""python manage.py import_judgments FILE --format F --name NAME [--corpus C] [--mapping M.json] ..."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotate.management.commands._common import find_project
from annotate.models import Corpus
from crowd.importing import FORMATS, judgments_import
from geceval.errors import GecInputError
from geceval.formats.appraise_items import SRC_ID_BASES


def _by_name_or_id(queryset, value: str, what: str):
    found = queryset.filter(name=value).first()
    if found is None and value.isdigit():
        found = queryset.filter(pk=int(value)).first()
    if found is None:
        raise CommandError(f"no {what} {value!r}")
    return found


class Command(BaseCommand):
    help = "Import past crowd judgments as a closed campaign of origin 'imported'."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--format", required=True, choices=FORMATS)
        parser.add_argument("--name", required=True, help="name of the imported campaign")
        parser.add_argument("--corpus", help="attach items to this corpus's sentences (name or id)")
        parser.add_argument("--mapping", help="MTurk column mapping (JSON file)")
        parser.add_argument("--include-rejected", action="store_true")
        parser.add_argument(
            "--store",
            choices=("auto", "compact", "full"),
            default="auto",
            help="compact: one row per entry, loaded with COPY (wmt-csv, prws-csv), the file streamed "
            "(at most JUDGMENT_UPLOAD_MAX_BYTES); full: screens and ratings, the file read whole (at "
            "most UPLOAD_MAX_BYTES); auto: compact for files over IMPORT_COMPACT_BYTES",
        )
        parser.add_argument(
            "--exclude-judge", action="append", default=[], help="drop this judge (repeatable)"
        )
        parser.add_argument(
            "--src-id-base",
            type=int,
            choices=SRC_ID_BASES,
            help="appraise-xml items with src-id: sentence = src-id - BASE (default: detected; 0 when an "
            "item has src-id 0, 1 when one has the corpus' sentence count, else refused)",
        )
        parser.add_argument(
            "--allow-missing",
            action="store_true",
            help="with --corpus: import even when under 90%% of the judgments name one of its sentences "
            "(otherwise refused, naming the items that did not match)",
        )
        parser.add_argument(
            "--project",
            help="project name or id (needed when there are several; created when missing, `default` when there is none)",
        )

    def handle(self, *args, **opts):
        project = find_project(opts["project"], self.stdout)
        corpus = None
        if opts["corpus"]:
            corpus = _by_name_or_id(Corpus.objects.filter(project=project), opts["corpus"], "corpus")
        mapping = None
        if opts["mapping"]:
            try:
                with open(opts["mapping"], encoding="utf-8") as handle:
                    mapping = json.load(handle)
            except (OSError, ValueError) as exc:
                raise CommandError(f"{opts['mapping']}: cannot read the mapping: {exc}") from None
        try:
            report = judgments_import(
                project=project,
                name=opts["name"],
                fmt=opts["format"],
                path_or_bytes=opts["file"],
                corpus=corpus,
                mapping=mapping,
                include_rejected=opts["include_rejected"],
                exclude_judges=opts["exclude_judge"],
                compact={"auto": None, "compact": True, "full": False}[opts["store"]],
                src_id_base=opts["src_id_base"],
                allow_missing=opts["allow_missing"],
            )
        except GecInputError as exc:
            raise CommandError(str(exc)) from None
        for line in report.lines():
            self.stdout.write(line)
        c = report.campaign
        self.stdout.write(f"campaign: {c.pk} ({c.name}, {c.origin}, {c.status})")
