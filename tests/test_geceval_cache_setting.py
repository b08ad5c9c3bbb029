"""The web application uses one geceval cache per deployment (issue 43): its ``GECEVAL_CACHE``
setting, read from the environment, is the folder every process's ERRANT parses go to, kept under
its ``GECEVAL_CACHE_MAX_MB`` cap (the variable changed after start-up moves neither)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _cache_dir_of_a_django_process(env: dict[str, str]) -> list[str]:
    """The setting, geceval's cache folder and whether it is on, in a new Django process."""
    done = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            # the environment changed after start-up does not move the cache: the app pinned it
            "import os; from django.conf import settings; from geceval import cache; "
            "os.environ['GECEVAL_CACHE'] = '/elsewhere'; "
            "os.environ['GECEVAL_CACHE_MAX_MB'] = '7'; "
            "print(settings.GECEVAL_CACHE); print(cache.default_cache_dir()); print(cache.enabled()); "
            "print(cache.max_bytes())",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.split()[-4:]  # after what the shell prints of its automatic imports


def test_the_apps_geceval_cache_is_its_setting_from_the_environment(tmp_path: Path) -> None:
    folder = tmp_path / "deployment-cache"
    out = _cache_dir_of_a_django_process(
        {**os.environ, "GECEVAL_CACHE": str(folder), "GECEVAL_CACHE_MAX_MB": "300"}
    )
    assert out == [str(folder), str(folder), "True", str(300 * 1024 * 1024)]


def test_without_the_variable_the_app_uses_the_users_cache(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("GECEVAL_CACHE", "GECEVAL_CACHE_MAX_MB")}
    env["HOME"] = str(tmp_path)
    expected = str(tmp_path / ".cache" / "geceval")
    assert _cache_dir_of_a_django_process(env) == [expected, expected, "True", str(1024 * 1024 * 1024)]


def test_a_negative_cache_cap_stops_start_up() -> None:
    env = {**os.environ, "GECEVAL_CACHE_MAX_MB": "-5"}
    done = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert done.returncode != 0 and "GECEVAL_CACHE_MAX_MB=-5" in done.stderr
