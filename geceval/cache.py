"""geceval's content-addressed cache on disk (issue 43): ``$GECEVAL_CACHE``, default ``~/.cache/geceval``.

What is slow to compute and depends only on its inputs (spaCy parses and ERRANT edits, the
ensemble's features) is kept here under a key that digests everything the value depends on: the
content, the versions of the libraries and model that made it, and the settings. A changed input,
library or setting gives another key, so an entry is never stale; nothing is ever invalidated.

Safety:

- Writers are atomic: an entry is written to a temporary file in its own folder and renamed over
  its name (``os.replace``), so a concurrent reader sees no entry or a whole one, and two writers
  of one key write the same bytes.
- Every entry carries the SHA-256 of its payload. A read that finds a short, damaged or foreign
  file (or a payload its reader cannot decode: :meth:`Store.discard`) drops the entry and the
  caller recomputes it, once; a damaged entry is never trusted.
- A cache that cannot be written (read-only disk, full disk) costs the recomputation next time,
  never the result: the failure is logged and scoring goes on.

Size: the folder is kept under a cap (:func:`max_bytes`: :func:`configure`'s ``max_mb``, else
``$GECEVAL_CACHE_MAX_MB``, else 1024 MB; 0: no cap). A read that hits touches the entry's times,
so an entry's modification time is when it was last written or read; when a process's writes take
the folder past the cap, :func:`prune` deletes the least recently used entries until it is at 90%
of the cap. A process counts what it writes and looks at the whole folder again only after its
first write, a tenth of the cap written or a minute gone, so other processes' writes are seen
late: the cap is kept within what a minute of writing adds. Pruning only unlinks whole entries
(and temporary files a crashed writer left over an hour ago): a reader racing it has either opened
the file and reads all of it, or finds no entry and recomputes, never a partial file. Only files
named as entries are ever deleted, so a cache pointed at a folder that holds other files leaves
them alone. ``python -m geceval cache --info | --prune | --clear`` shows, prunes or empties it.

The folder: :func:`configure` (the web application calls it with its ``GECEVAL_CACHE`` setting,
one cache per deployment; ``geceval score --no-cache`` turns it off), else ``$GECEVAL_CACHE``,
else ``~/.cache/geceval``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from geceval.errors import GecInputError

log = logging.getLogger(__name__)

_MAGIC = b"geceval-cache 1\n"
_DIGEST_SIZE = 32

DEFAULT_MAX_MB = 1024.0
_PRUNE_TO = 0.9  # a prune leaves the folder at this share of the cap
_RESCAN_SHARE = 0.1  # a process looks at the folder again after writing this share of the cap...
_RESCAN_SECONDS = 60.0  # ...or this long after it last looked
_STALE_TMP_SECONDS = 3600.0  # a writer's temporary file this old was left by a crash
_ENTRY = re.compile(r"[0-9a-f]{64}(\.json)?")
_TMP = re.compile(r"\.tmp-.*|.*\.tmp")
_SHARD = re.compile(r"[0-9a-f]{2}")

_configured: dict[str, object] = {"dir": None, "enabled": True, "max_mb": None}

stats: Counter[str] = Counter()
"""Process-wide counts of ``hit``, ``miss``, ``write``, ``damaged`` and ``pruned`` entries (tests and
benchmarks read them)."""


def default_cache_dir() -> Path:
    """The folder :func:`configure` set, else ``$GECEVAL_CACHE``, else ``~/.cache/geceval``."""
    configured = _configured["dir"]
    if configured is not None:
        return Path(str(configured))
    return Path(os.environ.get("GECEVAL_CACHE") or Path.home() / ".cache" / "geceval")


def configure(
    directory: str | os.PathLike[str] | None = None, *, enabled: bool = True, max_mb: float | None = None
) -> None:
    """Use ``directory`` (None: back to ``$GECEVAL_CACHE`` / the default), turn the cache on or off,
    and cap it at ``max_mb`` megabytes (None: ``$GECEVAL_CACHE_MAX_MB`` / 1024; 0: no cap)."""
    if max_mb is not None and not max_mb >= 0:
        raise ValueError(f"max_mb={max_mb!r}: a cache cap is 0 (none) or a positive number of megabytes")
    _configured["dir"] = None if directory is None else os.fspath(directory)
    _configured["enabled"] = enabled
    _configured["max_mb"] = max_mb
    _written.clear()


def max_mb_from(raw: str | None) -> float:
    """``GECEVAL_CACHE_MAX_MB`` read: empty or unset is the default, else a number >= 0 (0: no cap)."""
    if raw is None or not raw.strip():
        return DEFAULT_MAX_MB
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value >= 0 or value == float("inf"):
        raise GecInputError(f"GECEVAL_CACHE_MAX_MB={raw!r}: give megabytes, a number >= 0 (0: no cap)")
    return value


def max_bytes() -> int:
    """The cap on the cache folder's size in bytes (0: no cap): :func:`configure`'s ``max_mb``, else
    ``$GECEVAL_CACHE_MAX_MB``, else 1024 MB."""
    configured = _configured["max_mb"]
    mb = max_mb_from(os.environ.get("GECEVAL_CACHE_MAX_MB")) if configured is None else float(str(configured))
    return int(mb * 1024 * 1024)


def enabled() -> bool:
    return bool(_configured["enabled"])


def digest(*parts: object) -> str:
    """SHA-256 of the JSON of each part, parts separated (the key of a cache entry)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(json.dumps(part, ensure_ascii=False).encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


class Store:
    """The entries of one kind (``namespace``) under the cache folder, one file per key."""

    def __init__(self, root: str | os.PathLike[str], namespace: str) -> None:
        self.base = Path(root)
        self.root = self.base / namespace

    def path(self, key: str) -> Path:
        return self.root / key[:2] / key

    def get(self, key: str) -> bytes | None:
        """The payload stored under ``key``, or None (absent, or damaged and dropped)."""
        path = self.path(key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            stats["miss"] += 1
            return None
        except OSError as exc:
            log.warning("cache entry %s unreadable (%s): recomputing", path, exc)
            stats["miss"] += 1
            return None
        head = len(_MAGIC) + _DIGEST_SIZE
        payload = raw[head:]
        if (
            len(raw) < head
            or raw[: len(_MAGIC)] != _MAGIC
            or hashlib.sha256(payload).digest() != raw[len(_MAGIC) : head]
        ):
            self.discard(key)
            stats["miss"] += 1
            return None
        stats["hit"] += 1
        touch(path)
        return payload

    def put(self, key: str, payload: bytes) -> None:
        """Store ``payload`` under ``key`` atomically (see the module doc)."""
        path = self.path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            log.warning("cache entry %s not written (%s): it will be recomputed next time", path, exc)
            return
        stats["write"] += 1
        written(self.base, len(_MAGIC) + _DIGEST_SIZE + len(payload))

    def discard(self, key: str) -> None:
        """Drop a damaged entry (its bytes, or what they decode to, are wrong): it is recomputed."""
        path = self.path(key)
        log.warning("cache entry %s is damaged: dropped and recomputed", path)
        stats["damaged"] += 1
        # another process may have dropped it, or the folder is read-only: the next read checks again
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def store(namespace: str) -> Store | None:
    """The store of ``namespace`` in the cache folder, or None when the cache is off."""
    if not enabled():
        return None
    return Store(default_cache_dir(), namespace)


# ----------------------------------------------------------------------------- size: the cap and pruning


def touch(path: Path) -> None:
    """Mark an entry as just used (its access and modification times: now), so pruning keeps it.

    Not every file system updates access times on read (``noatime``, ``relatime``), hence both.
    An entry pruned meanwhile, or a read-only cache, is no error: the entry was read."""
    with contextlib.suppress(OSError):
        os.utime(path)


@dataclass
class _Written:
    """What this process knows of one cache folder's size: as of its last look, plus its own writes."""

    size: int = 0
    since: int = 0
    looked: float = float("-inf")


_written: dict[str, _Written] = {}


def written(root: str | os.PathLike[str], nbytes: int) -> None:
    """A writer wrote ``nbytes`` into the cache at ``root``: prune it when that takes it over the cap.

    The folder is looked at on this process's first write, then again after a tenth of the cap or
    a minute (see the module doc); in between the process adds up its own writes."""
    cap = max_bytes()
    if cap <= 0:
        return
    known = _written.setdefault(os.fspath(root), _Written())
    known.since += nbytes
    stale = time.monotonic() - known.looked > _RESCAN_SECONDS or known.since > cap * _RESCAN_SHARE
    if not stale and known.size + known.since <= cap:
        return
    pruned = prune(root, cap)
    known.size, known.since, known.looked = pruned.size, 0, time.monotonic()


@dataclass
class _Entry:
    path: Path
    size: int
    used: float


@dataclass
class Usage:
    """A cache folder's entries: how many, their bytes, by namespace (``cache --info``); after a
    prune, also what it deleted."""

    root: Path
    entries: int = 0
    size: int = 0
    by_namespace: dict[str, tuple[int, int]] = field(default_factory=dict)
    deleted: int = 0
    freed: int = 0


def _scan(root: Path) -> tuple[list[_Entry], list[Path]]:
    """Every entry under ``root`` (``NAMESPACE/xx/KEY`` and ``NAMESPACE/KEY.json``), and temporary
    files left by a writer that died over an hour ago. Files named otherwise are not the cache's."""
    entries: list[_Entry] = []
    stale: list[Path] = []
    now = time.time()

    def walk(folder: Path, depth: int) -> Iterator[os.DirEntry[str]]:
        try:
            with os.scandir(folder) as it:
                items = list(it)
        except OSError:  # gone meanwhile, or not ours to read
            return
        for item in items:
            try:
                if item.is_dir(follow_symlinks=False):
                    if depth < 2:
                        yield from walk(Path(item.path), depth + 1)
                elif item.is_file(follow_symlinks=False) and depth >= 1:
                    yield item
            except OSError:
                continue

    for item in walk(root, 0):
        try:
            st = item.stat(follow_symlinks=False)
        except OSError:  # deleted by another process meanwhile
            continue
        if _ENTRY.fullmatch(item.name):
            entries.append(_Entry(Path(item.path), st.st_size, max(st.st_mtime, st.st_atime)))
        elif _TMP.fullmatch(item.name) and now - st.st_mtime > _STALE_TMP_SECONDS:
            stale.append(Path(item.path))
    return entries, stale


def _usage(root: Path, entries: list[_Entry]) -> Usage:
    usage = Usage(root, len(entries), sum(e.size for e in entries))
    for e in entries:
        namespace = e.path.relative_to(root).parts[0]
        n, size = usage.by_namespace.get(namespace, (0, 0))
        usage.by_namespace[namespace] = (n + 1, size + e.size)
    return usage


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
    except FileNotFoundError:  # another process pruned it first
        return False
    except OSError as exc:
        log.warning("cache entry %s not deleted (%s)", path, exc)
        return False
    return True


def info(root: str | os.PathLike[str] | None = None) -> Usage:
    """How many entries, and bytes, the cache at ``root`` (default: :func:`default_cache_dir`) holds."""
    folder = Path(root) if root is not None else default_cache_dir()
    return _usage(folder, _scan(folder)[0])


def prune(root: str | os.PathLike[str] | None = None, cap: int | None = None) -> Usage:
    """Delete the least recently used entries of the cache at ``root`` until it holds at most 90% of
    ``cap`` bytes (default :func:`max_bytes`; nothing when it is within ``cap``, or ``cap`` is 0),
    and temporary files a crashed writer left. Returns what is left and what was deleted."""
    folder = Path(root) if root is not None else default_cache_dir()
    cap = max_bytes() if cap is None else cap
    entries, stale = _scan(folder)
    deleted = freed = 0
    for path in stale:
        _unlink(path)
    total = sum(e.size for e in entries)
    left = entries
    if cap > 0 and total > cap:
        entries.sort(key=lambda e: e.used)  # least recently used first
        keep_under = cap * _PRUNE_TO
        n = 0
        while n < len(entries) and total > keep_under:
            total -= entries[n].size
            if _unlink(entries[n].path):
                deleted += 1
                freed += entries[n].size
            n += 1
        left = entries[n:]
        stats["pruned"] += deleted
        log.info("cache %s over %d bytes: %d least recently used entries deleted", folder, cap, deleted)
    usage = _usage(folder, left)
    usage.deleted, usage.freed = deleted, freed
    return usage


def clear(root: str | os.PathLike[str] | None = None) -> Usage:
    """Delete every entry (and temporary file) of the cache at ``root``, and its emptied folders."""
    folder = Path(root) if root is not None else default_cache_dir()
    entries, _ = _scan(folder)
    usage = _usage(folder, [])
    for e in entries:
        if _unlink(e.path):
            usage.deleted += 1
            usage.freed += e.size
    # the folders entries live in ("NAMESPACE/xx" and "NAMESPACE"), those a prune emptied too
    shards = {p for p in folder.glob("*/*") if p.is_dir() and _SHARD.fullmatch(p.name)}
    emptied = shards | {e.path.parent for e in entries}
    for sub in emptied:
        for tmp in sub.glob("*"):
            if _TMP.fullmatch(tmp.name):
                _unlink(tmp)
    emptied |= {sub.parent for sub in emptied if sub.parent != folder}
    for sub in sorted(emptied, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty: a writer's new entry, or a file not ours
            sub.rmdir()
    _written.pop(os.fspath(folder), None)
    return usage
