"""The web application uses one geceval cache per deployment (issue 43): its ``GECEVAL_CACHE``
setting, read from the environment, is the folder every process's ERRANT parses go to."""

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
            "print(settings.GECEVAL_CACHE); print(cache.default_cache_dir()); print(cache.enabled())",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.split()[-3:]  # after what the shell prints of its automatic imports


def test_the_apps_geceval_cache_is_its_setting_from_the_environment(tmp_path: Path) -> None:
    folder = tmp_path / "deployment-cache"
    out = _cache_dir_of_a_django_process({**os.environ, "GECEVAL_CACHE": str(folder)})
    assert out == [str(folder), str(folder), "True"]


def test_without_the_variable_the_app_uses_the_users_cache(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GECEVAL_CACHE"}
    env["HOME"] = str(tmp_path)
    expected = str(tmp_path / ".cache" / "geceval")
    assert _cache_dir_of_a_django_process(env) == [expected, expected, "True"]
