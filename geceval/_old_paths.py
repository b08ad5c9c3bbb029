"""The import paths issue 37 retired: each still imports, with a DeprecationWarning, for one release.

``geceval.judgments`` is ``geceval.formats.judgments`` (the same module object, so a
``mock.patch("geceval.judgments.x")`` patches the real one). ``geceval.prws`` is the one old path
that became two modules (the statistics and their file readers); ``geceval.stats_cli`` a package
whose command modules moved one by one. The old names of ``geceval.metaeval`` and ``geceval.traps``
(modules that became packages) are answered by those packages' ``__getattr__``.

A finder rather than a file left at each old path: a file at the old path turns git's rename into
an edit of that file plus a new file, so another branch's edits to the old module would land on the
re-export at merge instead of following the module to its new home.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

MOVED: dict[str, str] = {
    "geceval.judgments": "geceval.formats.judgments",
    "geceval.judgment_stream": "geceval.formats.judgment_stream",
    "geceval.appraise_items": "geceval.formats.appraise_items",
    "geceval.convert": "geceval.metrics.references",
    "geceval.joins": "geceval.formats.joins",
    "geceval.prws": "geceval.human.prws",
    "geceval.prws_reliability": "geceval.human.prws_reliability",
    "geceval.agreement": "geceval.human.agreement",
    "geceval.worker_checks": "geceval.human.worker_checks",
    "geceval.screen_draws": "geceval.human.screen_draws",
    "geceval.metaeval_2024": "geceval.metaeval.kobayashi2024",
    "geceval.hybrid_metaeval": "geceval.metaeval.hybrids",
    "geceval.sentence_level": "geceval.metaeval.sentence_scores",
    "geceval.editstats": "geceval.metaeval.edit_stats",
    "geceval.napoles2015": "geceval.papers.napoles2015",
    "geceval.sakaguchi2016": "geceval.papers.sakaguchi2016",
    "geceval.sakaguchi2016_table6": "geceval.papers.sakaguchi2016_table6",
    "geceval.sakaguchi2016_table7": "geceval.papers.sakaguchi2016_table7",
    "geceval.insert_errors": "geceval.traps.inserter",
    "geceval.insert_errors_rules": "geceval.traps.rules",
    "geceval.insert_errors_words": "geceval.traps.words",
    "geceval.edit_stats_cli": "geceval.cli.edit_stats",
    "geceval.insert_errors_cli": "geceval.cli.insert_errors",
    "geceval.stats_cli": "geceval.cli.output",
    "geceval.stats_cli.agreement": "geceval.cli.agreement",
    "geceval.stats_cli.ensemble": "geceval.cli.ensemble",
    "geceval.stats_cli.meta_eval": "geceval.cli.meta_eval",
    "geceval.stats_cli.meta_eval_2024": "geceval.cli.meta_eval_2024",
    "geceval.stats_cli.prws": "geceval.cli.prws",
    "geceval.stats_cli.worker_checks": "geceval.cli.worker_checks",
    # the metric scorers (geceval/metrics/), the TrueSkill engine (geceval/human/) and two commands
    "geceval.ensemble": "geceval.metrics.ensemble.model",
    "geceval.ensemble_cv": "geceval.metrics.ensemble.cross_validation",
    "geceval.ensemble_features": "geceval.metrics.ensemble.features",
    "geceval.errant_annotation": "geceval.metrics.errant.annotation",
    "geceval.errant_scorer": "geceval.metrics.errant.scorer",
    "geceval.gleu": "geceval.metrics.gleu.plus",
    "geceval.gleu2015": "geceval.metrics.gleu.gleu2015",
    "geceval.gleu_counts": "geceval.metrics.gleu.counts",
    "geceval.gleu_green": "geceval.metrics.gleu.green",
    "geceval.gleu_sampling": "geceval.metrics.gleu.sampling",
    "geceval.gleu_variants": "geceval.metrics.gleu.variants",
    "geceval.gotoscorer": "geceval.metrics.gotoscorer",
    "geceval.imeasure": "geceval.metrics.imeasure.scorer",
    "geceval.imeasure_align": "geceval.metrics.imeasure.align",
    "geceval.m2": "geceval.metrics.m2.scorer",
    "geceval.m2_lattice": "geceval.metrics.m2.lattice",
    "geceval.m2_lattice_np": "geceval.metrics.m2.lattice_np",
    "geceval.rank_cli": "geceval.cli.rank",
    "geceval.ranking": "geceval.human.system_ranking",
    "geceval.ranking_kernel": "geceval.human.trueskill_kernel",
    "geceval.ranking_lockstep": "geceval.human.trueskill",
    "geceval.ranking_trueskill": "geceval.human.trueskill",
    "geceval.sacre": "geceval.metrics.sacre",
    "geceval.score_cli": "geceval.cli.score",
    "geceval.sent_metrics": "geceval.metrics.sentence_averaged",
}
"""Old module -> its new home."""

SPLIT: dict[str, tuple[str, ...]] = {
    "geceval.prws": ("geceval.human.prws", "geceval.formats.prws_csv"),
    "geceval.ranking": (
        "geceval.human.system_ranking",
        "geceval.human.trueskill",
        "geceval.human.expected_wins",
        "geceval.human.pairs",
    ),
    "geceval.ranking_trueskill": ("geceval.human.trueskill", "geceval.human.pairs"),
}
"""Old modules whose names now live in several modules (read in order: the first that has a name)."""

PACKAGES = frozenset({"geceval.stats_cli"})
"""Old packages: a module of their own (holding the new home's names) so their old submodules import."""

RENAMED_IN_PACKAGE: dict[str, str] = {
    "geceval.metaeval": "geceval.metaeval.correlation",
    "geceval.traps": "geceval.traps.hidden",
}
"""Old modules that became packages: the module whose names the package still answers for."""


def warn(old: str, new: str) -> None:
    """A DeprecationWarning attributed to the code that imported the old path (past importlib's frames,
    this module's and a package's ``__getattr__``)."""
    frame, level = sys._getframe(1), 2
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith("<frozen importlib"):
            pass  # the warnings module skips importlib's own frames when it counts ``stacklevel``
        elif code.co_filename == __file__ or code.co_name == "__getattr__":
            level += 1
        else:
            break
        frame = frame.f_back
    warnings.warn(f"{old} is deprecated (issue 37): import {new}", DeprecationWarning, stacklevel=level)


def package_getattr(package: str, name: str):
    """An old module-level name of ``package`` (``RENAMED_IN_PACKAGE``): found, with a warning."""
    home = RENAMED_IN_PACKAGE[package]
    if name.startswith("__"):
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name, _MISSING)
    if value is _MISSING:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    warn(f"{package}.{name}", f"{home}.{name}")
    return value


_MISSING = object()


class _OldPathFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=fullname in PACKAGES)

    def create_module(self, spec):
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        old = module.__name__
        homes = SPLIT.get(old, (MOVED[old],))
        warn(old, " or ".join(homes))
        if old not in SPLIT and old not in PACKAGES:
            # the import system returns what sys.modules holds once this returns: the new module itself
            sys.modules[old] = importlib.import_module(homes[0])
            return
        for home in reversed(homes):
            names = vars(importlib.import_module(home))
            module.__dict__.update({k: v for k, v in names.items() if not k.startswith("__")})


def install() -> None:
    if not any(isinstance(finder, _OldPathFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OldPathFinder())  # before PathFinder: a stale directory at an old path loses
