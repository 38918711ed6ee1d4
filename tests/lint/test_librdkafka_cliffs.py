"""The cliff rules of librdkafka client files (issue #44; docs/librdkafka.md): each fires on a service's
real-looking file on the offending line, in librdkafka's terms (its names, its aliases, its defaults), and
none fires at librdkafka's defaults, of any release in the catalogue."""

from __future__ import annotations

from pathlib import Path

import pytest
from kcliff import configrepo
from kcliff.configrepo import librdkafka
from kcliff.configrepo.model import Entry
from kcliff.errors import InputError
from kcliff.kafka import librdkafka_configs as rdk
from kcliff.lint import cliffs, librdkafka_rules

RULES = cliffs.load_rules()
RDKAFKA_RULES = [r for r in RULES if cliffs.reads_librdkafka(r)]

# A Go service's producer as teams keep it: librdkafka's names, a Java alias or two, comments, healthy values.
PRODUCER = """\
# orders service (Go, confluent-kafka-go): read into a kafka.ConfigMap at start-up
bootstrap.servers=kafka-1.prod.example.net:9092,kafka-2.prod.example.net:9092
client.id=orders
security.protocol=sasl_ssl
sasl.mechanisms=SCRAM-SHA-512
sasl.username=orders
ssl.ca.location=/etc/ssl/certs/ca-certificates.crt
socket.keepalive.enable=true
socket.nagle.disable=true
# batching
queue.buffering.max.ms=20
batch.num.messages=10000
batch.size=1000000
queue.buffering.max.messages=100000
queue.buffering.max.kbytes=1048576
compression.codec=zstd
# delivery
request.required.acks=all
enable.idempotence=true
max.in.flight.requests.per.connection=5
message.send.max.retries=2147483647
retry.backoff.ms=100
message.timeout.ms=300000
request.timeout.ms=30000
socket.send.buffer.bytes=0
statistics.interval.ms=0
"""
# A Python service's consumer: librdkafka's names, the Java alias max.partition.fetch.bytes, healthy values.
CONSUMER = """\
# billing consumer (Python, confluent-kafka): the dict handed to Consumer()
bootstrap.servers=kafka-1.prod.example.net:9092,kafka-2.prod.example.net:9092
group.id=billing
client.id=billing
session.timeout.ms=45000
partition.assignment.strategy=cooperative-sticky
enable.auto.commit=true
auto.commit.interval.ms=5000
enable.auto.offset.store=false
auto.offset.reset=earliest
fetch.wait.max.ms=500
fetch.min.bytes=1
fetch.max.bytes=52428800
max.partition.fetch.bytes=1048576
message.max.bytes=1000000
queued.min.messages=100000
queued.max.messages.kbytes=65536
socket.receive.buffer.bytes=0
statistics.interval.ms=30000
"""


def _lint(root: Path, files: dict[str, str]) -> list[tuple[str, str, int | None]]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return [(m.rule.id, Path(m.path).name, m.line) for m in cliffs.evaluate(configrepo.load([str(root)]), RULES)]


def _set(text: str, key: str, value: str) -> str:
    """The file with `key` set to `value` on its own line (the test's line numbers stay put)."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split("=")[0] == key)
    lines[at] = f"{key}={value}"
    return "\n".join(lines) + "\n"


def _line(text: str, key: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.split("=")[0] == key)


EXAMPLES = [
    ("producer.conf", "batch.num.messages", "1", "librdkafka-batching-off"),
    ("producer.conf", "batch.num.messages", "5", "librdkafka-batch-few-messages"),
    ("producer.conf", "batch.size", "2048", "librdkafka-batch-tiny"),
    ("producer.conf", "max.in.flight.requests.per.connection", "1", "librdkafka-inflight-one"),
    ("producer.conf", "request.required.acks", "1", "librdkafka-acks-not-all"),
    ("producer.conf", "socket.send.buffer.bytes", "4096", "librdkafka-socket-send-tiny"),
    ("consumer.conf", "max.partition.fetch.bytes", "4096", "librdkafka-consumer-partition-fetch-tiny"),
    ("consumer.conf", "socket.receive.buffer.bytes", "1024", "librdkafka-consumer-socket-receive-tiny"),
    ("consumer.conf", "auto.commit.interval.ms", "10", "librdkafka-consumer-commit-frequent"),
]


@pytest.mark.parametrize("name, key, value, rule", EXAMPLES)
def test_each_rule_fires_on_the_line_of_a_service_file(tmp_path: Path, name: str, key: str, value: str,
                                                       rule: str) -> None:
    text = _set(PRODUCER if name == "producer.conf" else CONSUMER, key, value)
    assert _lint(tmp_path, {name: text}) == [(rule, name, _line(text, key))]


def test_linger_zero_fires_only_with_small_batches_librdkafkas_default_is_a_megabyte(tmp_path: Path) -> None:
    linger0 = _set(PRODUCER, "queue.buffering.max.ms", "0")
    assert _lint(tmp_path / "a", {"producer.conf": linger0}) == []  # batch.size 1000000: not Java's 16384
    small = _set(linger0, "batch.size", "16384")
    assert _lint(tmp_path / "b", {"producer.conf": small}) == [
        ("librdkafka-linger-zero-small-batch", "producer.conf", _line(small, "queue.buffering.max.ms"))]
    # the Java producer's linger.ms=0 fires at Java's default batch.size: one rule each, in each client's terms
    assert _lint(tmp_path / "c", {"producer.properties": "linger.ms=0\n"}) == [
        ("linger-zero-small-batch", "producer.properties", 1)]


def test_tiny_fetches_need_message_max_bytes_small_too_as_librdkafka_raises_fetch_max_bytes(tmp_path: Path) -> None:
    tiny = _set(CONSUMER, "fetch.max.bytes", "1")
    assert _lint(tmp_path / "a", {"consumer.conf": tiny}) == []  # raised to message.max.bytes (1000000)
    both = _set(tiny, "message.max.bytes", "1000")
    assert _lint(tmp_path / "b", {"consumer.conf": both}) == [
        ("librdkafka-consumer-fetch-tiny", "consumer.conf", _line(both, "fetch.max.bytes"))]


def test_every_rule_has_an_example() -> None:
    covered = {rule for *_, rule in EXAMPLES} | {"librdkafka-linger-zero-small-batch", "librdkafka-consumer-fetch-tiny"}
    assert covered == {r.id for r in RDKAFKA_RULES}


def test_aliases_are_one_setting_the_last_written_wins_and_the_match_names_the_key_as_written(tmp_path: Path) -> None:
    text = PRODUCER + "max.in.flight=1\nacks=0\n"  # the aliases, after the canonical names: these count
    matches = cliffs.evaluate(configrepo.load([str(_write(tmp_path / "a", text))]), RULES)
    assert [(m.rule.id, m.line) for m in matches] == [("librdkafka-inflight-one", 27), ("librdkafka-acks-not-all", 28)]
    assert matches[0].condition() == "librdkafka-producer max.in.flight=1"
    assert "librdkafka-producer acks=0" in matches[1].describe({})
    undone = PRODUCER.replace("batch.num.messages=10000", "batch.num.messages=1") + "batch.num.messages=10000\n"
    assert _lint(tmp_path / "b", {"producer.conf": undone}) == []  # librdkafka keeps the last
    topic = PRODUCER + "topic.request.required.acks=0\n"  # a topic property written topic.<name>
    assert _lint(tmp_path / "c", {"producer.conf": topic}) == [("librdkafka-acks-not-all", "producer.conf", 27)]


def _write(root: Path, text: str, name: str = "producer.conf") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text, encoding="utf-8")
    return root


def test_each_client_reads_its_own_rules_and_a_kcat_file_both(tmp_path: Path) -> None:
    # a consumer's tiny send buffer is no producer cliff; a producer's tiny receive buffer no consumer one
    consumer = CONSUMER + "socket.send.buffer.bytes=1024\n"
    producer = PRODUCER + "socket.receive.buffer.bytes=1024\n"
    assert _lint(tmp_path / "a", {"consumer.conf": consumer, "producer.conf": producer}) == []
    # a kcat file sets both clients' keys, so both clients' rules read it
    kcat = "bootstrap.servers=k:9092\ncompression.codec=zstd\nmax.in.flight=1\nauto.commit.interval.ms=1\n"
    assert _lint(tmp_path / "b", {"kcat.conf": kcat}) == [
        ("librdkafka-inflight-one", "kcat.conf", 3), ("librdkafka-consumer-commit-frequent", "kcat.conf", 4)]
    # a consumer's max.in.flight is no cliff: librdkafka keeps one fetch in flight per broker whatever it says
    assert _lint(tmp_path / "c", {"consumer.conf": CONSUMER + "max.in.flight=1\n"}) == []


def test_healthy_service_files_lint_clean(tmp_path: Path) -> None:
    assert _lint(tmp_path, {"producer.conf": PRODUCER, "consumer.conf": CONSUMER}) == []
    assert _lint(tmp_path / "b", {"consumer.conf": _set(CONSUMER, "auto.commit.interval.ms", "0")}) == []  # 0: off


@pytest.mark.parametrize("release", rdk.catalogue().releases)
def test_every_property_of_a_release_at_its_default_matches_no_rule(tmp_path: Path, release: str) -> None:
    cat = rdk.catalogue()
    props = [p for p in cat.properties(release) if p.type != "api" and p.default is not None]
    text = "".join(f"{cat.written_name(p, release)}={p.default}\n" for p in props)
    path = tmp_path / "all.conf"
    path.write_text(text, encoding="utf-8")
    read = librdkafka.LibrdkafkaReader().read(path, "librdkafka")  # both clients: every rule reads it
    entries = [e for raw in read.entries if isinstance(e := librdkafka.validate_entry(raw, release), Entry)]
    assert len(entries) > 90
    for client in librdkafka_rules.client_files(entries):
        assert [r.id for r in RDKAFKA_RULES if cliffs.match_rule(r, client.value, None)] == []


@pytest.mark.parametrize("clause, words", [
    ("{setting: librdkafka-producer/queue.buffering.max.msec, equals: 0}",
     "unknown librdkafka setting 'librdkafka-producer/queue.buffering.max.msec' in rule: did you mean "
     "'librdkafka-producer/queue.buffering.max.ms'?"),
    ("{setting: librdkafka-producer/fetch.max.bytes, less_than: 1}",
     "'fetch.max.bytes' is a librdkafka consumer property: a librdkafka-producer rule cannot read it"),
    ("{setting: librdkafka-producer/acks, in: [0, most]}",
     "librdkafka's 'request.required.acks' expected an integer from -1 to 1000 (or all), got 'most'"),
    ("{setting: librdkafka-producer/compression.codec, less_than: 1}",
     "'less_than' compares numbers; librdkafka's 'compression.codec' is one of none, gzip, snappy, lz4, zstd"),
    ("{setting: librdkafka-consumer/enable.auto.commit, equals: sometimes}", "expected true or false, got 'sometimes'"),
    ("{setting: librdkafka-producer/batch.size, less_than: 4096}\n    - {setting: producer/batch.size, less_than: 4096}",
     "a rule reads librdkafka settings or Kafka's, not both"),
])
def test_a_bad_librdkafka_clause_names_its_line_and_what_is_valid(tmp_path: Path, clause: str, words: str) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text("schema: kcliff.cliffs\nversion: 1\nrules:\n  - id: x\n    title: t\n    severity: warning\n"
                    f"    mechanism: m\n    fix: f\n    when:\n    - {clause}\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        cliffs.load_rules(path)
    (problem,) = caught.value.problems
    assert words in problem.message and problem.path == str(path) and problem.line in (9, 10, 11), str(problem)


def test_a_rule_may_name_a_property_by_its_alias_and_librdkafkas_words(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text("schema: kcliff.cliffs\nversion: 1\nrules:\n  - id: x\n    title: t\n    severity: warning\n"
                    "    mechanism: m\n    fix: f\n    when:\n    - {setting: librdkafka-producer/acks, equals: all}\n",
                    encoding="utf-8")
    (clause,) = cliffs.load_rules(path)[0].clauses
    assert (clause.name, clause.ops) == ("request.required.acks", (("equals", -1),))
