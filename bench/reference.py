"""Running a reference tool beside ours in the same benchmark: no quoted times.

Every ratio a benchmark prints comes from two measurements made in the same run on the same data:
- in-process: the scoring call alone, timed inside each tool's own interpreter (ours here; the
  Python 2.7 reference tools by a small driver in ``bench/py2/`` that wraps their scoring call),
  excluding start-up and file reading;
- whole process: the command as a user runs it, start-up and file reading included (CPU of the
  child process and its own children, from ``wait4``).
Both are CPU seconds (user + system), repeated; ``Timing`` keeps min and median.
The reference tools live in ``../shared/reference-tools`` (not shipped); without them, or without
Python 2.7, a benchmark skips with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GEC_SHARED_DIR", REPO.parent / "shared"))  # as tests/shared_data.py
TOOLS = SHARED / "reference-tools"
PY2LIB = Path(os.environ.get("PY2LIB", Path.home() / ".cache" / "py2lib"))
DRIVERS = Path(__file__).resolve().parent / "py2"


class Skip(Exception):
    """The reference (or its data) is not here: the benchmark says why and stops."""


@dataclass
class Timing:
    samples: list[float] = field(default_factory=list)

    @property
    def min(self) -> float:
        return min(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def __str__(self) -> str:
        return f"{self.min:8.3f} / {self.median:8.3f}"


def python2() -> list[str]:
    """The command that runs Python 2.7 with the reference tools' dependencies, installing them once."""
    if not TOOLS.is_dir():
        raise Skip(f"the reference tools are not at {TOOLS}")
    exe = shutil.which("python2.7") or shutil.which("python2")
    if exe is None:
        raise Skip("Python 2.7 is not installed (the reference tools are Python 2)")
    env = _py2_env()
    # the interpreter itself, not pyenv's shell shim, so start-up is the tool's own
    where = subprocess.run(
        [exe, "-c", "import sys; print(sys.executable)"], env=env, capture_output=True, text=True
    )
    exe = where.stdout.strip() or exe
    probe = [exe, "-c", "import numpy, trueskill"]
    if subprocess.run(probe, env=env, capture_output=True).returncode != 0:
        setup = subprocess.run(["bash", str(TOOLS / "setup.sh"), str(PY2LIB)], capture_output=True, text=True)
        if subprocess.run(probe, env=env, capture_output=True).returncode != 0:
            raise Skip(
                f"could not install the reference tools' Python 2 dependencies: {setup.stdout}{setup.stderr}"
            )
    return [exe]


def _py2_env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(PY2LIB), PYENV_VERSION=os.environ.get("PYENV_VERSION", "2.7.18"))
    env.pop("PYTHONHOME", None)
    return env


def need(*paths: Path) -> None:
    for path in paths:
        if not path.exists():
            raise Skip(f"missing data file {path}")


def whole_process(
    cmd: Sequence[str],
    *,
    cwd: Path | None = None,
    py2: bool = False,
    stdin: Path | None = None,
    env: dict[str, str] | None = None,
):
    """Run a command (``env``: variables added to this environment); returns (child CPU seconds, stdout).

    The CPU is the child's own (and its descendants'), read from ``wait4`` when it is reaped, so
    commands run from several threads at once are measured apart.
    """
    child_env = _py2_env() if py2 else ({**os.environ, **env} if env else None)
    with (
        open(stdin, "rb") if stdin else open(os.devnull, "rb") as inp,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
    ):
        proc = subprocess.Popen(list(cmd), cwd=cwd, stdin=inp, stdout=out, stderr=err, env=child_env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}): {stderr[-2000:]}")
    return usage.ru_utime + usage.ru_stime, stdout


def py2_driver(driver: str, *args: str, cwd: Path | None = None, stdin: Path | None = None) -> dict:
    """Run ``bench/py2/<driver>`` under Python 2.7; it prints one JSON line with its in-process CPU."""
    _, out = whole_process([*python2(), str(DRIVERS / driver), *args], cwd=cwd, py2=True, stdin=stdin)
    return json.loads(out.strip().splitlines()[-1])


def ours_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "geceval", *args]


def cpu_call(fn: Callable[[], object]) -> tuple[float, object]:
    t0 = time.process_time()
    value = fn()
    return time.process_time() - t0, value


def repeat(n: int, measure: Callable[[], tuple[float, object]]) -> tuple[Timing, object]:
    timing, value = Timing(), None
    for _ in range(n):
        cpu, value = measure()
        timing.samples.append(cpu)
    return timing, value


def print_ratio_table(title: str, rows: list[tuple[str, Timing, Timing]]) -> None:
    """rows: (what, reference timing, our timing); prints CPU min / median and the ratio of minima."""
    print(title)
    print(
        f"  {'':<14} {'reference CPU-s min / median':>30} {'ours CPU-s min / median':>26} {'ratio (min)':>12}"
    )
    for what, ref, ours in rows:
        print(f"  {what:<14} {ref!s:>30} {ours!s:>26} {ref.min / max(ours.min, 1e-9):11.1f}x")


def machine_load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def run_main(main: Callable[[], int]) -> int:
    """Skips print their reason and exit 0, so `make bench` goes on; a mismatch exits 1."""
    try:
        return main()
    except Skip as exc:
        print(f"SKIPPED: {exc}")
        return 0
