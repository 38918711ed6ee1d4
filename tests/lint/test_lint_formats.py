"""`kcliff lint --format sarif` and `--format json` through the real CLI, on a copy of the example
config repo with a cliff put in: the SARIF validates against the published OASIS SARIF 2.1.0 schema
(scripts/setup-sarif-schema.sh fetches it) and points at the file and line the annotations name;
the JSON has its documented shape; bad input exits 2 and both documents hold every bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest
from conftest import ROOT, run_kcliff
from kcliff import __version__, cli, configrepo
from kcliff.lint import cliffs
from kcliff.lint.json_doc import LintReport

SCHEMA = ROOT / ".venv" / "share" / "kcliff" / "sarif-schema-2.1.0.json"
EXAMPLE = ROOT / "examples" / "config-repo"
CLIFF = "log.flush.interval.messages=1"
CONFIG = "kafka config"  # a directory name with a space: SARIF URIs must encode it, annotations must not
SERVER = f"{CONFIG}/brokers/server.properties"


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    return sarif_validator()


def sarif_validator() -> jsonschema.protocols.Validator:
    """The published SARIF 2.1.0 schema's validator (test_bad_inputs.py validates with it too)."""
    if not SCHEMA.exists():
        pytest.fail(f"{SCHEMA} missing: run scripts/setup-sarif-schema.sh (make unit and make test do)")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=jsonschema.FormatChecker())  # uri, uri-reference: rfc3986-validator


def checkout(tmp_path: Path, cliff: bool = True) -> Path:
    """A git checkout holding the example config repo under CONFIG, the cliff appended to its broker file."""
    root = tmp_path / "checkout"
    shutil.copytree(EXAMPLE, root / CONFIG)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    if cliff:
        append(root / SERVER, CLIFF)
    return root


def append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(line + "\n")


def line_of(path: Path, text: str) -> int:
    return path.read_text(encoding="utf-8").splitlines().index(text) + 1


def valid(validator: jsonschema.protocols.Validator, doc: dict) -> dict:
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
    assert not errors, errors[:5]
    return doc


def test_sarif_validates_against_the_published_schema_and_points_at_the_line(tmp_path, validator):
    root = checkout(tmp_path)
    out = tmp_path / "out" / "kcliff.sarif"
    done = run_kcliff("lint", "--format", "sarif", "--output", str(out), str(root / CONFIG), cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # the exit code stays lint's: an error-severity rule matched
    assert done.stdout == "" and "1 error(s)" in done.stderr
    log = valid(validator, json.loads(out.read_text(encoding="utf-8")))

    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("kcliff", __version__)
    rules = cliffs.load_rules()
    assert [r["id"] for r in driver["rules"]] == [r.id for r in rules]
    for descriptor, rule in zip(driver["rules"], rules):
        # what code scanning requires of a rule, within its length limits
        assert descriptor["shortDescription"]["text"] == rule.title and len(rule.title) <= 1024
        assert descriptor["fullDescription"]["text"] == rule.mechanism and len(rule.mechanism) <= 1024
        assert rule.fix in descriptor["help"]["text"] and rule.fix in descriptor["help"]["markdown"]
        assert descriptor["defaultConfiguration"]["level"] == rule.severity and len(descriptor["name"]) <= 255
        assert descriptor["properties"].get("canary") == rule.canary

    [result] = run["results"]
    assert result["ruleId"] == "flush-every-message" and result["level"] == "error"
    assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    assert result["message"]["text"].startswith(f"broker {CLIFF}: ")
    [location] = result["locations"]
    artifact, region = location["physicalLocation"]["artifactLocation"], location["physicalLocation"]["region"]
    assert artifact == {"uri": "kafka%20config/brokers/server.properties", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.resolve().as_uri() + "/"
    line = line_of(root / SERVER, CLIFF)
    assert region["startLine"] == region["endLine"] == line
    text = (root / SERVER).read_text(encoding="utf-8").splitlines()[line - 1]
    assert text[region["startColumn"] - 1:region["endColumn"] - 1] == CLIFF

    # the same file and line as the GitHub annotation names
    github = run_kcliff("lint", "--format", "github", str(root / CONFIG), cwd=tmp_path)
    assert f"::error file={unquote(artifact['uri'])},line={line}," in github.stdout

    # the fingerprint follows the finding, not its line: a comment above it moves the line only
    server = root / SERVER
    server.write_text("# moved down a line\n" + server.read_text(encoding="utf-8"), encoding="utf-8")
    again = run_kcliff("lint", "--format", "sarif", str(root / CONFIG), cwd=tmp_path)
    [moved] = json.loads(again.stdout)["runs"][0]["results"]
    assert moved["locations"][0]["physicalLocation"]["region"]["startLine"] == line + 1
    assert moved["partialFingerprints"] == result["partialFingerprints"] and result["partialFingerprints"]


def test_clean_repo_sarif_has_no_results_and_verbose_notes_as_notifications(tmp_path, validator):
    root = checkout(tmp_path, cliff=False)
    done = run_kcliff("lint", "--format", "sarif", "--verbose", CONFIG, cwd=root)
    assert done.returncode == 0, done.stderr
    run = valid(validator, json.loads(done.stdout))["runs"][0]
    assert run["results"] == []
    [invocation] = run["invocations"]
    notes = invocation["toolExecutionNotifications"]
    assert invocation["executionSuccessful"] and notes and all(n["level"] == "note" for n in notes)
    first = notes[0]["locations"][0]["physicalLocation"]
    assert first["artifactLocation"]["uri"].startswith("kafka%20config/") and first["region"]["startLine"] >= 1


def test_json_has_its_documented_shape(tmp_path):
    root = checkout(tmp_path)
    append(root / SERVER, "num.io.threads=1")  # and a warning
    done = run_kcliff("lint", "--format", "json", str(root / CONFIG), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    doc = json.loads(done.stdout)
    assert list(doc) == ["schema", "schema_version", "kcliff_version", "exit_code", "counts", "findings"]
    assert (doc["schema"], doc["schema_version"], doc["kcliff_version"]) == ("kcliff.lint", 2, __version__)
    assert doc["exit_code"] == done.returncode
    assert doc["counts"]["errors"] == 1 and doc["counts"]["warnings"] == 1 and doc["counts"]["files"] == 4
    assert doc["counts"]["bad_inputs"] == 0
    assert doc["counts"]["notes"] > 0 and "notes" not in doc  # listed only with --verbose
    flush = next(f for f in doc["findings"] if f["rule"] == "flush-every-message")
    rule = next(r for r in cliffs.load_rules() if r.id == "flush-every-message")
    assert flush == {
        "kind": "cliff", "rule": rule.id, "severity": "error", "title": rule.title, "path": SERVER,
        "line": line_of(root / SERVER, CLIFF), "setting": "broker/log.flush.interval.messages", "topic": None,
        "condition": f"broker {CLIFF}", "message": flush["message"], "fix": rule.fix,
        "canary": "flush-1", "evidence": flush["evidence"]}
    assert flush["message"].startswith(f"broker {CLIFF}: {rule.mechanism}") and "canary flush-1" in flush["evidence"]
    LintReport.model_validate(doc)  # the typed model reads what it wrote

    verbose = run_kcliff("lint", "--format", "json", "--verbose", "--output", str(tmp_path / "lint.json"),
                         str(root / CONFIG), cwd=tmp_path)
    assert verbose.returncode == 1 and verbose.stdout == ""
    notes = json.loads((tmp_path / "lint.json").read_text(encoding="utf-8"))["notes"]
    assert len(notes) == doc["counts"]["notes"] and set(notes[0]) == {"path", "line", "message", "level"}
    assert notes[0]["path"].startswith(f"{CONFIG}/")


def test_a_warning_fails_the_json_run_with_fail_on_warning(tmp_path):
    root = checkout(tmp_path, cliff=False)
    append(root / SERVER, "num.io.threads=1")
    done = run_kcliff("lint", "--format", "json", "--fail-on", "warning", CONFIG, cwd=root)
    doc = json.loads(done.stdout)
    assert done.returncode == doc["exit_code"] == 1 and doc["counts"]["warnings"] == 1, done.stderr


@pytest.mark.parametrize("fmt, output", [("sarif", True), ("json", False)])
def test_bad_input_exits_2_and_the_document_holds_it_on_its_line(tmp_path, validator, fmt, output):
    root = checkout(tmp_path, cliff=False)
    producer = root / CONFIG / "producers" / "app-producer.properties"
    append(producer, "linger.msec=5")
    out = tmp_path / f"kcliff.{fmt}"
    done = run_kcliff("lint", "--format", fmt, *(["--output", str(out)] if output else []), CONFIG, cwd=root)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    line = line_of(producer, "linger.msec=5")
    message = "unknown producer setting 'linger.msec': did you mean 'linger.ms'?"
    assert f"{CONFIG}/producers/app-producer.properties:{line}: {message}" in done.stderr
    doc = json.loads(out.read_text(encoding="utf-8") if output else done.stdout)
    if fmt == "json":
        assert doc["exit_code"] == 2 and doc["counts"]["bad_inputs"] == 1 and doc["counts"]["files"] is None
        assert doc["findings"] == [{"kind": "bad-input", "severity": "error", "line": line, "message": message,
                                    "path": f"{CONFIG}/producers/app-producer.properties"}]
        LintReport.model_validate(doc)
        return
    run = valid(validator, doc)["runs"][0]
    assert run["invocations"] == [{"executionSuccessful": False, "exitCode": 2}]
    [result] = run["results"]
    rule = run["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert result["ruleId"] == rule["id"] == "kcliff/bad-input" and result["level"] == "error"
    assert rule["defaultConfiguration"]["level"] == "error" and result["message"]["text"] == message
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "kafka%20config/producers/app-producer.properties"
    assert location["region"]["startLine"] == line


def test_a_bad_input_naming_no_file_is_a_sarif_notification(tmp_path, validator):
    """Code scanning places every result on a file's line: a path that is no file is told as a notification."""
    done = run_kcliff("lint", "--format", "sarif", "no-such-dir", cwd=tmp_path)
    assert done.returncode == 2 and "kcliff: error: no-such-dir: no such file or directory" in done.stderr
    run = valid(validator, json.loads(done.stdout))["runs"][0]
    assert run["results"] == [] and "kcliff/bad-input" not in [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert run["invocations"] == [{"executionSuccessful": False, "exitCode": 2, "toolExecutionNotifications": [
        {"level": "error", "message": {"text": "no-such-dir: no such file or directory"}}]}]


def test_output_needs_a_document_format_and_a_writable_file(tmp_path):
    root = checkout(tmp_path, cliff=False)
    text = run_kcliff("lint", "--output", str(tmp_path / "x"), CONFIG, cwd=root)
    assert text.returncode == 2 and "--output writes a document: use it with --format json or sarif" in text.stderr
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    done = run_kcliff("lint", "--format", "sarif", "--output", str(blocked / "kcliff.sarif"), CONFIG, cwd=root)
    assert done.returncode == 2 and f"{blocked / 'kcliff.sarif'}: cannot write the sarif document" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_warning_level_note_is_a_warning_in_every_output(tmp_path, validator, monkeypatch, capsys):
    """No reader writes warning-level notes yet (the release-aware validation of #26 will): one is added
    to what the real reader found, and each format shows it as a warning on its line."""
    root = checkout(tmp_path, cliff=False)
    monkeypatch.chdir(root)
    server = f"{CONFIG}/brokers/server.properties"
    read = configrepo.load

    def with_a_warning(paths, repo_root=None):
        repo = read(paths, repo_root)
        warning = configrepo.Note(server, 2, "a key of Kafka 3.9 that 4.2 removed", configrepo.NoteLevel.WARNING)
        repo.notes.append(warning)
        return repo

    monkeypatch.setattr(configrepo, "load", with_a_warning)
    assert cli.main(["lint", CONFIG]) == 0
    assert f"{server}:2: warning: a key of Kafka 3.9 that 4.2 removed" in capsys.readouterr().out
    assert cli.main(["lint", "--format", "github", CONFIG]) == 0
    assert (f"::warning file={server},line=2,title=kcliff%3A input warning::a key of Kafka 3.9 that 4.2 removed"
            in capsys.readouterr().out.splitlines())
    assert cli.main(["lint", "--format", "json", CONFIG]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["counts"]["bad_inputs"] == 0 and doc["findings"] == [
        {"kind": "input-warning", "severity": "warning", "path": server, "line": 2,
         "message": "a key of Kafka 3.9 that 4.2 removed"}]
    assert cli.main(["lint", "--format", "sarif", CONFIG]) == 0
    run = valid(validator, json.loads(capsys.readouterr().out))["runs"][0]
    [result] = run["results"]
    assert (result["ruleId"], result["level"]) == ("kcliff/input-warning", "warning")
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["defaultConfiguration"]["level"] == "warning"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
    assert run["invocations"][0]["executionSuccessful"] is True
