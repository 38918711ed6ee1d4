"""How loud a finding is: a cliff rule's severity (scenarios/cliffs.yaml) and so its matches', and a
bad input's or input warning's (lint/findings.py). The one place severities are named and compared."""

from __future__ import annotations

from enum import StrEnum
from typing import Iterable


class Severity(StrEnum):
    """error: lint exits 1 and check's verdict is cliff; warning: reported, fails only with --fail-on warning.
    The values are also GitHub's annotation levels and SARIF's result levels, so they are printed as they are."""

    ERROR = "error"
    WARNING = "warning"

    def fails_at(self, lowest: Severity) -> bool:
        """Whether a finding of this severity fails a run that fails from `lowest` (lint --fail-on) up."""
        return self is Severity.ERROR or lowest is Severity.WARNING


def tally(severities: Iterable[Severity]) -> tuple[int, int]:
    """(errors, warnings) among these findings' severities."""
    seen = list(severities)
    errors = sum(s is Severity.ERROR for s in seen)
    return errors, len(seen) - errors
