"""`make backup` / `make restore` (issue 9): a restored database gives the same campaign results.

PostgreSQL only (skipped locally without it, a failure in CI). The test database is dumped with
`make backup`, restored with `make restore` into a new database, and the campaign results are
recomputed there by a separate process (``campaign_scores_recompute``): they equal the original's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from ranking.models import Rating, ScreenJudgment
from ranking.services import campaign_scores_recompute
from tests.factories import build_world
from tests.judging import do_hit, honest_prws

REPO = Path(__file__).resolve().parents[2]

RECOMPUTE = """
import json, django
django.setup()
from ranking.models import Rating, ScreenJudgment
from ranking.services import campaign_scores_recompute
rows = campaign_scores_recompute(campaign_id={campaign_id})
print(json.dumps({{
    "scores": sorted((r.system.name, round(r.mean_score, 9), r.items, r.ratings, r.meaning_changed) for r in rows),
    "judgments": ScreenJudgment.objects.count(),
    "ratings": sorted(Rating.objects.values_list("judgment__judge__username", "candidate__text", "score")),
}}))
"""


def _url(name: str) -> str:
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{name}"


def _env(url: str) -> dict[str, str]:
    env = dict(os.environ, DATABASE_URL=url, DJANGO_SETTINGS_MODULE="config.settings")
    env.pop("CELERY_BROKER_URL", None)  # eager: the recompute needs no worker
    return env


@pytest.mark.django_db(transaction=True)
def test_a_restored_database_gives_the_same_campaign_results(real_postgres, tmp_path):
    world = build_world(name="backup", judgments_per_item=2)
    for worker in world.workers[:2]:
        do_hit(world.campaign, worker, honest_prws)
    original = campaign_scores_recompute(campaign_id=world.campaign.pk)
    expected = {
        "scores": sorted(
            (r.system.name, round(r.mean_score, 9), r.items, r.ratings, r.meaning_changed) for r in original
        ),
        "judgments": ScreenJudgment.objects.count(),
        "ratings": sorted(
            [
                list(x)
                for x in Rating.objects.values_list("judgment__judge__username", "candidate__text", "score")
            ]
        ),
    }
    assert expected["judgments"] > 0 and expected["scores"]

    dump = tmp_path / "arena.dump"
    source = _url(connection.settings_dict["NAME"])
    run = subprocess.run(
        ["make", "-s", "backup", f"BACKUP_FILE={dump}"],
        cwd=REPO,
        env=_env(source),
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert dump.stat().st_size > 0

    target = f"{connection.settings_dict['NAME']}_restored"
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{target}"')
        cursor.execute(f'CREATE DATABASE "{target}"')
    try:
        run = subprocess.run(
            ["make", "-s", "restore", f"RESTORE_FILE={dump}"],
            cwd=REPO,
            env=_env(_url(target)),
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, run.stderr
        recomputed = subprocess.run(
            [sys.executable, "-c", RECOMPUTE.format(campaign_id=world.campaign.pk)],
            cwd=REPO,
            env=_env(_url(target)),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert recomputed.returncode == 0, recomputed.stderr
        got = json.loads(recomputed.stdout.strip().splitlines()[-1])
        got["scores"] = sorted(got["scores"])
        expected["scores"] = [list(x) for x in expected["scores"]]
        assert got == expected
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{target}" WITH (FORCE)')


def test_restore_refuses_without_a_file_or_a_database(tmp_path):
    env = dict(os.environ)
    env.pop("DATABASE_URL", None)
    run = subprocess.run(["make", "-s", "backup"], cwd=REPO, env=env, capture_output=True, text=True)
    assert run.returncode != 0 and "DATABASE_URL is not set" in run.stdout + run.stderr
    env["DATABASE_URL"] = "postgres://nobody@127.0.0.1:1/none"
    run = subprocess.run(["make", "-s", "restore"], cwd=REPO, env=env, capture_output=True, text=True)
    assert run.returncode != 0 and "RESTORE_FILE" in run.stdout + run.stderr
    run = subprocess.run(
        ["make", "-s", "restore", f"RESTORE_FILE={tmp_path}/missing.dump"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0 and "does not exist" in run.stdout + run.stderr
