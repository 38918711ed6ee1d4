"""librdkafka client files in a config repo (issue #44; docs/librdkafka.md): found by their keys or by
kcliff.yaml, every key checked with librdkafka's own definitions, every bad input reported in one run."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_kcliff
from kcliff import configrepo
from kcliff.configrepo import librdkafka
from kcliff.configrepo.model import Entry, Note, NoteLevel
from kcliff.errors import InputError, InputErrors
from kcliff.kafka import librdkafka_configs as rdk
from kcliff.lint import cliffs

# A producer in the shape of a capture probe's file: comments, `key = value`, most keys not measured.
PRODUCER = """\
# capture probe -> kafka
metadata.broker.list = k1:9092,k2:9092,k3:9092
client.id = probe
socket.keepalive.enable = true
queue.buffering.max.messages = 500000
queue.buffering.max.ms = 50
batch.num.messages = 20000
compression.codec = snappy
request.required.acks = all
message.send.max.retries = 3
"""


def _write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _problems(exc: pytest.ExceptionInfo[InputError]) -> list[InputError]:
    return list(exc.value.problems)


@pytest.mark.parametrize("release", rdk.catalogue().releases)
def test_every_property_of_a_release_at_its_default_is_clean(tmp_path: Path, release: str) -> None:
    cat = rdk.catalogue()
    settable = [p for p in cat.properties(release) if p.type != "api" and p.default is not None]
    lines = [f"{cat.written_name(p, release)}={p.default}" for p in settable]
    path = _write(tmp_path, "all.conf", "# every property at its default\n" + "\n".join(lines) + "\n")
    read = librdkafka.LibrdkafkaReader().read(path, "librdkafka")
    assert len(read.entries) == len(settable) > 100
    for raw in read.entries:
        result = librdkafka.validate_entry(raw, release)  # raises on anything librdkafka would refuse
        if isinstance(result, Note):  # only what librdkafka itself warns of: a deprecated property
            assert result.level is NoteLevel.WARNING and "deprecated" in result.message, result


def test_the_newest_release_at_its_defaults_lints_clean(tmp_path: Path) -> None:
    cat = rdk.catalogue()
    props = [p for p in cat.properties(cat.newest) if p.type != "api" and p.default is not None]
    _write(tmp_path, "librdkafka.config", "\n".join(f"{cat.written_name(p, cat.newest)}={p.default}" for p in props))
    repo = configrepo.load([str(tmp_path)])
    assert [f.role for f in repo.files] == ["librdkafka"]
    assert len(repo.entries) + sum("deprecated" in n.message for n in repo.notes) == len(props)
    assert cliffs.evaluate(repo, cliffs.load_rules()) == []  # librdkafka's defaults are no cliff of its rules


def test_a_producer_file_is_found_by_its_keys_and_typed(tmp_path: Path) -> None:
    _write(tmp_path, "capture/fastcapa.conf", PRODUCER)
    _write(tmp_path, "conf/logging.conf", "[loggers]\nkeys=root\n")  # no librdkafka key: not read
    repo = configrepo.load([str(tmp_path)])
    assert [(Path(f.path).name, f.role, f.format) for f in repo.files] == [
        ("fastcapa.conf", "librdkafka-producer", "librdkafka")]
    values = {e.name: e.value for e in repo.entries}
    assert values["request.required.acks"] == -1 and values["queue.buffering.max.ms"] == 50
    assert values["socket.keepalive.enable"] is True and values["compression.codec"] == "snappy"
    assert all(not e.kind.measured for e in repo.entries)
    assert any("the Java client's 'linger.ms'" in n.message and n.line == 6 for n in repo.notes)


def test_the_client_comes_from_the_name_then_the_keys(tmp_path: Path) -> None:
    consumer = _write(tmp_path, "a/librdkafka.config", "group.id=g\nqueued.min.messages=1000\n")
    named = _write(tmp_path, "b/orders-consumer.properties", "queue.buffering.max.ms=5\nfetch.wait.max.ms=10\n")
    both = _write(tmp_path, "c/kcat.conf", "bootstrap.servers=k:9092\nsasl.mechanisms=PLAIN\n")
    assert librdkafka.file_role(consumer) == "librdkafka-consumer"
    assert librdkafka.file_role(named) == "librdkafka-consumer"
    assert librdkafka.file_role(both) == "librdkafka"
    java = _write(tmp_path, "d/producer.properties", "bootstrap.servers=k:9092\nlinger.ms=5\nbatch.size=65536\n")
    assert librdkafka.file_role(java) is None  # every key is also a Java client's: stays a Java producer file


def test_every_bad_input_is_reported_at_once_with_what_is_valid(tmp_path: Path) -> None:
    path = _write(tmp_path, "fastcapa.conf", PRODUCER + "queue.buffering.max.msec = 5\nbatch.num.messages = 0\n"
                                                       "compression.codec = zstandard\nsocket.keepalive.enable = yes\n"
                                                       "fetch.max.wait.ms = 100\n")
    with pytest.raises(InputErrors) as caught:
        configrepo.load([str(tmp_path)])
    found = {p.line: p.message for p in _problems(caught)}
    assert sorted(found) == [11, 12, 13, 14, 15] and all(p.path == str(path) for p in _problems(caught))
    assert "unknown librdkafka property 'queue.buffering.max.msec': did you mean 'queue.buffering.max.ms'?" in found[11]
    assert "0 is out of range: expected an integer from 1 to 1000000" in found[12]
    assert "'zstandard' not valid: expected one of none, gzip, snappy, lz4, zstd" in found[13]
    assert "expected true or false, got 'yes'" in found[14]
    assert "'fetch.max.wait.ms' is the Java client's name; librdkafka's is 'fetch.wait.max.ms'" in found[15]


def test_what_librdkafka_would_ignore_is_a_warning(tmp_path: Path) -> None:
    path = _write(tmp_path, "ingest-producer.conf", "batch.num.messages=100\nfetch.wait.max.ms=10\n")
    repo = configrepo.load([str(path)])
    warned = [n for n in repo.notes if n.level is NoteLevel.WARNING]
    assert [(n.line, "consumer property" in n.message) for n in warned] == [(2, True)]
    assert [e.name for e in repo.entries] == ["batch.num.messages"]


def test_kcliff_yaml_names_the_role(tmp_path: Path) -> None:
    _write(tmp_path, "apps/client.cfg", "client.id=x\nbootstrap.servers=k:9092\nlinger.ms=5\n")
    _write(tmp_path, "kcliff.yaml", "version: 1\nfiles:\n  - {path: apps/client.cfg, role: librdkafka-producer}\n")
    repo = configrepo.load([str(tmp_path)])
    assert [(f.role, f.format) for f in repo.files] == [("librdkafka-producer", "librdkafka")]
    assert {e.scope for e in repo.entries} == {"librdkafka-producer"}
    assert isinstance(repo.entries[0], Entry)


def test_a_java_producer_file_with_librdkafka_keys_is_told_the_role(tmp_path: Path) -> None:
    _write(tmp_path, "client.properties", "acks=all\nbatch.num.messages=100\n")
    _write(tmp_path, "kcliff.yaml", "version: 1\nfiles:\n  - {path: client.properties, role: producer}\n")
    with pytest.raises(InputError) as caught:
        configrepo.load([str(tmp_path)])
    assert "'batch.num.messages' is a librdkafka property: give this file the role librdkafka-producer" in str(caught.value)


# --- the real CLI ------------------------------------------------------------------------------------------

def test_lint_of_a_librdkafka_repo_exits_0_and_of_a_typo_exits_2_naming_the_line(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    path = _write(repo, "capture/fastcapa.conf", PRODUCER)
    (repo / ".git").mkdir()
    done = run_kcliff("lint", "repo", cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    path.write_text(PRODUCER.replace("batch.num.messages", "batch.num.mesages"))
    done = run_kcliff("lint", "repo", cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "capture/fastcapa.conf:7: unknown librdkafka property 'batch.num.mesages': did you mean " \
           "'batch.num.messages'?" in done.stderr
    assert "Traceback" not in done.stderr


def test_check_says_what_a_head_changes_in_librdkafka_files(tmp_path: Path) -> None:
    _write(tmp_path, "base/capture/fastcapa.conf", PRODUCER)
    _write(tmp_path, "head/capture/fastcapa.conf", PRODUCER.replace("queue.buffering.max.ms = 50",
                                                                    "queue.buffering.max.ms = 100"))
    base, head = (configrepo.load([str(tmp_path / side)]) for side in ("base", "head"))
    said = librdkafka.unmeasured_changes(base.entries, head.entries, str(tmp_path / "base"), str(tmp_path / "head"))
    assert said == ["head changes librdkafka settings kcliff does not measure: librdkafka "
                    f"queue.buffering.max.ms 50 -> 100 at {tmp_path}/head/capture/fastcapa.conf:6"]
    assert librdkafka.unmeasured_changes(base.entries, base.entries, str(tmp_path / "base"), str(tmp_path / "base")) == []
