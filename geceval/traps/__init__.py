"""Traps: the rule-based error inserter (``inserter``, its ``rules`` and ``words``) and the hidden
traps built from it (``hidden``: an added error or an undone correction, checked with GLEU+)."""


def __getattr__(name: str):
    # lazy: ``geceval.traps`` was one module until issue 37; its old names still resolve, with a warning
    from geceval._old_paths import package_getattr

    return package_getattr(__name__, name)
