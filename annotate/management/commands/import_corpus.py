from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotate.management.commands._common import find_project, read_input
from annotate.services import corpus_import_text
from geceval.errors import GecInputError
from geceval.formats.text import jfleg_reference_paths


class Command(BaseCommand):
    help = (
        "Import a corpus, all or nothing. --format jfleg: PATH is a prefix (dir/test for dir/test.src + "
        "dir/test.ref0..N); --format text: PATH is one file, one sentence a line."
    )

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--format", choices=["jfleg", "text"], required=True)
        parser.add_argument("--name", required=True)
        parser.add_argument("--domain", default="")
        parser.add_argument("--project", help="project name (needed when there are several)")
        parser.add_argument("--tokenized", action="store_true", help="text is whitespace-tokenised")
        parser.add_argument("--language", default="en")

    def handle(self, *args, **opts):
        project = find_project(opts["project"])
        if opts["format"] == "jfleg":
            source = read_input(opts["path"] + ".src")
            ref_paths = jfleg_reference_paths(opts["path"])
            if not ref_paths:
                raise CommandError(f"{opts['path']}.ref0: no reference files (JFLEG layout)")
            references = [read_input(p) for p in ref_paths]
            names = [p.rsplit(".", 1)[1] for p in ref_paths]
        else:
            source, references, names = read_input(opts["path"]), [], []
        try:
            corpus = corpus_import_text(
                project=project,
                name=opts["name"],
                source=source,
                references=references,
                reference_names=names,
                domain=opts["domain"],
                tokenized=opts["tokenized"],
                language=opts["language"],
            )
        except GecInputError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"imported corpus {corpus.name!r}: {corpus.sentences.count()} sentences, {len(references)} references"
        )
