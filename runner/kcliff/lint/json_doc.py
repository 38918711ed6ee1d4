"""`kcliff lint --format json`: the `kcliff.lint` document (docs/gate.md, "Machine-readable lint").

Its findings are also what `--format sarif` is built from (lint/sarif.py), so both formats say the
same thing as the text output and the GitHub annotations: one Finding (kind "cliff") per rule match,
and one InputFinding (kind "bad-input" or "input-warning", lint/findings.py) per bad input or
warning-level note. On bad input the document holds every bad input and exit_code 2.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kcliff import __version__
from kcliff.lint.cliffs import Match
from kcliff.lint.findings import InputFinding, InputKind
from kcliff.lint.severity import Severity, tally
from kcliff.results.documents import LINT


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Finding(_Model):
    kind: Literal["cliff"] = "cliff"  # a cliff rule matched (InputFindingDoc: bad-input, input-warning)
    rule: str
    severity: Severity  # the rule's
    title: str
    path: str  # relative to the repository root, as the GitHub annotations name the file
    line: int | None
    setting: str  # scope/name of the value the finding is reported on, e.g. broker/log.flush.interval.messages
    topic: str | None  # the topic a topic rule matched on; None for broker, producer and consumer rules
    condition: str  # the effective values that matched, e.g. "broker log.flush.interval.messages=1"
    message: str  # what the text output and the annotation say
    fix: str
    canary: str | None
    evidence: str
    # where kcliff read the file (as given, or absolute): SARIF reads the line's columns there; not in the JSON
    source: str = Field("", exclude=True)

    @classmethod
    def of(cls, match: Match, path: str, message: str, evidence: str) -> Finding:
        rule, entry = match.rule, match.entry
        return cls(rule=rule.id, severity=rule.severity, title=rule.title, path=path, line=match.line,
                   setting=f"{entry.scope}/{entry.name}", topic=match.named_topic, condition=match.condition(),
                   message=message, fix=rule.fix, canary=rule.canary, evidence=evidence, source=match.path)


class Note(_Model):
    """A key or file kcliff read and does not act on (listed with --verbose)."""

    path: str
    line: int | None
    message: str
    level: str = "note"  # configrepo.NoteLevel: note, or warning (also an input-warning finding)


class Counts(_Model):
    errors: int  # cliff rules matched, by severity
    warnings: int
    bad_inputs: int  # each also a finding; lint exits 2 and the rules were not evaluated
    files: int | None  # None: the repo could not be read through (bad input)
    notes: int


class InputFindingDoc(_Model):
    """A bad input or input warning (input_findings.InputFinding) as a JSON finding."""

    kind: Literal[InputKind.BAD_INPUT, InputKind.INPUT_WARNING]
    severity: Severity
    path: str | None
    line: int | None
    message: str

    @classmethod
    def of(cls, finding: InputFinding) -> InputFindingDoc:
        return cls(kind=finding.kind, severity=finding.severity, path=finding.path, line=finding.line,
                   message=finding.message)


class LintReport(_Model):
    schema_: str = Field(LINT.name, alias="schema")  # "schema" itself is a pydantic BaseModel attribute
    schema_version: int = LINT.version
    kcliff_version: str = __version__
    exit_code: int  # lint's own: 0 clean, 1 a finding at or above --fail-on, 2 bad input
    counts: Counts
    findings: list[Annotated[Finding | InputFindingDoc, Field(discriminator="kind")]]
    notes: list[Note] | None = None  # only with --verbose; the key is absent otherwise

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude={"notes"} if self.notes is None else None)


def report(findings: list[Finding], inputs: list[InputFinding], notes: list[Note], files: int | None,
           exit_code: int, verbose: bool) -> LintReport:
    """The document: the rule matches, then the bad inputs and input warnings."""
    errors, warnings = tally(f.severity for f in findings)
    bad = sum(1 for f in inputs if f.kind is InputKind.BAD_INPUT)
    counts = Counts(errors=errors, warnings=warnings, bad_inputs=bad, files=files, notes=len(notes))
    return LintReport(exit_code=exit_code, counts=counts, findings=[*findings, *map(InputFindingDoc.of, inputs)],
                      notes=notes if verbose else None)
