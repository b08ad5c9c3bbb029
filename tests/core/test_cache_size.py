"""geceval's disk cache kept under a cap (issue 43): the least recently used entries go first, a
read counts as a use, only the cache's own files are ever deleted, ``geceval cache`` shows, prunes
and clears it, and readers and writers racing a prune in other processes see a whole entry or none.

Every test gets its own empty cache folder (``tests/conftest.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from geceval import cache
from geceval.errors import GecInputError
from tests.shared_data import REPO

KB = 1024


def _key(n: int) -> str:
    return cache.digest("test", n)


def _entries(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


def _age(store: cache.Store, key: str, seconds_ago: float) -> None:
    t = time.time() - seconds_ago
    os.utime(store.path(key), (t, t))


@pytest.fixture
def no_cap():
    cache.configure(None, max_mb=0)
    yield
    cache.configure(None)


def test_prune_deletes_the_least_recently_used_and_a_read_counts_as_a_use(tmp_path: Path, no_cap) -> None:
    store = cache.Store(tmp_path, "test")
    for n in range(5):
        store.put(_key(n), bytes([n]) * (10 * KB))
        _age(store, _key(n), 1000 - n)  # 0 is the oldest, 4 the newest
    assert store.get(_key(0)) == bytes([0]) * (10 * KB)  # now the most recently used
    size = cache.info(tmp_path).size
    # room for three entries: 90% of the cap leaves three of five
    done = cache.prune(tmp_path, cap=int(size * 0.7))
    assert done.deleted == 2 and done.entries == 3
    assert [store.get(_key(n)) is not None for n in range(5)] == [True, False, False, True, True]
    assert cache.prune(tmp_path, cap=size).deleted == 0  # within its cap: nothing to do


def test_writes_past_the_cap_keep_the_folder_under_it(tmp_path: Path) -> None:
    cache.configure(tmp_path, max_mb=0.2)  # 204.8 kB
    try:
        store = cache.store("test")
        assert store is not None
        for n in range(60):
            store.put(_key(n), os.urandom(10 * KB))
            assert cache.info(tmp_path).size <= cache.max_bytes()
        assert cache.stats["pruned"] > 0
        assert store.get(_key(59)) is not None  # the newest survive
        assert store.get(_key(0)) is None  # the oldest went
    finally:
        cache.configure(None)


def test_no_cap_keeps_everything(tmp_path: Path, no_cap) -> None:
    store = cache.Store(tmp_path, "test")
    for n in range(30):
        store.put(_key(n), os.urandom(10 * KB))
    assert cache.max_bytes() == 0
    assert cache.info(tmp_path).entries == 30
    assert cache.prune(tmp_path).deleted == 0


def test_the_cap_comes_from_configure_else_the_variable_else_1024_mb(monkeypatch) -> None:
    monkeypatch.delenv("GECEVAL_CACHE_MAX_MB", raising=False)
    cache.configure(None)
    assert cache.max_bytes() == 1024 * 1024 * 1024
    monkeypatch.setenv("GECEVAL_CACHE_MAX_MB", "2.5")
    assert cache.max_bytes() == int(2.5 * 1024 * 1024)
    monkeypatch.setenv("GECEVAL_CACHE_MAX_MB", "0")
    assert cache.max_bytes() == 0
    cache.configure(None, max_mb=3)
    assert cache.max_bytes() == 3 * 1024 * 1024
    cache.configure(None)
    for bad in ("-1", "lots", "nan", "inf"):
        monkeypatch.setenv("GECEVAL_CACHE_MAX_MB", bad)
        with pytest.raises(GecInputError, match="GECEVAL_CACHE_MAX_MB"):
            cache.max_bytes()
    with pytest.raises(ValueError):
        cache.configure(None, max_mb=-1)


def test_only_the_caches_own_files_are_deleted(tmp_path: Path, no_cap) -> None:
    store = cache.Store(tmp_path, "errant-parse")
    store.put(_key(1), b"x" * KB)
    ensemble = tmp_path / "ensemble-features" / f"{_key(2)}.json"
    ensemble.parent.mkdir()
    ensemble.write_text("{}")
    theirs = [tmp_path / "notes.txt", tmp_path / "errant-parse" / "README", tmp_path / "photos" / "cat.jpg"]
    for path in theirs:
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"y" * 100 * KB)
    stale = store.path(_key(1)).parent / ".tmp-crashed"
    stale.write_bytes(b"z")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    fresh = store.path(_key(1)).parent / ".tmp-writing"
    fresh.write_bytes(b"z")

    assert cache.info(tmp_path).entries == 2  # the Store's entry and the ensemble's, no other file
    assert cache.prune(tmp_path, cap=1).deleted == 2
    assert not stale.exists() and fresh.exists()  # a crashed writer's leftover, not a live writer's
    assert all(p.exists() for p in theirs)

    store.put(_key(3), b"x")
    done = cache.clear(tmp_path)
    assert done.deleted == 1 and cache.info(tmp_path).entries == 0
    assert all(p.exists() for p in theirs)


def test_a_reader_whose_entry_is_pruned_recomputes_and_never_crashes(
    tmp_path: Path, no_cap, monkeypatch
) -> None:
    store = cache.Store(tmp_path, "test")
    store.put(_key(1), b"payload")
    # pruned between the read and the touch that marks it used: the read bytes are whole
    real_read = Path.read_bytes

    def read_then_pruned(path: Path) -> bytes:
        data = real_read(path)
        cache.clear(tmp_path)
        return data

    monkeypatch.setattr(Path, "read_bytes", read_then_pruned)
    assert store.get(_key(1)) == b"payload"
    monkeypatch.setattr(Path, "read_bytes", real_read)
    assert store.get(_key(1)) is None  # gone: the caller recomputes
    store.put(_key(1), b"payload")
    assert store.get(_key(1)) == b"payload"


_WORKER = textwrap.dedent(
    """
    import hashlib, json, os, random, sys, time
    from geceval import cache
    root, seed, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    cache.configure(root, max_mb=0.25)
    store = cache.store("race")
    rng = random.Random(seed)
    def payload(n):  # what an entry must hold, whoever wrote it
        return hashlib.sha256(str(n).encode()).digest() * (64 + n % 64)
    counts = {"hit": 0, "miss": 0, "prunes": 0}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        n = rng.randrange(120)
        key = cache.digest("race", n)
        got = store.get(key)
        if got is None:
            counts["miss"] += 1
            store.put(key, payload(n))  # recomputed, as a metric does
        else:
            assert got == payload(n), n
            counts["hit"] += 1
        if rng.random() < 0.05:
            cache.prune(root, cap=64 * 1024)
            counts["prunes"] += 1
    counts["damaged"] = cache.stats["damaged"]
    print(json.dumps(counts))
    """
)


def test_processes_reading_writing_and_pruning_at_once_see_whole_entries_or_none(tmp_path: Path) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(tmp_path), str(seed), "4"],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in range(4)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    assert all(r["damaged"] == 0 for r in results)
    assert sum(r["hit"] for r in results) > 0 and sum(r["prunes"] for r in results) > 0
    assert cache.info(tmp_path).size <= 0.25 * 1024 * 1024 * 1.1  # within a tenth of the cap


def _command(folder: Path, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "geceval", "cache", *args, "--json"],
        cwd=REPO,
        env={**os.environ, "GECEVAL_CACHE": str(folder), "GECEVAL_CACHE_MAX_MB": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_cache_command_info_prune_and_clear(tmp_path: Path, no_cap) -> None:
    store = cache.Store(tmp_path, "errant-edits")
    for n in range(8):
        store.put(_key(n), os.urandom(100 * KB))
        _age(store, _key(n), 100 - n)
    info = _command(tmp_path)
    assert info["entries"] == 8 and info["max_bytes"] == 1024 * 1024
    assert info["by_kind"]["errant-edits"]["entries"] == 8
    pruned = _command(tmp_path, "--prune", "--max-mb", "0.5")
    assert pruned["deleted"] == 4 and pruned["entries"] == 4 and pruned["bytes"] <= 0.45 * 1024 * 1024
    assert store.get(_key(7)) is not None and store.get(_key(0)) is None  # the oldest went
    cleared = _command(tmp_path, "--clear")
    assert cleared["deleted"] == 4 and cleared["entries"] == 0
    assert not (tmp_path / "errant-edits").exists()


def test_cache_command_refuses_a_bad_cap(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "geceval", "cache", "--prune", "--max-mb", "-3"],
        cwd=REPO,
        env={**os.environ, "GECEVAL_CACHE": str(tmp_path)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "give megabytes" in done.stderr
