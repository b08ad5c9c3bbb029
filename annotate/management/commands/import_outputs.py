from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotate.management.commands._common import find_corpus
from annotate.models import SystemKind
from annotate.services import outputs_import
from geceval.errors import GecInputError


class Command(BaseCommand):
    help = "Import one system's line-aligned outputs for a corpus, all or nothing."

    def add_arguments(self, parser):
        parser.add_argument("corpus", help="corpus name")
        parser.add_argument("file")
        parser.add_argument("--system", required=True, help="system name")
        parser.add_argument("--kind", choices=SystemKind.values, default=SystemKind.MODEL)
        parser.add_argument("--project", help="project name (when corpus names repeat across projects)")

    def handle(self, *args, **opts):
        corpus = find_corpus(opts["corpus"], opts["project"])
        try:
            system = outputs_import(
                corpus=corpus, system_name=opts["system"], kind=opts["kind"], file=opts["file"]
            )
        except GecInputError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"imported {system.outputs.count()} outputs of {system.name!r} ({system.kind})")
