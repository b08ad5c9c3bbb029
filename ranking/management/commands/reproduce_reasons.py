"""python manage.py reproduce_reasons [--write]: the reasons section of docs/reproducing-papers.md,
generated from ranking.analysis.reproduce_reasons (printed, or written between the doc's markers)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from ranking.analysis.reproduce_reasons import BEGIN, END, doc_with_reasons

DOC = Path(settings.BASE_DIR) / "docs" / "reproducing-papers.md"


class Command(BaseCommand):
    help = "Print (or --write into docs/reproducing-papers.md) every known reason for a cell off tolerance."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--write", action="store_true", help=f"rewrite the section in {DOC.name}")
        parser.add_argument("--check", action="store_true", help="exit 1 when the doc's section is stale")

    def handle(self, *args, **options) -> None:
        current = DOC.read_text(encoding="utf-8")
        try:
            wanted = doc_with_reasons(current)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if options["check"]:
            if wanted != current:
                raise CommandError(f"{DOC} is stale: run python manage.py reproduce_reasons --write")
            self.stdout.write(f"{DOC.name}: reasons section up to date")
        elif options["write"]:
            if wanted != current:
                DOC.write_text(wanted, encoding="utf-8")
            self.stdout.write(f"wrote the reasons section of {DOC}")
        else:
            self.stdout.write(wanted[wanted.index(BEGIN) : wanted.index(END) + len(END)])
