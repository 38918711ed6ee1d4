"""A config repo's Kafka version (a kafka-version file) and what `kcliff check` does when a pull
request changes it: no cluster is needed to test the reading, the refusals and the annotation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import run_kcliff
from kcliff import cli, configrepo
from kcliff.commands import check
from kcliff.errors import InputError

from tests.commands.test_check_inputs import synthetic_doc
from tests.lint.test_lint_cli import make_repo


def with_version(root: Path, text: str, name: str = "kafka-version") -> Path:
    repo = make_repo(root)
    (repo / name).write_text(text)
    return repo


def test_the_version_file_is_read_with_its_line(tmp_path):
    repo = with_version(tmp_path / "r", "# the brokers' release\n\n4.3.1\n")
    found = configrepo.load([str(repo)]).kafka_version
    assert found is not None and (found.version, found.line) == ("4.3.1", 3)
    assert found.path == str(repo / "kafka-version")
    assert configrepo.load([str(make_repo(tmp_path / "none"))]).kafka_version is None


@pytest.mark.parametrize("text,line,says", [
    ("4.3\n", 1, "expected a release number such as 4.2.0"),
    ("4.3.1-rc0\n", 1, "expected a release number such as 4.2.0"),
    ("4.2.0\n4.3.1\n", 2, "found 2 non-comment lines"),
    ("# nothing\n", None, "found 0 non-comment lines"),
])
def test_a_bad_version_file_exits_2_naming_the_line(tmp_path, text, line, says):
    repo = with_version(tmp_path / "r", text)
    done = run_kcliff("lint", str(repo))
    where = f"{repo / 'kafka-version'}:{line}:" if line else f"{repo / 'kafka-version'}:"
    assert done.returncode == 2 and where in done.stderr and says in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_3x_release_from_3_3_is_read(tmp_path):
    found = configrepo.load([str(with_version(tmp_path / "r", "3.9.2\n"))]).kafka_version
    assert found is not None and found.version == "3.9.2"


def test_two_files_naming_different_versions_are_refused(tmp_path):
    repo = with_version(tmp_path / "r", "4.2.0\n")
    (repo / "brokers").mkdir()
    (repo / "brokers" / "kafka-version.txt").write_text("4.3.1\n")
    with pytest.raises(InputError, match="4.2.0 here but 4.3.1 at .*brokers/kafka-version.txt:1") as caught:
        configrepo.load([str(repo)])  # files are read in path order: brokers/ first
    assert caught.value.path == str(repo / "kafka-version") and caught.value.line == 1


def test_the_version_change_falls_back_to_the_default_on_a_side_that_names_none(tmp_path):
    head = configrepo.load([str(with_version(tmp_path / "h", "4.3.1\n"))]).kafka_version
    change = configrepo.version_change(None, head, "4.2.0")
    assert change is not None and change.describe() == "kafka version 4.2.0 -> 4.3.1" and change.line == 1
    assert configrepo.version_change(None, head, "4.3.1") is None  # --kafka-version already the head's
    assert configrepo.version_change(None, None, "4.2.0") is None


def test_an_upgrade_alone_is_measured_and_annotated_on_the_version_line(tmp_path, monkeypatch, capsys):
    base, head = make_repo(tmp_path / "base"), with_version(tmp_path / "head", "4.3.1\n")
    upgrades = []
    monkeypatch.setattr(check, "measure",
                        lambda args, self_test, pair, version, upgrade=None, *_: upgrades.append(upgrade) or synthetic_doc(0.41))
    out = tmp_path / "verdict.json"
    code = cli.main(["check", "--base", str(base), "--head", str(head), "--format", "github", "--repo-root", str(head),
                     "--json", str(out)])
    assert code == 1 and upgrades[0] is not None and (upgrades[0].base, upgrades[0].head) == ("4.2.0", "4.3.1")
    errors = [line for line in capsys.readouterr().out.splitlines() if line.startswith("::error")]
    assert errors and errors[0].startswith("::error file=kafka-version,line=1,title=kcliff%3A measured regression::"
                                           "kafka version 4.2.0 -> 4.3.1: measured with this change"), errors
    assert any("Kafka version changed: 4.2.0 -> 4.3.1" in n for n in json.loads(out.read_text())["notes"])


def test_an_upgrade_cannot_be_measured_on_an_external_cluster(tmp_path):
    base, head = make_repo(tmp_path / "base"), with_version(tmp_path / "head", "4.3.1\n")
    done = run_kcliff("check", "--base", str(base), "--head", str(head), "--backend", "external",
                      "--bootstrap-servers", "127.0.0.1:9", "--workdir", str(tmp_path / "w"), timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "changes the Kafka version (4.2.0 -> 4.3.1)" in done.stderr and "Traceback" not in done.stderr


def test_a_strimzi_upgrade_is_annotated_on_spec_kafka_version(tmp_path, monkeypatch, capsys):
    example = Path(__file__).resolve().parents[2] / "examples" / "strimzi-repo"
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(example, base)
    shutil.copytree(example, head)
    kafka = head / "kafka.yaml"
    kafka.write_text(kafka.read_text().replace("version: 4.2.0", "version: 4.3.1"))
    line = next(i for i, text in enumerate(kafka.read_text().splitlines(), 1) if "version: 4.3.1" in text)
    upgrades = []
    monkeypatch.setattr(check, "measure",
                        lambda args, self_test, pair, version, upgrade=None, *_: upgrades.append(upgrade) or synthetic_doc(0.41))
    code = cli.main(["check", "--base", str(base), "--head", str(head), "--format", "github", "--repo-root", str(head)])
    assert code == 1 and (upgrades[0].base, upgrades[0].head) == ("4.2.0", "4.3.1")
    errors = [text for text in capsys.readouterr().out.splitlines() if text.startswith("::error")]
    assert errors[0].startswith(f"::error file=kafka.yaml,line={line},title=kcliff%3A measured regression::"
                                "kafka version 4.2.0 -> 4.3.1"), errors
