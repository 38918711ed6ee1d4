"""Bad inputs and input warnings as findings: the one place a problem (an InputError, each of an
InputErrors) or a warning-level configrepo.Note becomes what lint and check print.

One InputFinding per problem, rendered here for every output: a line of text, a GitHub annotation
(`::error file=F,line=L,title=kcliff: bad input::...`), a JSON finding (`kind` bad-input or
input-warning in the kcliff.lint document, lint/json_doc.py) and a SARIF result of the rule
`kcliff/bad-input` or `kcliff/input-warning` (lint/sarif.py). docs/gate.md, "Machine-readable lint".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Callable, Iterable

from kcliff.configrepo.model import Note, NoteLevel
from kcliff.errors import InputError
from kcliff.lint.github import annotation
from kcliff.lint.severity import Severity


class InputKind(StrEnum):
    BAD_INPUT = "bad-input"  # kcliff (or Kafka) refuses it: exit 2, the cliff rules do not run
    INPUT_WARNING = "input-warning"  # read, with a warning-level note (a key of another Kafka release, ...)


SEVERITY = {InputKind.BAD_INPUT: Severity.ERROR, InputKind.INPUT_WARNING: Severity.WARNING}
TITLE = {InputKind.BAD_INPUT: "kcliff: bad input", InputKind.INPUT_WARNING: "kcliff: input warning"}


@dataclass(frozen=True)
class InputFinding:
    """One bad input or input warning; as a JSON finding it is json_doc.InputFindingDoc. A plain dataclass,
    so the text and GitHub outputs do not import pydantic (lint starts fast)."""

    kind: InputKind
    severity: Severity
    path: str | None  # relative to the repository root, as the annotations name it; None: not about a file
    line: int | None
    message: str
    # where kcliff read the file (as given): the text names it so, SARIF reads the line's columns there
    source: str | None = field(default=None, compare=False)

    @classmethod
    def of(cls, kind: InputKind, message: str, path: str | None, line: int | None,
           name: Callable[[str], str]) -> InputFinding:
        return cls(kind, SEVERITY[kind], name(path) if path else None, line, message, path)

    @property
    def title(self) -> str:
        return TITLE[self.kind]

    def names_a_file(self) -> bool:
        """Whether it is about a file that exists (not the run, a directory or a missing path)."""
        return self.source is not None and Path(self.source).is_file()

    def annotation(self, on_file: bool = True) -> str:
        """The GitHub annotation on its file and line. Without a file, or with `on_file` False (a file
        GitHub cannot show, such as the base branch's in check), it belongs to the run and says where."""
        if on_file and self.path:
            return annotation(self.severity, self.path, self.line, self.title, self.message)
        return annotation(self.severity, "", None, self.title, self.located())

    def text_location(self) -> str:
        where = self.source or self.path or ""
        return f"{where}:{self.line}" if where and self.line else where

    def located(self) -> str:
        """`path:line: message`, the path as kcliff read it; the message alone when it names no file."""
        where = self.text_location()
        return f"{where}: {self.message}" if where else self.message

    def text(self) -> str:
        """`path:line: warning: message`, the path as kcliff read it (as the rule matches are printed)."""
        where = self.text_location()
        return f"{where}: {self.severity}: {self.message}" if where else f"{self.severity}: {self.message}"


def bad_inputs(errors: Iterable[InputError], name: Callable[[str], str]) -> list[InputFinding]:
    """Every problem of `errors` (each an InputError or InputErrors) as a bad-input finding; `name` turns
    a path as read into the path the outputs name (relative to the repository root)."""
    return [InputFinding.of(InputKind.BAD_INPUT, p.message, p.path, p.line, name)
            for error in errors for p in error.problems]


def input_warnings(notes: Iterable[Note], name: Callable[[str], str]) -> list[InputFinding]:
    """The warning-level notes as input-warning findings (note-level ones stay notes, for --verbose)."""
    return [InputFinding.of(InputKind.INPUT_WARNING, n.message, n.path, n.line, name)
            for n in notes if n.level is NoteLevel.WARNING]
