"""Errors the core raises for bad input: always naming the file, line and problem."""

from __future__ import annotations


class GecInputError(ValueError):
    """Malformed input. ``str()`` reads ``path:line: problem`` (line omitted when unknown)."""

    def __init__(self, problem: str, *, path: str | None = None, line: int | None = None) -> None:
        self.problem = problem
        self.path = path
        self.line = line
        where = path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {problem}")
