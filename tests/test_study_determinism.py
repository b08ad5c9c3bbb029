"""A study file builds the same campaign in any process (issue 39): its screens, candidates, HITs,
traps, gold copies and qualification test depend on the file (its seed) and the campaign's secret,
never on the process. Each example is applied in fresh Python processes with different
``PYTHONHASHSEED`` values (string hashes, so set order, differ), into an emptied database, and each
process prints the campaign in database-free terms. With the same trap secret the two descriptions
are equal; with another secret, what the secret does not draw (the judged screens, their HITs, the
qualification test) is equal still. The CI failure of stop 47 came from such a draw: the test's
screens were drawn from a list in id order, and ids follow the secret's insert order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.celery_workers import database_url

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "docs" / "examples" / "studies"
NAMES = {
    "prws": "Example PRWS study",
    "ranking": "Example ranking study",
    "edits": "Example edit-level study",
}
TEST_SCREENS = 4
"""Screens of the qualification test each process draws (``qualification_hit_create``)."""


def describe(name: str) -> dict:
    """The campaign called ``name`` without a database id: every screen by (sentence position,
    index), in HIT order, with its candidates (text and systems), its control and gold answers."""
    from ranking.models import Campaign, Control, GoldScreen, Screen

    campaign = Campaign.objects.get(name=name)
    screens = list(
        Screen.objects.filter(campaign=campaign)
        .select_related("sentence", "hit")
        .prefetch_related("candidates__outputs__system")
    )
    key = {s.pk: (s.sentence.position, s.index) for s in screens}
    candidate = {c.pk: (*key[s.pk], c.position) for s in screens for c in s.candidates.all()}
    controls = {c.screen_id: c for c in Control.objects.filter(screen__campaign=campaign)}
    gold = {g.screen_id: g for g in GoldScreen.objects.filter(screen__campaign=campaign)}
    out = []
    for s in sorted(screens, key=lambda s: (s.hit.qualification, s.hit.index, s.hit_position)):
        control = controls.get(s.pk)
        row = {
            "screen": key[s.pk],
            "hit": [s.hit.index, s.hit.domain, s.hit.qualification, s.hit_position],
            "candidates": [
                [c.position, c.text, sorted(o.system.name for o in c.outputs.all())]
                for c in s.candidates.all()
            ],
        }
        if control is not None:
            row["control"] = [
                control.kind,
                key[control.original_id],
                candidate.get(control.base_id),
                candidate.get(control.trap_id),
                control.base_quality,
                control.trap_quality,
            ]
        if s.pk in gold:
            g = gold[s.pk]
            row["gold"] = [
                g.marked and key[g.marked.screen_id],
                sorted((candidate[int(k)], v) for k, v in g.expected.items()),
            ]
        out.append(row)
    return {"trap_secret": campaign.trap_secret, "screens": out}


def judged_part(description: dict) -> list:
    """What the file alone draws: the judged screens with their candidates and HITs (not where in
    its HIT a screen sits: the secret shuffles a HIT's screens with its controls), and the test."""
    judged = [
        [r["screen"], r["hit"][:3], r["candidates"]]
        for r in description["screens"]
        if "control" not in r and not (r.get("gold") or [None])[0] and not r["hit"][2]
    ]
    # a copy in the test takes an index past every screen of its sentence, controls included
    test = [[r["screen"][0], r["hit"], r["candidates"]] for r in description["screens"] if r["hit"][2]]
    return [sorted(judged), test]


_SCRIPT = """\
import json, secrets, sys
import django

django.setup()
from django.core.management import call_command

from ranking.models import Campaign
from ranking.quality.gold import qualification_hit_create
from tests.test_study_determinism import TEST_SCREENS, describe

path, name, secret = sys.argv[1:4]
secrets.token_hex = lambda nbytes=None: secret  # the campaign's trap secret, drawn once per campaign
call_command("study", "apply", path, verbosity=0)
qualification_hit_create(campaign=Campaign.objects.get(name=name), screens=TEST_SCREENS)
print(json.dumps(describe(name)))
"""


def _built(example: str, hash_seed: str, secret: str) -> dict:
    call_command("flush", interactive=False, verbosity=0)  # empty, ids from 1 again
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "DATABASE_URL": database_url()}
    env.pop("CELERY_BROKER_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(EXAMPLES / f"{example}.yaml"), NAMES[example], secret],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("example", sorted(NAMES))
def test_a_study_builds_the_same_campaign_in_processes_of_other_string_hashes(
    example, transactional_db, real_postgres
):
    first = _built(example, "1", "a" * 32)
    second = _built(example, "2", "a" * 32)
    assert first["trap_secret"] == "a" * 32
    assert len(first["screens"]) > 10
    if example != "edits":  # the edit-level example has no traps
        assert any("control" in r for r in first["screens"])
    assert first == second
    other = _built(example, "3", "b" * 32)
    assert judged_part(other) == judged_part(first)
