"""`kcliff lint --format sarif`: SARIF 2.1.0 for GitHub code scanning (docs/gate.md, "Machine-readable lint").

One run whose driver lists every loaded cliff rule; one result per finding, on the file (relative to
the repository root, as the annotations name it) and line. Bad inputs and input warnings are results
of the rules `kcliff/bad-input` and `kcliff/input-warning` (listed after the cliff rules when used);
one that names no file becomes a tool execution notification, since code scanning places every
result on a file's line. The models cover only what kcliff
writes, with the SARIF property names; tests/lint/test_lint_formats.py validates the output against the
published OASIS schema. (sarif-om and sarif-pydantic model all of SARIF but ship no type
information, so under mypy --strict they would only be Any.)
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from kcliff import __version__
from kcliff.lint.cliffs import Rule
from kcliff.lint.findings import SEVERITY, InputFinding, InputKind
from kcliff.lint.json_doc import Finding, Note
from kcliff.lint.severity import Severity

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"  # relative URIs are relative to the repository root, as code scanning reads them
FINGERPRINT = "kcliffFinding/v1"
# Code scanning orders alerts by precision. It follows the severity policy (scenarios/cliffs.yaml): an
# error is measured by a canary on kcliff's rig (or switches a mechanism off); a warning is not, yet.
PRECISION = {Severity.ERROR: "high", Severity.WARNING: "medium"}


class _Sarif(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=to_camel, populate_by_name=True)


class Message(_Sarif):
    text: str
    markdown: str | None = None


class ArtifactLocation(_Sarif):
    uri: str
    uri_base_id: str | None = None


class Region(_Sarif):
    start_line: int
    start_column: int | None = None
    end_line: int | None = None
    end_column: int | None = None


class PhysicalLocation(_Sarif):
    artifact_location: ArtifactLocation
    region: Region | None = None


class Location(_Sarif):
    physical_location: PhysicalLocation


class ReportingConfiguration(_Sarif):
    level: str


class RuleProperties(_Sarif):
    tags: list[str]
    precision: str
    problem_severity: str = Field(alias="problem.severity")
    canary: str | None = None  # a cliff rule's evidence and settings; the input rules have none
    study: str | None = None
    settings: list[str] | None = None


class ReportingDescriptor(_Sarif):
    id: str
    name: str
    short_description: Message
    full_description: Message
    help: Message
    default_configuration: ReportingConfiguration
    properties: RuleProperties


class ToolComponent(_Sarif):
    name: str
    version: str
    semantic_version: str
    information_uri: str | None = None
    rules: list[ReportingDescriptor]


class Tool(_Sarif):
    driver: ToolComponent


class Result(_Sarif):
    rule_id: str
    rule_index: int
    level: str
    message: Message
    locations: list[Location]
    partial_fingerprints: dict[str, str]


class Notification(_Sarif):
    level: str
    message: Message
    locations: list[Location] | None = None


class Invocation(_Sarif):
    execution_successful: bool  # false on bad input: the cliff rules were not evaluated
    exit_code: int | None = None
    tool_execution_notifications: list[Notification] | None = None


class Run(_Sarif):
    tool: Tool
    invocations: list[Invocation]
    original_uri_base_ids: dict[str, ArtifactLocation] | None = None
    column_kind: str = "unicodeCodePoints"  # columns count characters (Python string indices)
    results: list[Result]


class Log(_Sarif):
    schema_: str = Field(SARIF_SCHEMA, alias="$schema")
    version: str = SARIF_VERSION
    runs: list[Run]

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


# The rules bad inputs and input warnings are results of (lint/findings.py): id, short and full description, help.
INPUT_RULES = {
    InputKind.BAD_INPUT: (
        "kcliff/bad-input", "Bad input: a key, value or file kcliff cannot read",
        "A setting Kafka would refuse (an unknown key, a value of the wrong type or out of range, a combination the "
        "producer refuses) or a file kcliff cannot read. kcliff exits 2 and evaluates no cliff rule until every "
        "input reads.",
        "Change the input as the message says: it names what would be valid (the closest known key, the accepted "
        "values or range). The cliff rules run again once every input reads."),
    InputKind.INPUT_WARNING: (
        "kcliff/input-warning", "Input warning: a setting kcliff reads with a warning",
        "A setting Kafka accepts that may not do what the file means it to (a key of another Kafka release than "
        "the repo's, for example).",
        "Read the message: it says what kcliff found and what to change if it is not what you meant."),
}


def document(rules: list[Rule], evidence: Mapping[str, str], findings: list[Finding], notes: list[Note] | None,
             srcroot: Path, inputs: list[InputFinding] | None = None, exit_code: int | None = None) -> Log:
    """The SARIF log. `evidence` is each rule's evidence text by rule id; `notes` (with --verbose) become
    tool notifications at their level; `srcroot` is what relative paths are relative to; `inputs` are
    the bad inputs and input warnings."""
    inputs = inputs or []
    located = [f for f in inputs if f.path and f.names_a_file()]  # the rest: notifications
    kinds = [kind for kind in InputKind if any(f.kind is kind for f in located)]
    descriptors = [descriptor(rule, evidence.get(rule.id, "")) for rule in rules]
    descriptors += [input_descriptor(kind) for kind in kinds]
    index = {d.id: i for i, d in enumerate(descriptors)}
    driver = ToolComponent(name="kcliff", version=__version__, semantic_version=__version__,
                           information_uri=project_url(), rules=descriptors)
    results = [Result(rule_id=f.rule, rule_index=index[f.rule], level=f.severity, message=Message(text=f.message),
                      locations=[_location(f.path, f.line, f.source)],
                      partial_fingerprints={FINGERPRINT: fingerprint(f)}) for f in findings]
    results += [input_result(f, index) for f in located]
    notifications = [Notification(level=f.severity, message=Message(text=f.located()))
                     for f in inputs if f not in located]
    notifications += [Notification(level=n.level, message=Message(text=n.message),
                                   locations=[_location(n.path, n.line, None)]) for n in notes or []]
    bad = any(f.kind is InputKind.BAD_INPUT for f in inputs)
    run = Run(tool=Tool(driver=driver),
              invocations=[Invocation(execution_successful=not bad, exit_code=exit_code,
                                      tool_execution_notifications=notifications or None)],
              original_uri_base_ids={SRCROOT: ArtifactLocation(uri=srcroot.resolve().as_uri().rstrip("/") + "/")},
              results=results)
    return Log(runs=[run])


def project_url() -> str | None:
    """kcliff's home as the installed package declares it ([project.urls] in pyproject.toml), if it does."""
    try:
        meta = importlib.metadata.metadata("kcliff")
    except importlib.metadata.PackageNotFoundError:
        return None
    urls = [entry.partition(",")[2].strip() for entry in meta.get_all("Project-URL") or []]
    return next((url for url in [*urls, *(meta.get_all("Home-page") or [])] if url), None)


def descriptor(rule: Rule, evidence: str) -> ReportingDescriptor:
    scopes = sorted({c.scope for c in rule.clauses})
    markdown = (f"{rule.mechanism}\n\n**Fix:** {rule.fix}\n\n**Evidence:** {evidence or 'none recorded'}\n\n"
                f"Severity {rule.severity} (kcliff's severity policy: docs/gate.md, \"Cliff rules\").")
    return ReportingDescriptor(
        id=rule.id, name=rule.id, short_description=Message(text=rule.title),
        full_description=Message(text=rule.mechanism),
        help=Message(text=f"{rule.mechanism} Fix: {rule.fix} Evidence: {evidence or 'none recorded'}",
                     markdown=markdown),
        default_configuration=ReportingConfiguration(level=rule.severity),
        properties=RuleProperties(tags=["kafka", "performance", *scopes], precision=PRECISION[rule.severity],
                                  problem_severity=rule.severity, canary=rule.canary, study=rule.study,
                                  settings=[c.ref() for c in rule.clauses]))


def input_descriptor(kind: InputKind) -> ReportingDescriptor:
    rule_id, title, full, fix = INPUT_RULES[kind]
    level = SEVERITY[kind]
    return ReportingDescriptor(
        id=rule_id, name=rule_id.removeprefix("kcliff/"), short_description=Message(text=title),
        full_description=Message(text=full), help=Message(text=f"{full} {fix}", markdown=f"{full}\n\n**Fix:** {fix}"),
        default_configuration=ReportingConfiguration(level=level),
        properties=RuleProperties(tags=["kafka", "configuration", str(kind)],
                                  precision="very-high" if kind is InputKind.BAD_INPUT else "high",
                                  problem_severity=level))


def input_result(finding: InputFinding, index: Mapping[str, int]) -> Result:
    """A bad input or input warning on its file's line (the first line when the problem is the whole
    file: code scanning needs a line)."""
    rule_id = INPUT_RULES[finding.kind][0]
    key = "\0".join((rule_id, finding.path or "", finding.message))
    return Result(rule_id=rule_id, rule_index=index[rule_id], level=finding.severity,
                  message=Message(text=finding.message),
                  locations=[_location(finding.path or "", finding.line or 1, finding.source)],
                  partial_fingerprints={FINGERPRINT: hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]})


def fingerprint(finding: Finding) -> str:
    """The same for the same rule on the same setting of the same file (and topic), wherever its line
    moves. Code scanning computes its own primaryLocationLineHash from the file on upload (and warns
    when a SARIF file carries a different one), so kcliff does not write that key."""
    key = "\0".join((finding.rule, finding.path, finding.setting, finding.topic or ""))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _location(path: str, line: int | None, source: str | None) -> Location:
    as_path = Path(path)
    artifact = (ArtifactLocation(uri=as_path.as_uri()) if as_path.is_absolute()
                else ArtifactLocation(uri=quote(as_path.as_posix()), uri_base_id=SRCROOT))
    return Location(physical_location=PhysicalLocation(artifact_location=artifact,
                                                       region=_region(source, line) if line else None))


def _region(source: str | None, line: int) -> Region:
    """The setting's line, from its first to its last non-blank character: code scanning wants the
    columns. Without the file (a note) the region is the whole line, SARIF's default."""
    text = _line_text(source, line) if source else None
    if not text or not text.strip():
        return Region(start_line=line)
    start = len(text) - len(text.lstrip())
    return Region(start_line=line, start_column=start + 1, end_line=line, end_column=len(text.rstrip()) + 1)


def _line_text(source: str, line: int) -> str | None:
    try:
        lines = Path(source).read_text(encoding="utf-8", errors="replace").split("\n")  # as readers count
    except OSError:
        return None
    return lines[line - 1] if 0 < line <= len(lines) else None
