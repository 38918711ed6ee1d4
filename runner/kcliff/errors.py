"""The one user-error type the CLI turns into exit code 2 (bad input, unusable environment)."""

from __future__ import annotations


class InputError(Exception):
    """Bad input or an unusable environment: reported in one message, exit code 2, no traceback."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        return f"{where}{self.message}"


class ClusterError(Exception):
    """The cluster could not be brought up, reached or configured."""
