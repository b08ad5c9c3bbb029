"""python manage.py reproduce STUDY --data PATH: our figures beside the reference tools', exit 1 outside tolerance."""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ranking.analysis.reproduce import STUDIES, ReproduceError, celery_mode, format_rows, reproduce


class Command(BaseCommand):
    help = (
        "Import a study's public data into a fresh project, run its analyses, compare with REFERENCE_FIGURES."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("study", choices=STUDIES)
        parser.add_argument("--data", required=True, help="a folder laid out like ../shared/data")
        parser.add_argument("--runs", type=int, default=1000, help="TrueSkill runs (the papers: 1000)")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args, **options) -> None:
        data = Path(options["data"])
        if not data.is_dir():
            raise CommandError(f"--data {data} is not a folder")
        started = time.monotonic()
        self.stdout.write(f"{options['study']}: data {data}, celery {celery_mode()}, runs {options['runs']}")
        try:
            rows = reproduce(
                options["study"],
                data,
                runs=options["runs"],
                seed=options["seed"],
            )
        except ReproduceError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(format_rows(rows))
        failed = [r for r in rows if not r.ok]
        self.stdout.write(
            f"{len(rows) - len(failed)} of {len(rows)} within tolerance ({time.monotonic() - started:.1f} s)"
        )
        if failed:
            raise CommandError(
                f"{len(failed)} figure(s) outside tolerance: {', '.join(r.what for r in failed)}"
            )
