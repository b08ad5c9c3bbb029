"""Pausing Python's cyclic garbage collector while a process allocates what it keeps.

Importing numpy and numba and loading the cached TrueSkill kernel allocate a few hundred
thousand objects that live as long as the process; reading 28,146 judgments allocates ~85,000
that live as long as the command. Each 700 allocations start a collection, and the older
generations are traversed again and again as they grow: ~0.15 CPU-s of `geceval rank`'s ~1.9
went to collections that found nothing (docs/benchmarks.md, "TrueSkill kernel"). Reference
counting still frees everything as usual; only cycle detection waits.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused(*, freeze: bool = False) -> Iterator[None]:
    """No cyclic collection inside the block; ``freeze``: afterwards, move every object alive then
    to the permanent generation (for what lives until the process ends: modules, compiled code), so
    later collections never traverse it again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()
