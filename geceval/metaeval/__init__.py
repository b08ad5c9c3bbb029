"""Meta-evaluation: how well metric scores agree with human judgments, at system and sentence level.

``correlation`` (system correlations, sentence agreement, Williams test, hybrid systems),
``kobayashi2024`` (system subsets and windows), ``hybrids`` (GMEG's real plus hybrid systems),
``sentence_scores`` (our metrics' scores of the judged sentences), ``edit_stats`` (the edit
statistics the papers report of the texts they evaluate metrics on).
"""


def __getattr__(name: str):
    # lazy: ``geceval.metaeval`` was one module until issue 37; its old names still resolve, with a warning
    from geceval._old_paths import package_getattr

    return package_getattr(__name__, name)
