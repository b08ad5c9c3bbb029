from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotate.formats.readers import FORMATS, load_stream
from annotate.management.commands._common import find_project
from annotate.streaming import corpus_save
from geceval.errors import GecInputError


class Command(BaseCommand):
    help = (
        "Import a corpus, all or nothing (any error names the file and line and saves nothing). "
        "--format jfleg: PATH is a prefix (dir/test for dir/test.src + dir/test.ref0..N, references "
        "ref0..N); gmeg: PATH is a domain folder (source, ref0..N, source+error, system outputs; "
        "domain = folder name) or a folder of domain folders; m2: S lines are the source, each "
        "annotator's corrections the reference ref<id>; text: one sentence a line; jsonl: one JSON "
        "object a sentence (see annotate.formats)."
    )

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--format", choices=FORMATS, required=True)
        parser.add_argument("--name", required=True)
        parser.add_argument("--domain", default="", help="domain of every sentence (gmeg: folder name)")
        parser.add_argument(
            "--project",
            help="project name (needed when there are several; created when missing, `default` when there is none)",
        )
        parser.add_argument(
            "--tokenized", action="store_true", help="text is whitespace-tokenised (m2 always is)"
        )
        parser.add_argument("--language", default="en")

    def handle(self, *args, **opts):
        project = find_project(opts["project"], self.stdout)
        try:
            stream = load_stream(
                opts["path"], opts["format"], domain=opts["domain"], tokenized=opts["tokenized"]
            )
            tokenized = True if opts["format"] == "m2" else opts["tokenized"]
            corpus = corpus_save(
                project=project,
                name=opts["name"],
                stream=stream,
                language=opts["language"],
                tokenized=tokenized,
            )
        except GecInputError as exc:
            raise CommandError(str(exc)) from None
        for warning in stream.warnings:
            self.stderr.write(warning)
        refs = sum(1 for kind in stream.systems.values() if kind == "reference")
        others = len(stream.systems) - refs
        self.stdout.write(
            f"imported corpus {corpus.name!r}: {stream.count} sentences, {refs} references"
            + (f", {others} other systems" if others else "")
        )
