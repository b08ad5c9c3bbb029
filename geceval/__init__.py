"""GEC Arena's framework-free core: metric scorers, judgment statistics, formats.

Plain data in, plain data out. Nothing in this package may import Django; a
test checks that in a subprocess. Every algorithm has a command line:
``python -m geceval --help``.
"""

__version__ = "0.1.0"

from geceval import _old_paths

_old_paths.install()  # the import paths issue 37 retired keep working for one release, with a warning
