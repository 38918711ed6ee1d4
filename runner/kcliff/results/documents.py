"""The JSON documents kcliff writes, and how each says what it is: a "schema" naming its kind and a
"schema_version", first in the file. One Schema per kind, and one check on read, so every reader
refuses a foreign or newer file with the same words (docs/results-schema.md).

A version goes up when a reader of the previous one would misread the new fields; older versions
are read as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kcliff.errors import InputError


@dataclass(frozen=True)
class Schema:
    name: str  # the "schema" field, e.g. kcliff.results
    version: int  # the "schema_version" this kcliff writes, and the newest it reads
    what: str  # how a message names a file of this kind

    def stamp(self) -> dict[str, Any]:
        """The head of a document of this kind."""
        return {"schema": self.name, "schema_version": self.version}

    def check(self, doc: dict[str, Any], path: str | Path) -> None:
        """Refuse a document of another kind or of a version this kcliff does not read (InputError)."""
        if doc.get("schema") != self.name:
            raise InputError(f"not a {self.what} (its \"schema\" is {doc.get('schema')!r}, expected "
                             f"\"{self.name}\")", str(path))
        found = doc.get("schema_version")
        if not isinstance(found, int) or found < 1:
            raise InputError(f"schema_version {found!r} is not a version number", str(path))
        if found > self.version:
            raise InputError(f"{self.name} schema version {found} is newer than this kcliff reads ({self.version}); "
                             "upgrade kcliff (the file was left as it is)", str(path))


# 2: read-side runs (read_runs) and their metrics
RESULTS = Schema("kcliff.results", 2, "kcliff results file")
# 2: the read side (workloads, read_runs: scenarios that measured a consumer)
BASELINE = Schema("kcliff.baseline", 2, "kcliff baseline file")
VERDICT = Schema("kcliff.verdict", 1, "kcliff verdict")
# 2: findings carry a kind, and bad inputs are findings (exit_code 2)
LINT = Schema("kcliff.lint", 2, "kcliff lint document")
