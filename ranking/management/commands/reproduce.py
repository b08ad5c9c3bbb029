"""python manage.py reproduce STUDY --data PATH: our figures beside the reference tools', exit 1 outside tolerance."""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from geceval.errors import GecInputError
from geceval.metaeval.hybrids import GMEG_HYBRIDS, TABLE8_METRICS
from geceval.metrics.ensemble.features import DEFAULT_COMPONENTS
from ranking.analysis.reproduce import (
    STUDIES,
    ReproduceError,
    celery_mode,
    format_rows,
    reproduce,
)
from ranking.analysis.reproduce import (
    rows_latex as generic_rows_latex,
)
from ranking.analysis.reproduce_gmeg import format_table_rows, gmeg_tables
from ranking.analysis.reproduce_sakaguchi import (
    HOW,
    HOW7,
    HOW_ALL,
    format_table4,
    rows_latex,
    table4_rows,
    table6_rows,
    table7_rows,
)
from ranking.analysis.reproduce_seeda import (
    DEFAULT_REFERENCES,
    format_seeda_rows,
    latex_seeda_rows,
    seeda_rows,
)

GMEG_ONLY = ("split", "json", "tables", "metrics", "hybrids", "folds", "features")
"""Options only the gmeg studies read; ``--runs`` only the others."""
SEEDA_ONLY = ("references",)
SAKAGUCHI_ONLY = ("skip_merged",)
LATEX_STUDIES = ("sakaguchi2016", "napoles2015", "seeda2024")
"""Options only seeda2024 / sakaguchi2016 read; ``--latex`` only the LATEX_STUDIES."""


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
            help="gmeg, sakaguchi2016, napoles2015, seeda2024: one JSON list, a row per published cell",
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
            "--latex", action="store_true", help="sakaguchi2016, napoles2015, seeda2024: LaTeX tables"
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
            unused = ["runs", *(n for n in GMEG_ONLY if n != "json"), *SEEDA_ONLY]
        elif study == "napoles2015":  # Tables 1 and 2 of Napoles et al. 2015; gec-ranking is Table 2's part
            unused = [*(n for n in GMEG_ONLY if n != "json"), *SEEDA_ONLY, *SAKAGUCHI_ONLY]
        elif study == "seeda2024":
            unused = [*(n for n in GMEG_ONLY if n != "json"), *SAKAGUCHI_ONLY]
        else:
            unused = [*GMEG_ONLY, *SEEDA_ONLY, *SAKAGUCHI_ONLY]
        if study not in LATEX_STUDIES:
            unused.append("latex")
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
        if options["study"] in ("gmeg", "gmeg-dev"):
            return self._gmeg(data, options)
        if options["study"] == "sakaguchi2016":
            return self._sakaguchi(data, options)
        if options["study"] == "seeda2024":
            return self._seeda(data, options)
        started = time.monotonic()
        text = not (options["json"] or options["latex"])
        if text:
            self.stdout.write(
                f"{options['study']}: data {data}, celery {celery_mode()}, runs {options['runs']}"
            )
        try:
            rows = reproduce(
                options["study"],
                data,
                runs=options["runs"],
                seed=options["seed"],
            )
        except ReproduceError as exc:
            raise CommandError(str(exc)) from None
        failed = [r for r in rows if not r.ok]
        if options["json"]:
            self.stdout.write(json.dumps([asdict(r) for r in rows], indent=1))
        elif options["latex"]:
            self.stdout.write(generic_rows_latex(rows))
        else:
            self.stdout.write(format_rows(rows))
            self.stdout.write(
                f"{len(rows) - len(failed)} of {len(rows)} within tolerance ({time.monotonic() - started:.1f} s)"
            )
        if failed:
            raise CommandError(
                f"{len(failed)} figure(s) outside tolerance: {', '.join(r.what for r in failed)}"
            )

    def _sakaguchi(self, data: Path, options: dict) -> None:
        started = time.monotonic()
        skip = options["skip_merged"]
        try:
            rows4 = table4_rows(data, skip_merged=skip)
            rows6 = table6_rows(data, skip_merged=skip)
            rows7 = table7_rows(data, skip_merged=skip)
        except (FileNotFoundError, GecInputError) as exc:
            raise CommandError(str(exc)) from None
        rows = rows4 + rows6 + rows7
        failed = [r for r in rows if r.failed]
        if options["json"]:
            self.stdout.write(json.dumps([r.as_json() for r in rows], indent=1))
        elif options["latex"]:
            self.stdout.write(rows_latex(rows))
        else:
            self.stdout.write(f"sakaguchi2016 Table 4: data {data}")
            self.stdout.write(format_table4(rows4))
            self.stdout.write(HOW if skip else HOW_ALL)
            self.stdout.write("")
            self.stdout.write(
                "sakaguchi2016 Table 6: metric scores against Grundkiewicz et al. 2015 Table 3c (13 systems)"
            )
            self.stdout.write(format_table4(rows6))
            self.stdout.write("")
            self.stdout.write("sakaguchi2016 Table 7: inter-annotator agreement of pairwise system judgments")
            self.stdout.write(format_table4(rows7))
            self.stdout.write(HOW7)
            compared = [r for r in rows if r.ok is not None]
            self.stdout.write(
                f"{sum(1 for r in compared if r.ok)} of {len(compared)} published cells reproduced to the "
                f"printed decimal, {sum(1 for r in compared if not r.ok and r.why)} outside with a reason, "
                f"{len(failed)} outside and unexplained ({time.monotonic() - started:.1f} s)"
            )
        if failed:
            raise CommandError(
                f"{len(failed)} cell(s) differ: "
                + ", ".join(f"table {r.table} {r.cell} {r.measure}" for r in failed)
            )

    def _gmeg(self, data: Path, options: dict) -> None:
        split = options["split"]
        if options["study"] == "gmeg-dev":
            # the former gmeg-dev study: --data is the ../shared/data root, the dev split only
            data, split = data / "GMEG" / "data", "dev"
        started = time.monotonic()
        try:
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
        except (FileNotFoundError, GecInputError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        failed = [r for r in rows if r.failed]
        if options["json"]:
            self.stdout.write(json.dumps([r.as_json() for r in rows], indent=1))
        else:
            self.stdout.write(f"gmeg: data {data}, split {split}")
            self.stdout.write(format_table_rows(rows))
            compared = [r for r in rows if r.ok is not None]
            self.stdout.write(
                f"{sum(1 for r in compared if r.ok)} of {len(compared)} compared cells within tolerance, "
                f"{sum(1 for r in compared if not r.ok and r.known)} outside and known, "
                f"{len(failed)} outside and unexplained ({time.monotonic() - started:.1f} s)"
            )
        if failed:
            raise CommandError(
                f"{len(failed)} cell(s) outside tolerance: "
                + ", ".join(f"table {r.table} {r.domain} {r.row} {r.column}" for r in failed)
            )

    def _seeda(self, data: Path, options: dict) -> None:
        started = time.monotonic()
        references = Path(options["references"]) if options["references"] else DEFAULT_REFERENCES
        try:
            rows = seeda_rows(data, references, runs=options["runs"], seed=options["seed"])
        except (FileNotFoundError, GecInputError) as exc:
            raise CommandError(str(exc)) from None
        failed = [r for r in rows if r.failed]
        if options["json"]:
            self.stdout.write(json.dumps([r.as_json() for r in rows], indent=1))
        elif options["latex"]:
            self.stdout.write(latex_seeda_rows(rows))
        else:
            self.stdout.write(f"seeda2024: data {data}, references {references}, runs {options['runs']}")
            self.stdout.write(format_seeda_rows(rows))
            compared = [r for r in rows if r.ok is not None]
            self.stdout.write(
                f"{sum(1 for r in compared if r.ok)} of {len(compared)} compared cells within tolerance, "
                f"{sum(1 for r in compared if not r.ok and r.known)} outside and known, "
                f"{len(failed)} outside and unexplained ({time.monotonic() - started:.1f} s)"
            )
        if failed:
            raise CommandError(
                f"{len(failed)} cell(s) outside tolerance: "
                + ", ".join(f"{r.table} {r.subset} {r.row} {r.column}" for r in failed[:20])
                + (" ..." if len(failed) > 20 else "")
            )
