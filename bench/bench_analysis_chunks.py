"""CPU of a chunked TrueSkill analysis run against the command line's, on gec-ranking (issue 23).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gec_arena_x .venv/bin/python \\
        bench/bench_analysis_chunks.py [--chunks 8 4 2 1] [--repeat 3] [--runs 1000]

Imports ``gec-ranking/data/all_judgments.xml`` without user ``non-native`` (28,146 pairs) into a
fresh project of the configured database (migrated; eager Celery, so every task runs in this
process and ``time.process_time`` counts all of it), loads the TrueSkill kernel once (as a worker
process does at start), then per ``--chunks`` value runs ``--repeat`` TrueSkill analysis runs of
``--runs`` runs: freeze, chunks, merge and result rows. The command line's side is
``geceval.human.system_ranking.rank`` on the same file read by ``read_pairwise`` (what ``geceval rank`` does after
its start-up). Every run's ranking must equal ``rank`` on the run's own frozen pairs (exit 1
otherwise). Goal: a chunked run costs at most 10% more CPU than the command line.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.contrib.auth import get_user_model

from geceval.formats.judgments import read_pairwise
from geceval.human.system_ranking import rank
from geceval.human.trueskill import load_kernel
from ranking.analysis import compute, reproduce
from ranking.analysis.models import RunInput


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--chunks", type=int, nargs="+", default=[8, 4, 2, 1])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=1000)
    args = parser.parse_args()
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min)")
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    _user, project = reproduce._project("bench-analysis-chunks")
    campaign = reproduce._import_rankings(
        project, "gec-ranking", path=args.data / "gec-ranking/data/all_judgments.xml",
        fmt="appraise-xml", exclude=["non-native"],
    )  # fmt: skip
    user = get_user_model().objects.get(username="reproduce")
    load_kernel()

    def command_line() -> float:
        t0 = time.process_time()
        pairs = read_pairwise(args.data / "gec-ranking/data/all_judgments.csv", "wmt-csv")
        rank(pairs, runs=args.runs, seed=0)
        return time.process_time() - t0

    cli = min(command_line() for _ in range(args.repeat))
    print(f"command line (read + rank, {args.runs} runs), min of {args.repeat}: {cli:.2f} CPU-s")
    ok = True
    for chunks in args.chunks:
        cpus, run = [], None
        for _ in range(args.repeat):
            t0 = time.process_time()
            run = reproduce._run(campaign, "trueskill", {"runs": args.runs, "chunks": chunks}, 0, user)
            cpus.append(time.process_time() - t0)
        pairs = compute.pairs_from_json(RunInput.objects.get(run=run).data["rankings"])
        expected = [(s.name, s.mu, *s.rank_range, s.cluster) for s in rank(pairs, runs=args.runs).systems]
        rows = run.rank_results.order_by("position")
        same = list(rows.values_list("name", "mu", "rank_lo", "rank_hi", "cluster")) == expected
        ok = ok and same
        print(
            f"{chunks} chunk(s): {min(cpus):.2f} CPU-s min of {args.repeat} ({100 * (min(cpus) / cli - 1):+.0f}%"
            f" vs the command line; goal <= +10%); timings {run.timings}; ranking "
            f"{'= rank() on the same pairs' if same else 'DIFFERS from rank()'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
