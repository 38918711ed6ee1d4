"""The static cliff rules: the shipped rules file, every rule firing on its own example, Kafka's
defaults firing none, and the effective-value logic (inheritance, equivalent spellings)."""

from __future__ import annotations

from pathlib import Path

import pytest
from kcliff import configrepo
from kcliff.errors import InputError
from kcliff.lint import cliffs
from kcliff.scenario import settings
from kcliff.scenario import suites as scenario

RULES = cliffs.load_rules()
SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
CANARIES = {sc.id for sc in scenario.load_file(SCENARIOS / "canaries.yaml")}
# A latency canary proves the rig sees a wait at a fixed rate; whether a wait matters depends on the
# service's rate and latency budget, which no static rule knows, so it backs no error rule.
RATE_CANARIES = {sc.id for sc in scenario.load_file(SCENARIOS / "canaries.yaml") if sc.at_rate()}
NETWORK_CANARIES = {sc.id for sc in scenario.load_file(SCENARIOS / "canaries-network.yaml")}


def lint(tmp_path: Path, files: dict[str, str]) -> list[cliffs.Match]:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return cliffs.evaluate(configrepo.load([str(tmp_path)]), RULES)


def ids(matches: list[cliffs.Match]) -> list[tuple[str, str, int | None]]:
    return [(m.rule.id, Path(m.path).name, m.line) for m in matches]


def test_rules_point_at_real_canaries_and_every_canary_backs_an_error_rule():
    pointed = {r.canary for r in RULES if r.canary}
    known = CANARIES | NETWORK_CANARIES
    assert pointed <= known, f"rules name canaries that scenarios/canaries*.yaml lack: {pointed - known}"
    assert RATE_CANARIES == {"linger-500"}
    assert CANARIES - RATE_CANARIES <= {r.canary for r in RULES if r.severity == "error"}
    # The severity policy: an error needs a canary or a mechanism switched off outright (batching, or
    # librdkafka's pipelining, which no canary measures on librdkafka yet).
    switched_off = {"batching-disabled", "librdkafka-batching-off", "librdkafka-inflight-one"}
    for rule in RULES:
        if rule.severity == "error":
            assert rule.canary or rule.id in switched_off, rule.id


def test_kafka_defaults_written_out_match_no_rule(tmp_path):
    def props(scope: str) -> str:
        return "".join(f"{n}={settings.as_kafka_value(v)}\n" for n, v in settings.defaults(scope).items())
    topic_configs = "".join(f"    {n}: {settings.as_kafka_value(v)}\n" for n, v in settings.defaults("topic").items()
                            if n != "partitions")
    matches = lint(tmp_path, {"server.properties": props("broker") + "min.insync.replicas=2\n",
                              "producer.properties": props("producer") + "acks=all\n",
                              "consumer.properties": props("consumer"),
                              "topics.yaml": f"- name: t\n  partitions: 6\n  replication_factor: 3\n  configs:\n"
                                             f"{topic_configs}    min.insync.replicas: 2\n"})
    assert matches == []


@pytest.mark.parametrize("files, expected", [
    ({"server.properties": "node.id=1\nlog.flush.interval.messages=1\n"},
     [("flush-every-message", "server.properties", 2)]),
    ({"server.properties": "log.flush.interval.messages=1000\n"}, [("flush-frequent", "server.properties", 1)]),
    ({"topics.yaml": "- name: t\n  configs:\n    flush.messages: 1\n"},
     [("topic-flush-every-message", "topics.yaml", 3)]),
    ({"topics.yaml": "- name: t\n  configs:\n    flush.messages: 500\n"},
     [("topic-flush-frequent", "topics.yaml", 3)]),
    ({"producer.properties": "max.in.flight.requests.per.connection=1\n"},
     [("inflight-one", "producer.properties", 1)]),
    ({"producer.properties": "linger.ms=5\nbatch.size=0\n"}, [("batching-disabled", "producer.properties", 2)]),
    ({"producer.properties": "batch.size=2048\n"}, [("batch-tiny", "producer.properties", 1)]),
    ({"producer.properties": "linger.ms=0\n"}, [("linger-zero-small-batch", "producer.properties", 1)]),
    ({"server.properties": "num.io.threads=1\n"}, [("io-threads-one", "server.properties", 1)]),
    ({"server.properties": "num.network.threads=1\n"}, [("network-threads-one", "server.properties", 1)]),
    ({"server.properties": "socket.send.buffer.bytes=1024\n"}, [("broker-socket-send-tiny", "server.properties", 1)]),
    ({"server.properties": "socket.receive.buffer.bytes=1024\n"},
     [("broker-socket-receive-tiny", "server.properties", 1)]),
    ({"server.properties": "replica.socket.receive.buffer.bytes=4096\n"},
     [("replica-socket-receive-tiny", "server.properties", 1)]),
    ({"producer.properties": "send.buffer.bytes=8192\n"}, [("producer-socket-send-tiny", "producer.properties", 1)]),
    ({"producer.properties": "compression.type=lz4\n", "topics.yaml": "- name: t\n  configs: {compression.type: zstd}\n"},
     [("compression-mismatch", "topics.yaml", 2)]),
    ({"producer.properties": "acks=1\n"}, [("acks-not-all", "producer.properties", 1)]),
    ({"server.properties": "log.roll.ms=100\n"}, [("log-roll-tiny", "server.properties", 1)]),
    ({"topics.yaml": "- name: t\n  configs: {segment.ms: 100}\n"}, [("topic-segment-roll-tiny", "topics.yaml", 2)]),
    ({"server.properties": "log.segment.bytes=1048576\n"}, [("segment-bytes-tiny", "server.properties", 1)]),
    ({"topics.yaml": "- name: t\n  configs: {segment.bytes: 1048576}\n"},
     [("topic-segment-bytes-tiny", "topics.yaml", 2)]),
    ({"server.properties": "log.flush.scheduler.interval.ms=100\n"},
     [("flush-scheduler-frequent", "server.properties", 1)]),
    ({"server.properties": "log.flush.scheduler.interval.ms=100\nlog.flush.interval.ms=60000\n",
      "topics.yaml": "- name: t\n  configs:\n    flush.ms: 10\n"},
     [("topic-flush-scheduler-frequent", "topics.yaml", 3)]),
    ({"server.properties": "queued.max.requests=1\n"}, [("queued-requests-tiny", "server.properties", 1)]),
    ({"server.properties": "replica.lag.time.max.ms=500\n"}, [("replica-lag-tiny", "server.properties", 1)]),
    ({"server.properties": "unclean.leader.election.enable=true\n"},
     [("unclean-leader-election", "server.properties", 1)]),
    ({"topics.yaml": "- name: t\n  configs: {unclean.leader.election.enable: true}\n"},
     [("topic-unclean-leader-election", "topics.yaml", 2)]),
    ({"server.properties": "min.insync.replicas=1\n"}, [("broker-min-isr-one", "server.properties", 1)]),
    ({"topics.yaml": "- name: t\n  configs: {min.insync.replicas: 1}\n"}, [("topic-min-isr-one", "topics.yaml", 2)]),
    ({"topics.yaml": "- name: t\n  replication_factor: 2\n"}, [("replication-below-three", "topics.yaml", 2)]),
    ({"producer.properties": "enable.idempotence=false\n"}, [("idempotence-off-reordering", "producer.properties", 1)]),
    ({"consumer.properties": "group.id=g\nmax.poll.records=1\n"}, [("consumer-poll-one-record", "consumer.properties", 2)]),
    ({"consumer.properties": "fetch.max.bytes=1\n"}, [("consumer-fetch-one-batch", "consumer.properties", 1)]),
    ({"consumer.properties": "fetch.max.bytes=32768\n"}, [("consumer-fetch-tiny", "consumer.properties", 1)]),
    ({"consumer.properties": "max.partition.fetch.bytes=4096\n"},
     [("consumer-partition-fetch-tiny", "consumer.properties", 1)]),
    ({"consumer.properties": "receive.buffer.bytes=1\n"}, [("consumer-socket-receive-tiny", "consumer.properties", 1)]),
    ({"consumer.properties": "auto.commit.interval.ms=0\n"},
     [("consumer-commit-every-poll", "consumer.properties", 1)]),
    # auto-commit off and nothing said: the service commits after each poll, here of at most 5 records
    ({"consumer.properties": "enable.auto.commit=false\nmax.poll.records=5\n"},
     [("commit-tiny-polls", "consumer.properties", 2)]),
    ({"kcliff.yaml": "consumers:\n  consumer.properties: {commit: record-sync}\n", "consumer.properties": "group.id=g\n"},
     [("commit-every-record", "kcliff.yaml", 2)]),
])
def test_each_rule_fires_on_its_example(tmp_path, files, expected):
    assert ids(lint(tmp_path, files)) == expected


def test_every_rule_has_an_example_above():
    examples = {case[1][0][0] for case in test_each_rule_fires_on_its_example.pytestmark[0].args[1]}
    assert examples == {r.id for r in RULES if not cliffs.reads_librdkafka(r)}  # librdkafka's: their own test file


@pytest.mark.parametrize("files", [
    {"producer.properties": "linger.ms=10\n"},                           # an ordinary change
    {"producer.properties": "linger.ms=0\nbatch.size=65536\n"},          # linger 0 with big batches
    {"producer.properties": "send.buffer.bytes=-1\n"},                  # -1: the OS default
    {"producer.properties": "compression.type=none\n",                   # none == uncompressed
     "topics.yaml": "- name: t\n  configs: {compression.type: uncompressed}\n"},
    {"producer.properties": "compression.type=zstd\n", "server.properties": "compression.type=zstd\n"},
    {"producer.properties": "acks=-1\n"},                                # -1 == all
    {"server.properties": "log.flush.interval.messages=10000\n"},
    {"server.properties": "log.roll.ms=3600000\nlog.segment.bytes=536870912\nqueued.max.requests=500\n"
                          "replica.lag.time.max.ms=30000\nunclean.leader.election.enable=false\n"},
    {"server.properties": "log.flush.interval.ms=1\n", "topics.yaml": "- name: t\n  configs: {flush.ms: 1}\n"},
    {"topics.yaml": "- name: t\n  configs: {segment.ms: 86400000, segment.bytes: 268435456}\n"},
    # a flusher that wakes every 10 ms but finds nothing due (counted: no more fsyncs than Kafka's defaults)
    {"server.properties": "log.flush.scheduler.interval.ms=10\nlog.flush.interval.ms=60000\n"},
    # the operations guide's old production values: a flush every 10 s checked every 2 s, a 10 s lag, 16 queued
    {"server.properties": "log.flush.scheduler.interval.ms=2000\nlog.flush.interval.ms=10000\n"
                          "replica.lag.time.max.ms=10000\nqueued.max.requests=16\n"},
    {"consumer.properties": "max.poll.records=100\nfetch.max.bytes=1048576\nreceive.buffer.bytes=-1\n"},
    {"consumer.properties": "enable.auto.commit=false\nauto.commit.interval.ms=0\n"},  # commits are the app's
])
def test_ordinary_settings_pass(tmp_path, files):
    assert lint(tmp_path, files) == []


def test_broker_compression_is_inherited_by_topics_and_reported_once(tmp_path):
    matches = lint(tmp_path, {"server.properties": "node.id=1\ncompression.type=gzip\n",
                              "topics.yaml": "- name: a\n- name: b\n  configs: {compression.type: producer}\n"})
    assert ids(matches) == [("compression-mismatch", "server.properties", 2)]
    assert "producer compression.type=none (default)" in matches[0].condition()


def test_broker_flush_is_reported_once_not_per_topic(tmp_path):
    matches = lint(tmp_path, {"server.properties": "log.flush.interval.messages=1\n",
                              "topics.yaml": "- name: a\n- name: b\n"})
    assert ids(matches) == [("flush-every-message", "server.properties", 1)]


def test_default_replication_factor_is_inherited(tmp_path):
    matches = lint(tmp_path, {"server.properties": "default.replication.factor=1\n"})
    assert ids(matches) == [("replication-below-three", "server.properties", 1)]


def test_each_producer_is_checked_against_each_topic(tmp_path):
    matches = lint(tmp_path, {"a-producer.properties": "compression.type=lz4\n",
                              "b-producer.properties": "compression.type=zstd\n",
                              "topics.yaml": "- name: t\n  configs: {compression.type: zstd}\n"})
    assert ids(matches) == [("compression-mismatch", "topics.yaml", 2)]
    assert "lz4" in matches[0].condition()


@pytest.mark.parametrize("rule, words", [
    ("{id: x, title: t, severity: error, mechanism: m, fix: f, when: [{setting: broker/num.io.thread, equals: 1}]}",
     "did you mean 'broker/num.io.threads'"),
    ("{id: x, title: t, severity: error, mechanism: m, fix: f, when: [{setting: broker/num.io.threads, eq: 1}]}",
     "unknown operator 'eq'"),
    ("{id: x, title: t, severity: fatal, mechanism: m, fix: f, when: [{setting: broker/num.io.threads, equals: 1}]}",
     "severity must be one of"),
    ("{id: x, title: t, severity: error, mechanism: m, fix: f, when: [{setting: producer/linger.ms, inherit: true, equals: 1}]}",
     "'inherit: true' applies to topic settings"),
])
def test_bad_rules_files_name_the_line(tmp_path, rule, words):
    path = tmp_path / "rules.yaml"
    path.write_text(f"schema: kcliff.cliffs\nversion: 1\nrules:\n  - {rule}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        cliffs.load_rules(path)
    assert words in err.value.message and err.value.line == 4


def test_introduced_compares_base_and_head_wherever_they_are_checked_out(tmp_path):
    base_dir, head_dir = tmp_path / "base", tmp_path / "head"
    base_dir.mkdir()
    head_dir.mkdir()
    base = lint(base_dir, {"server.properties": "num.io.threads=1\n", "producer.properties": "linger.ms=5\n"})
    head = lint(head_dir, {"server.properties": "# moved\nnum.io.threads=1\n",
                           "producer.properties": "linger.ms=5\nmax.in.flight.requests.per.connection=1\n"})
    new = cliffs.introduced(base, head)
    assert [(m.rule.id, m.line) for m in new] == [("inflight-one", 2)]
    assert new[0].to_dict()["severity"] == "error" and new[0].to_dict()["path"].endswith("producer.properties")


def test_docs_list_every_rule():
    text = (Path(__file__).resolve().parents[2] / "docs" / "gate.md").read_text(encoding="utf-8")
    missing = [r.id for r in RULES if f"`{r.id}`" not in text]
    assert not missing, f"docs/gate.md does not list rules {missing}"


def test_every_bad_rule_of_a_rules_file_is_reported_at_once(tmp_path):
    good = ("{id: x, title: t, severity: error, mechanism: m, fix: f, "
            "when: [{setting: broker/num.io.threads, equals: 1}]}")
    path = tmp_path / "rules.yaml"
    path.write_text("schema: kcliff.cliffs\nversion: 1\nrules:\n"
                    f"  - {good}\n"
                    f"  - {good.replace('id: x', 'id: y').replace('equals', 'eq')}\n"
                    f"  - {good.replace('id: x', 'id: z').replace('error', 'fatal')}\n"
                    f"  - {good}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        cliffs.load_rules(path)
    found = [(p.line, p.message) for p in err.value.problems]
    assert [line for line, _ in found] == [5, 6, 7], found
    assert "unknown operator 'eq'" in found[0][1] and "severity must be one of" in found[1][1]
    assert found[2][1] == "duplicate rule id 'x'"


def test_an_unset_log_flush_interval_is_the_flushers_interval(tmp_path):
    """Kafka reads log.flush.interval.ms, when it is not set, as log.flush.scheduler.interval.ms: a
    flusher every 10 ms alone flushes every partition every 10 ms."""
    matches = lint(tmp_path, {"server.properties": "node.id=1\nlog.flush.scheduler.interval.ms=10\n"})
    assert ids(matches) == [("flush-scheduler-frequent", "server.properties", 2)]
    assert "broker log.flush.scheduler.interval.ms=10" in matches[0].condition()


CLIFF_REPOS = Path(__file__).resolve().parents[1] / "data" / "cliff-repos"


def line_of(path: Path, text: str) -> int:
    """The line of `path` that starts with `text` (after indentation), as lint reports it."""
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if line.strip().startswith(text))


def test_the_rules_of_26_on_a_broker_copied_from_a_test_cluster():
    """A test cluster's config carried into production (dozens of keys): each new rule on its line."""
    repo = CLIFF_REPOS / "slow"
    broker, topics = repo / "brokers" / "server.properties", repo / "topics" / "topics.yaml"
    found = {(m.rule.id, Path(m.path).name, m.line, m.topic if m.named_topic else None)
             for m in cliffs.evaluate(configrepo.load([str(repo)]), RULES)}
    expected = {
        ("broker-socket-send-tiny", "server.properties", line_of(broker, "socket.send.buffer.bytes"), None),
        ("broker-socket-receive-tiny", "server.properties", line_of(broker, "socket.receive.buffer.bytes"), None),
        ("queued-requests-tiny", "server.properties", line_of(broker, "queued.max.requests"), None),
        ("flush-scheduler-frequent", "server.properties", line_of(broker, "log.flush.scheduler.interval.ms"), None),
        ("segment-bytes-tiny", "server.properties", line_of(broker, "log.segment.bytes"), None),
        ("log-roll-tiny", "server.properties", line_of(broker, "log.roll.ms"), None),
        ("replica-lag-tiny", "server.properties", line_of(broker, "replica.lag.time.max.ms"), None),
        ("replica-socket-receive-tiny", "server.properties", line_of(broker, "replica.socket.receive.buffer.bytes"),
         None),
        ("unclean-leader-election", "server.properties", line_of(broker, "unclean.leader.election.enable"), None),
        ("topic-segment-roll-tiny", "topics.yaml", line_of(topics, "segment.ms"), "metrics-raw"),
        ("topic-segment-bytes-tiny", "topics.yaml", line_of(topics, "segment.bytes"), "metrics-raw"),
        ("topic-flush-scheduler-frequent", "topics.yaml", line_of(topics, "flush.ms"), "metrics-rollup"),
        ("topic-unclean-leader-election", "topics.yaml", line_of(topics, "unclean.leader.election.enable"), "metrics-rollup"),
    }
    assert found == expected


def test_the_rules_of_26_stay_quiet_on_a_production_broker():
    """The operations guide's old production config (time flush every 10 s checked every 2 s, a lag of
    10 s, 1 MB socket buffers), hourly segments for a compacted topic, a flush.ms with no flusher."""
    assert cliffs.evaluate(configrepo.load([str(CLIFF_REPOS / "sane")]), RULES) == []
