"""Deployment files kept right by tests: there is no Docker engine here to try them."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]


def compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def test_compose_has_the_five_services_with_health_checks_and_a_database_volume():
    c = compose()
    services = c["services"]
    assert {"postgres", "redis", "web", "worker", "beat"} <= set(services)
    for name in ["postgres", "redis", "web", "worker"]:
        assert "healthcheck" in services[name], name
    assert "pgdata:/var/lib/postgresql/data" in services["postgres"]["volumes"]
    assert "pgdata" in c["volumes"]
    assert "gunicorn" in services["web"]["command"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "config", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "config", "beat"]


def test_compose_app_services_use_the_settings_environment_variables():
    services = compose()["services"]
    documented = set(re.findall(r"^([A-Z_]+)=", (REPO / ".env.example").read_text(), re.M))
    for name in ["web", "worker", "beat", "migrate"]:
        env = services[name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:5432/" in env["DATABASE_URL"]
        assert env["CELERY_BROKER_URL"] == "redis://redis:6379/0"
        assert env["DEBUG"] == "false"
        assert set(env) <= documented, set(env) - documented
        assert services[name]["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_every_environment_variable_read_by_settings_is_in_env_example():
    settings_src = (REPO / "config" / "settings.py").read_text()
    read = set(re.findall(r'env_(?:bool|int|list)\("([A-Z_]+)"', settings_src))
    read |= set(re.findall(r'os\.environ\.get\("([A-Z_]+)"', settings_src))
    documented = set(re.findall(r"^([A-Z_]+)=", (REPO / ".env.example").read_text(), re.M))
    assert read - documented == set()


def test_product_code_reads_settings_directly_so_each_default_lives_only_in_settings_py():
    pattern = re.compile(r"getattr\(\s*settings\s*,")
    offenders = []
    for app in ["annotate", "ranking", "crowd", "config"]:
        for path in sorted((REPO / app).rglob("*.py")):
            text = path.read_text()
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                offenders.append(f"{path.relative_to(REPO)}:{line}")
    assert offenders == []


def _start(env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=REPO,
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_misconfiguration_fails_loudly_at_start_up():
    no_secret = _start({"DEBUG": "false", "ALLOWED_HOSTS": "x"})
    assert no_secret.returncode != 0 and "SECRET_KEY must be set" in no_secret.stderr
    bad_bool = _start({"DEBUG": "maybe"})
    assert bad_bool.returncode != 0 and "DEBUG='maybe' is not a boolean" in bad_bool.stderr
    bad_broker = _start({"DEBUG": "true", "CELERY_BROKER_URL": "http://nope"})
    assert bad_broker.returncode != 0 and "CELERY_BROKER_URL" in bad_broker.stderr
    bad_keep = _start({"DEBUG": "true", "EXPORT_JOB_FILES_KEEP_DAYS": "-1"})
    assert bad_keep.returncode != 0 and "EXPORT_JOB_FILES_KEEP_DAYS must be 0" in bad_keep.stderr
    ok = _start({"DEBUG": "true"})
    assert ok.returncode == 0, ok.stderr


@pytest.mark.parametrize(
    "weak",
    [
        "a-forty-seven-character-key-of-low-entropy-aaaa",  # the 47 characters
        "ab" * 40,  # long enough, two distinct characters
        "django-insecure-" + "k3x9-q7w2-z8r4-m1n6-p5t0-y2v8-b4c6-d1f3-g7h9",  # startproject's prefix
    ],
)
def test_production_refuses_a_secret_key_that_the_deploy_check_flags(weak):
    """Issue 36: Django warns about a weak key only under `check --deploy`; production start-up now refuses it."""
    result = _start({"DEBUG": "false", "ALLOWED_HOSTS": "x", "SECRET_KEY": weak})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "less than 50 characters" in result.stderr
    assert _start({"DEBUG": "true", "SECRET_KEY": weak}).returncode == 0  # a local run may use anything
    strong = _start({"DEBUG": "false", "ALLOWED_HOSTS": "x", "SECRET_KEY": secrets.token_urlsafe(50)})
    assert strong.returncode == 0, strong.stderr


def test_production_settings_pass_the_deploy_check():
    env = {
        "DEBUG": "false",
        "SECRET_KEY": "x" * 20 + "-a-long-random-production-secret-key-for-the-check",
        "ALLOWED_HOSTS": "arena.example.org",
        "SECURE_SSL_REDIRECT": "true",
        "SECURE_HSTS_PRELOAD": "true",
    }
    clean = {
        k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_core_package_imports_without_django():
    code = (
        "import importlib, pkgutil, sys\n"
        "import geceval\n"
        "for m in pkgutil.walk_packages(geceval.__path__, 'geceval.'):\n"
        "    if m.name in ('geceval.__main__',):\n"
        "        continue\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n == 'django' or n.startswith('django.'))\n"
        "print('loaded', len([n for n in sys.modules if n.startswith('geceval')]), 'core modules')\n"
        "assert not bad, bad\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "core modules" in result.stdout


def test_beat_schedules_every_repair_task_and_each_is_a_registered_task():
    from django.conf import settings

    from config.celery import app

    app.loader.import_default_modules()  # what a worker imports at start: every tasks module
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert scheduled == {
        "ranking.tasks.task_expire_assignments",
        "ranking.tasks.task_recompute_active_campaigns",
        "annotate.rewrites.tasks.task_grade_pending_qualifications",
        "ranking.analysis.tasks.task_resume_stale_runs",
        "ranking.analysis.tasks.task_reclaim_chunks",  # issue 18: chunks of a dead worker
        "annotate.jobs.tasks.task_import_repair",  # issue 18: background imports lost or orphaned
        "crowd.tasks.task_confirm_held",  # issue 35: held MTurk and Prolific work confirmed (or dropped)
        "annotate.jobs.tasks.task_export_files_expire",  # issue 40: export files kept a while
    }
    assert scheduled <= set(app.tasks)
    assert settings.CELERY_BEAT_SCHEDULE["expire-assignments"]["schedule"] == 60.0
