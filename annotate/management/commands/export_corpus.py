from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotate.formats.services import campaign_export, corpus_export
from annotate.formats.writers import EXPORT_FORMATS, save_files
from annotate.management.commands._common import export_project, find_corpus, find_rewrite_campaign
from geceval.errors import GecInputError


class Command(BaseCommand):
    help = (
        "Export a corpus into DIR. --format jfleg: DIR/NAME.src + DIR/NAME.ref0..N; gmeg: "
        "DIR/<domain>/source, ref0..N and one file per other system; m2: DIR/NAME.m2 typed by ERRANT "
        "(or --untyped: Levenshtein, type X); jsonl: DIR/NAME.jsonl with every field. With --campaign, "
        "NAME is a rewrite campaign: its accepted rewrites are the references (after the corpus's own), "
        "only sentences with N accepted rewrites, MERGE-marked sentences joined with the next one."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--format", choices=EXPORT_FORMATS, required=True)
        parser.add_argument("--out", required=True, help="output folder (created if missing)")
        parser.add_argument("--untyped", action="store_true", help="m2: Levenshtein edits of type X")
        parser.add_argument("--project", help="project name (needed when several corpora share NAME)")
        parser.add_argument("--campaign", action="store_true", help="NAME is a rewrite campaign")
        parser.add_argument("--rewrites", type=int, help="with --campaign: N (default: the campaign's)")
        parser.add_argument(
            "--no-corpus-systems",
            action="store_true",
            help="with --campaign: leave out the corpus's own references and systems",
        )

    def handle(self, *args, **opts):
        if opts["untyped"] and opts["format"] != "m2":
            raise CommandError("--untyped applies to --format m2 only")
        project = export_project(opts["project"], self.stdout)
        try:
            if opts["campaign"]:
                files = campaign_export(
                    find_rewrite_campaign(opts["name"], project),
                    fmt=opts["format"],
                    untyped=opts["untyped"],
                    n=opts["rewrites"],
                    include_corpus_systems=not opts["no_corpus_systems"],
                )
            else:
                corpus = find_corpus(opts["name"], project)
                files = corpus_export(corpus, fmt=opts["format"], untyped=opts["untyped"])
        except GecInputError as exc:
            raise CommandError(str(exc)) from None
        for path in save_files(files, opts["out"]):
            self.stdout.write(str(path))
