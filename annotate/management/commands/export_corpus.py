from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotate.formats.services import corpus_export
from annotate.formats.writers import EXPORT_FORMATS, save_files
from annotate.management.commands._common import find_corpus
from geceval.errors import GecInputError


class Command(BaseCommand):
    help = (
        "Export a corpus into DIR. --format jfleg: DIR/NAME.src + DIR/NAME.ref0..N; gmeg: "
        "DIR/<domain>/source, ref0..N and one file per other system; m2: DIR/NAME.m2 typed by ERRANT "
        "(or --untyped: Levenshtein, type X); jsonl: DIR/NAME.jsonl with every field."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--format", choices=EXPORT_FORMATS, required=True)
        parser.add_argument("--out", required=True, help="output folder (created if missing)")
        parser.add_argument("--untyped", action="store_true", help="m2: Levenshtein edits of type X")
        parser.add_argument("--project", help="project name (needed when several corpora share NAME)")

    def handle(self, *args, **opts):
        corpus = find_corpus(opts["name"], opts["project"])
        if opts["untyped"] and opts["format"] != "m2":
            raise CommandError("--untyped applies to --format m2 only")
        try:
            files = corpus_export(corpus, fmt=opts["format"], untyped=opts["untyped"])
        except GecInputError as exc:
            raise CommandError(str(exc)) from None
        for path in save_files(files, opts["out"]):
            self.stdout.write(str(path))
