"""Errors the core raises for bad input: always naming the file, line and problem."""

from __future__ import annotations

UNNAMED = "<input>"
"""The name the readers give an input without one (geceval.formats); never shown in a message."""


class GecInputError(ValueError):
    """Malformed input. ``str()`` reads ``path:line: problem`` (line omitted when unknown)."""

    def __init__(self, problem: str, *, path: str | None = None, line: int | None = None) -> None:
        self.problem = problem
        self.path = path
        self.line = line
        # Shown to people as it is: no placeholder such as "<input>" when no file is named.
        path = None if path == UNNAMED else path
        if path and line is not None:
            message = f"{path}:{line}: {problem}"
        elif path:
            message = f"{path}: {problem}"
        elif line is not None:
            message = f"line {line}: {problem}"
        else:
            message = problem
        super().__init__(message)
