"""python manage.py reproduce STUDY --data PATH: our figures beside the reference tools', exit 1 outside tolerance."""

from __future__ import annotations

import json
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from geceval.errors import GecInputError
from geceval.metaeval.hybrids import GMEG_HYBRIDS, TABLE8_METRICS
from geceval.metrics.ensemble.features import DEFAULT_COMPONENTS
from ranking.analysis.reproduce import STUDIES, ReproduceError, celery_mode, reproduce
from ranking.analysis.reproduce_gmeg import gmeg_tables
from ranking.analysis.reproduce_report import cells, failed, format_latex, format_text, summary
from ranking.analysis.reproduce_sakaguchi import HOW, HOW7, HOW_ALL, table4_rows, table6_rows, table7_rows
from ranking.analysis.reproduce_seeda import DEFAULT_REFERENCES, seeda_rows
from ranking.analysis.seeda_published import PUBLISHED_FROM

GMEG_ONLY = ("split", "tables", "metrics", "hybrids", "folds", "features")
"""Options only the gmeg studies read; ``--runs`` only the others."""
SEEDA_ONLY = ("references",)
SAKAGUCHI_ONLY = ("skip_merged",)
"""Options only seeda2024 / sakaguchi2016 read."""


class Command(BaseCommand):
    help = (
        "Import a study's public data into a fresh project, run its analyses, compare with REFERENCE_FIGURES."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("study", choices=STUDIES)
        parser.add_argument(
            "--data", required=True, help="a folder laid out like ../shared/data (gmeg: like GMEG's data/)"
        )
        parser.add_argument("--split", choices=("dev", "test", "all"), default="all", help="gmeg only")
        parser.add_argument(
            "--json",
            action="store_true",
            help="one JSON list, an object per published cell, the same keys for every study "
            "(ranking/analysis/reproduce_report.py)",
        )
        parser.add_argument(
            "--references",
            default=None,
            help="seeda2024: folder with conll14st-test.m2, conll14st-test.tok.src and "
            "refs/conll14st-test.tok.trg0/trg1 (default: $GEC_SHARED_DIR/data/gecmetrics/data/"
            "conll14st-test, GEC_SHARED_DIR defaulting to ../shared beside the checkout)",
        )
        parser.add_argument(
            "--tables", nargs="+", default=["3", "6", "7", "8", "9"], choices=["3", "6", "7", "8", "9"]
        )
        parser.add_argument(
            "--metrics",
            nargs="+",
            default=list(TABLE8_METRICS),
            choices=list(TABLE8_METRICS),
            help="Table 8 metrics",
        )
        parser.add_argument(
            "--hybrids",
            type=int,
            default=GMEG_HYBRIDS,
            help="hybrid systems per domain, Tables 8, 9 (GMEG: 674)",
        )
        parser.add_argument("--folds", type=int, default=50, help="Table 9 cross-validation folds (GMEG: 50)")
        parser.add_argument(
            "--features",
            nargs="+",
            default=list(DEFAULT_COMPONENTS),
            choices=list(DEFAULT_COMPONENTS),
            help="Table 9 ensemble feature components (default all)",
        )
        parser.add_argument(
            "--skip-merged",
            action="store_true",
            help="sakaguchi2016: leave out the 34 sentences of reassess-gec's annotations/merged_ids",
        )
        parser.add_argument(
            "--latex", action="store_true", help="LaTeX tables (published, ours, difference, reason)"
        )
        parser.add_argument("--runs", type=int, default=1000, help="TrueSkill runs (the papers: 1000)")
        parser.add_argument("--seed", type=int, default=0)

    def _refuse_unused(self, options: dict) -> None:
        """An option the study does not read is refused, never dropped (issue 34)."""
        parser = self.create_parser("manage.py", "reproduce")
        defaults = {a.dest: a.default for a in parser._actions}
        study = options["study"]
        if study == "gmeg":
            unused = ["runs", *SEEDA_ONLY, *SAKAGUCHI_ONLY]
        elif study == "gmeg-dev":
            unused = [
                "runs",
                "split",
                *SEEDA_ONLY,
                *SAKAGUCHI_ONLY,
            ]  # the dev split of GMEG/data under --data
        elif study == "sakaguchi2016":
            unused = ["runs", *GMEG_ONLY, *SEEDA_ONLY]
        elif study == "napoles2015":  # Tables 1 and 2 of Napoles et al. 2015; gec-ranking is Table 2's part
            unused = [*GMEG_ONLY, *SEEDA_ONLY, *SAKAGUCHI_ONLY]
        elif study == "seeda2024":
            unused = [*GMEG_ONLY, *SAKAGUCHI_ONLY]
        else:
            unused = [*GMEG_ONLY, *SEEDA_ONLY, *SAKAGUCHI_ONLY]
        if study in ("gmeg", "gmeg-dev"):
            tables = set(options["tables"])
            # each of these feeds only some tables: given without them, it would change nothing
            needs = {"metrics": {"8"}, "hybrids": {"8", "9"}, "folds": {"9"}, "features": {"9"}}
            unused += [n for n, wanted in needs.items() if not tables & wanted]
        given = [f"--{n.replace('_', '-')}" for n in unused if options[n] != defaults[n]]
        if given:
            raise CommandError(f"{', '.join(given)}: not used by study {study}; leave it out")
        if options["json"] and options["latex"]:
            raise CommandError("--json and --latex: give one")

    def handle(self, *args, **options) -> None:
        self._refuse_unused(options)
        data = Path(options["data"])
        if not data.is_dir():
            raise CommandError(f"--data {data} is not a folder")
        started = time.monotonic()
        study = options["study"]
        try:
            if study in ("gmeg", "gmeg-dev"):
                title, rows, notes = self._gmeg(data, options)
            elif study == "sakaguchi2016":
                title, rows, notes = self._sakaguchi(data, options)
            elif study == "seeda2024":
                title, rows, notes = self._seeda(data, options)
            else:
                title = f"{study}: data {data}, celery {celery_mode()}, runs {options['runs']}"
                rows = reproduce(study, data, runs=options["runs"], seed=options["seed"])
                notes = []
        except (FileNotFoundError, GecInputError, ValueError, ReproduceError) as exc:
            raise CommandError(str(exc)) from None
        self._report(cells(rows), options, title, notes, started)

    def _report(self, report: list, options: dict, title: str, notes: list[str], started: float) -> None:
        """Every study's cells printed one way (ranking.analysis.reproduce_report): text, --json or
        --latex; exit 1 when a cell is outside its tolerance with no stated reason."""
        if options["json"]:
            self.stdout.write(json.dumps([c.as_json() for c in report], indent=1))
        elif options["latex"]:
            self.stdout.write(format_latex(report))
        else:
            self.stdout.write(title)
            self.stdout.write(format_text(report))
            for note in notes:
                self.stdout.write(note)
            self.stdout.write(summary(report, time.monotonic() - started))
        bad = failed(report)
        if bad:
            raise CommandError(
                f"{len(bad)} cell(s) outside tolerance without a stated reason: "
                + ", ".join(c.name for c in bad[:20])
                + (" ..." if len(bad) > 20 else "")
            )

    def _sakaguchi(self, data: Path, options: dict) -> tuple[str, list, list[str]]:
        skip = options["skip_merged"]
        rows = table4_rows(data, skip_merged=skip) + table6_rows(data, skip_merged=skip)
        rows += table7_rows(data, skip_merged=skip)
        title = (
            f"sakaguchi2016: data {data}; Table 4 (rewrites), Table 6 (metric scores against Grundkiewicz "
            "et al. 2015 Table 3c, 13 systems), Table 7 (inter-annotator agreement of pairwise judgments)"
        )
        return title, rows, [HOW if skip else HOW_ALL, HOW7]

    def _gmeg(self, data: Path, options: dict) -> tuple[str, list, list[str]]:
        split = options["split"]
        if options["study"] == "gmeg-dev":
            # the former gmeg-dev study: --data is the ../shared/data root, the dev split only
            data, split = data / "GMEG" / "data", "dev"
        rows = gmeg_tables(
            data,
            split=split,
            tables=tuple(options["tables"]),
            metrics=tuple(options["metrics"]),
            seed=options["seed"],
            hybrids=options["hybrids"],
            folds=options["folds"],
            components=tuple(options["features"]),
        )
        return f"gmeg: data {data}, split {split}", rows, []

    def _seeda(self, data: Path, options: dict) -> tuple[str, list, list[str]]:
        references = Path(options["references"]) if options["references"] else DEFAULT_REFERENCES
        rows = seeda_rows(data, references, runs=options["runs"], seed=options["seed"])
        title = f"seeda2024: data {data}, references {references}, runs {options['runs']}"
        return title, rows, [f"published, {table}: {text}" for table, text in PUBLISHED_FROM.items()]
