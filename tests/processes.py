"""Stopping the real processes tests start (gunicorn, Celery, redis-server)."""

from __future__ import annotations

import subprocess


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    """SIGTERM, then SIGKILL if it has not gone within ``timeout`` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)
