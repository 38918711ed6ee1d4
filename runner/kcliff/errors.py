"""The one user-error type the CLI turns into exit code 2 (bad input, unusable environment)."""

from __future__ import annotations

import contextlib
from typing import Iterable, Iterator


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

    @property
    def problems(self) -> list["InputError"]:
        """Every bad input this error stands for: itself, or each of an InputErrors."""
        return [self]


class InputErrors(InputError):
    """Several bad inputs found in one pass (every file read, every key checked), reported together so
    a user fixes them all at once; the first one's path and line stand for the whole."""

    def __init__(self, problems: Iterable[InputError]) -> None:
        flat = [p for problem in problems for p in problem.problems]
        if not flat:
            raise ValueError("InputErrors needs at least one problem")
        first = flat[0]
        super().__init__(first.message, first.path, first.line)
        self._problems = flat

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self._problems)

    @property
    def problems(self) -> list[InputError]:
        return list(self._problems)


def raise_all(problems: list[InputError]) -> None:
    """Raise the problems found, if any: one as itself, several as InputErrors."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise InputErrors(problems)


class ClusterError(Exception):
    """The cluster could not be brought up, reached or configured."""


class Problems:
    """The bad inputs of one pass, collected as it goes on: `with problems.catch(): ...` records what a
    step raised (every problem of an InputErrors) and carries on after the block; `raise_all()` at the
    end raises what was found, so a reader reports every bad item rather than the first."""

    def __init__(self) -> None:
        self.found: list[InputError] = []

    @contextlib.contextmanager
    def catch(self) -> Iterator[None]:
        try:
            yield
        except InputError as exc:
            self.found.extend(exc.problems)

    def add(self, problem: InputError) -> None:
        self.found.extend(problem.problems)

    def __bool__(self) -> bool:
        return bool(self.found)

    def raise_all(self) -> None:
        raise_all(self.found)
