"""``python -m geceval cache [--info | --prune | --clear]``: geceval's disk cache (:mod:`geceval.cache`).

``--info`` (the default) prints the folder, its cap, and its entries and bytes by kind; ``--prune``
deletes the least recently used entries until the folder is within its cap (``--max-mb`` for
another cap this once); ``--clear`` deletes every entry. Only files named as cache entries are
deleted. Entries are recomputed when next needed, so each is safe while other processes score.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from geceval import cache
from geceval.errors import GecInputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--info", action="store_true", help="entries and bytes by kind (the default)")
    action.add_argument(
        "--prune", action="store_true", help="delete least recently used entries down to the cap"
    )
    action.add_argument("--clear", action="store_true", help="delete every entry")
    parser.add_argument("--dir", help="the cache folder (default: $GECEVAL_CACHE, else ~/.cache/geceval)")
    parser.add_argument(
        "--max-mb", help="with --prune: this cap in megabytes, not $GECEVAL_CACHE_MAX_MB (default 1024)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB"


def run(args: argparse.Namespace) -> int:
    if args.max_mb is not None and not args.prune:
        raise GecInputError("--max-mb is read with --prune only")
    root = args.dir or cache.default_cache_dir()
    cap = cache.max_bytes() if args.max_mb is None else int(cache.max_mb_from(args.max_mb) * 1024 * 1024)
    if args.clear:
        usage, did = cache.clear(root), "cleared"
    elif args.prune:
        usage, did = cache.prune(root, cap), "pruned"
    else:
        usage, did = cache.info(root), "info"
    out: dict[str, Any] = {
        "folder": str(usage.root),
        "max_bytes": cap,
        "entries": usage.entries,
        "bytes": usage.size,
        "by_kind": {k: {"entries": n, "bytes": b} for k, (n, b) in sorted(usage.by_namespace.items())},
    }
    if did != "info":
        out.update(deleted=usage.deleted, freed_bytes=usage.freed)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(
        f"cache {out['folder']}: {usage.entries} entries, {_mb(usage.size)} (cap {_mb(cap) if cap else 'none'})"
    )
    for kind, (n, size) in sorted(usage.by_namespace.items()):
        print(f"  {kind:<18} {n:7d} entries  {_mb(size):>10}")
    if did != "info":
        print(f"{did}: {usage.deleted} entries deleted, {_mb(usage.freed)} freed")
    return 0
