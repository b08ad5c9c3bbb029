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
import tempfile
from collections import Counter
from pathlib import Path

log = logging.getLogger(__name__)

_MAGIC = b"geceval-cache 1\n"
_DIGEST_SIZE = 32

_configured: dict[str, object] = {"dir": None, "enabled": True}

stats: Counter[str] = Counter()
"""Process-wide counts of ``hit``, ``miss``, ``write`` and ``damaged`` entries (tests and benchmarks read them)."""


def default_cache_dir() -> Path:
    """The folder :func:`configure` set, else ``$GECEVAL_CACHE``, else ``~/.cache/geceval``."""
    configured = _configured["dir"]
    if configured is not None:
        return Path(str(configured))
    return Path(os.environ.get("GECEVAL_CACHE") or Path.home() / ".cache" / "geceval")


def configure(directory: str | os.PathLike[str] | None = None, *, enabled: bool = True) -> None:
    """Use ``directory`` (None: back to ``$GECEVAL_CACHE`` / the default) and turn the cache on or off."""
    _configured["dir"] = None if directory is None else os.fspath(directory)
    _configured["enabled"] = enabled


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
        self.root = Path(root) / namespace

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
