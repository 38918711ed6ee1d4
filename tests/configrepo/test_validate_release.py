"""Config repos are checked as Kafka checks them, at the repo's release: every key of every supported
release at its default passes lint; a misspelt key is refused with the right key suggested; keys of
another release, plugins' keys and values Kafka refuses are each told apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kcliff import cli, configrepo
from kcliff.configrepo.model import EntryKind, NoteLevel
from kcliff.errors import InputError
from kcliff.kafka import configs as kafka_configs
from repo_files import write

CATALOGUE = kafka_configs.catalogue()
RELEASES = CATALOGUE.releases
FILES = {"broker": "server.properties", "producer": "producer.properties", "consumer": "consumer.properties"}


def as_text(value: Any) -> str:
    """A default as a config file writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


def written_defaults(scope: str, release: str) -> dict[str, str]:
    """Every key of the scope with a default that can be written down (not null, not required)."""
    out: dict[str, str] = {}
    for name in CATALOGUE.names(scope, release):
        definition = CATALOGUE.lookup(scope, name, release)
        assert definition is not None
        if definition.has_default and definition.default is not None:
            out[name] = as_text(definition.default)
    return out


def escape_properties(text: str) -> str:
    return text.replace("\\", "\\\\")


def defaults_repo(root: Path, release: str, scope: str, rename: tuple[str, str] | None = None) -> Path:
    repo = root / f"{release}-{scope}"
    repo.mkdir()
    (repo / "kafka-version").write_text(f"# the release these defaults are {release}'s\n{release}\n")
    values = written_defaults(scope, release)
    if rename:
        values = {(rename[1] if k == rename[0] else k): v for k, v in values.items()}
    if scope == "topic":
        lines = ["topics:", "  - name: every-default", "    partitions: 6", "    configs:"]
        lines += [f"      {k}: {v!r}" if v else f"      {k}: ''" for k, v in values.items()]
        (repo / "topics.yaml").write_text("\n".join(lines) + "\n")
    else:
        text = "# every key of this release at Kafka's default\n"
        text += "".join(f"{k}={escape_properties(v)}\n" for k, v in values.items())
        (repo / FILES[scope]).write_text(text)
    return repo


@pytest.mark.parametrize("release", RELEASES)
def test_every_key_of_every_release_at_its_default_lints_clean(tmp_path: Path, release: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    for scope in ("broker", "topic", "producer", "consumer"):
        repo = defaults_repo(tmp_path, release, scope)
        code = cli.main(["lint", str(repo)])
        out = capsys.readouterr()
        assert code == 0, (scope, out.out[-2000:], out.err[-2000:])
        read = configrepo.load([str(repo)])
        assert len(read.entries) == len(written_defaults(scope, release)) + (scope == "topic"), scope  # + partitions
        assert read.release is not None and read.release.definitions == release


MISSPELT = [("broker", "replica.lag.time.max.ms", "replica.lag.time.max.msec"),
            ("broker", "log.flush.interval.messages", "log.flush.intervals.messages"),
            ("topic", "segment.ms", "segment.msec"),
            ("producer", "linger.ms", "linger.msec"),
            ("producer", "max.in.flight.requests.per.connection", "max.inflight.requests.per.connection"),
            ("consumer", "fetch.min.bytes", "fetch.min.byte")]


@pytest.mark.parametrize("release", [RELEASES[0], "3.9.2", RELEASES[-1]])
@pytest.mark.parametrize(("scope", "key", "typo"), MISSPELT)
def test_a_misspelt_key_exits_2_with_the_right_key_suggested(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             release: str, scope: str, key: str, typo: str) -> None:
    repo = defaults_repo(tmp_path, release, scope, rename=(key, typo))
    assert cli.main(["lint", str(repo)]) == 2
    err = capsys.readouterr().err
    assert f"unknown {scope} setting '{typo}': did you mean '{key}'?" in err, err


def test_a_key_of_another_release_names_the_releases_that_have_it(tmp_path: Path) -> None:
    write(tmp_path, "server.properties", "broker.id=1\nzookeeper.connect=zk-1:2181,zk-2:2181/kafka\n"
                                         "log.retention.hours=168\n")
    repo = configrepo.load([str(tmp_path)])  # read at the default, 4.x: a warning, not an error
    warning = [n for n in repo.notes if n.level is NoteLevel.WARNING]
    assert len(warning) == 1 and warning[0].line == 2, repo.notes
    assert "'zookeeper.connect' is defined by Kafka 3.3.0-3.9.2" in warning[0].message
    write(tmp_path, "kafka-version", "3.9.2\n")  # at 3.9.2 it is a key like any other
    repo = configrepo.load([str(tmp_path)])
    assert not [n for n in repo.notes if n.level is NoteLevel.WARNING]
    assert {e.name: e.kind for e in repo.entries}["zookeeper.connect"] is EntryKind.UNMEASURED


def test_a_topic_config_of_a_later_release_is_refused_as_kafka_refuses_it(tmp_path: Path) -> None:
    write(tmp_path, "kafka-version", "3.7.1\n")
    write(tmp_path, "topics.yaml", "- name: events\n  partitions: 3\n  configs:\n    compression.type: zstd\n"
                                   "    compression.zstd.level: 9\n")
    with pytest.raises(InputError) as err:
        configrepo.load([str(tmp_path)])
    assert err.value.line == 5
    assert "'compression.zstd.level' is defined by Kafka 3.8.0-" in err.value.message  # KIP-390
    assert "3.7.1" in err.value.message


def test_values_are_parsed_and_validated_as_kafka_does(tmp_path: Path) -> None:
    write(tmp_path, "server.properties",
          "log.cleanup.policy = compact, delete\n"  # a list, spaces around the comma
          "unclean.leader.election.enable=TRUE\n"  # booleans ignore case
          "log.message.timestamp.type=LogAppendTime\n"
          "replica.lag.time.max.ms= 10000 \n")
    values = {e.name: e.value for e in configrepo.load([str(tmp_path)]).entries}
    assert values == {"log.cleanup.policy": ["compact", "delete"], "unclean.leader.election.enable": True,
                      "log.message.timestamp.type": "LogAppendTime", "replica.lag.time.max.ms": 10000}


def test_every_bad_value_of_every_file_is_reported_at_once(tmp_path: Path) -> None:
    write(tmp_path, "server.properties",
          "log.cleanup.policy=compact,shred\n"  # not a valid list item
          "num.network.threads=0\n"  # below the range
          "socket.request.max.bytes=4294967296\n"  # over a 32-bit int
          "log.retention.hours=168\n")
    write(tmp_path, "producer.properties", "compression.type=brotli\nlinger.msec=5\nacks=all\n")
    with pytest.raises(InputError) as err:
        configrepo.load([str(tmp_path)])
    problems = [(Path(p.path or "").name, p.line) for p in err.value.problems]
    assert problems == [("producer.properties", 1), ("producer.properties", 2), ("server.properties", 1),
                        ("server.properties", 2), ("server.properties", 3)], err.value
    text = str(err.value)
    assert "'shred'" in text and "compact, delete" in text  # what would be valid
    assert "out of range" in text and "32-bit integer" in text


def test_plugin_and_vendor_keys_are_noted_not_refused(tmp_path: Path) -> None:
    write(tmp_path, "server.properties", "listener.name.internal.ssl.keystore.location=/etc/ks.jks\n"
                                         "confluent.license.topic.replication.factor=3\n")
    write(tmp_path, "producer.properties", "schema.registry.url=https://sr:8081\nacks=all\n")
    repo = configrepo.load([str(tmp_path)])
    plugin = [n for n in repo.notes if "not defined by Apache Kafka" in n.message]
    assert len(plugin) == 3, repo.notes


def test_a_topic_key_in_a_broker_file_names_the_broker_key(tmp_path: Path) -> None:
    write(tmp_path, "server.properties", "cleanup.policy=compact\n")
    with pytest.raises(InputError) as err:
        configrepo.load([str(tmp_path)])
    assert "a broker sets its default as 'log.cleanup.policy'" in err.value.message


def test_a_release_outside_the_catalogue_is_read_at_the_nearest_older_one(tmp_path: Path) -> None:
    write(tmp_path, "kafka-version", "2.8.1\n")
    write(tmp_path, "server.properties", "broker.id=0\nzookeeper.connect=zk:2181\nlog.message.format.version=2.8\n")
    repo = configrepo.load([str(tmp_path)])
    assert repo.release is not None and repo.release.definitions == RELEASES[0]
    assert any(n.level is NoteLevel.WARNING and "2.8.1 is not among the releases" in n.message for n in repo.notes)
