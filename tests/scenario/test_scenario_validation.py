"""Bad scenario files are refused before anything runs: exit 2, file and line, what is valid."""

import textwrap

import pytest
from kcliff.errors import InputError
from kcliff.scenario.suites import load_file, load_suites, reading_reference

GOOD = """\
id: good
description: fine
broker:
  log.flush.interval.messages: 1000
topic:
  partitions: 12
producer:
  batch.size: 65536
"""

CASES = [
    ("unknown key suggests the closest",
     "id: a\nproducer:\n  linger.msec: 5\n", 3, "did you mean 'linger.ms'"),
    ("setting in the wrong scope",
     "id: a\nproducer:\n  log.flush.interval.messages: 1\n", 3, "is a broker setting"),
    ("wrong type", "id: a\nproducer:\n  batch.size: big\n", 3, "expected an integer >= 0"),
    ("negative value", "id: a\nproducer:\n  linger.ms: -1\n", 3, "out of range"),
    ("zero flush interval", "id: a\nbroker:\n  log.flush.interval.messages: 0\n", 3, "out of range"),
    ("enum value", "id: a\nproducer:\n  compression.type: brotli\n", 3, "one of none, gzip"),
    ("invariant override", "id: a\nproducer:\n  acks: 1\n", 3, "fixed at 'all'"),
    ("invariant override RF", "id: a\ntopic:\n  replication.factor: 1\n", 3, "fixed at 3"),
    ("bad id", "id: Has Spaces\n", 1, "scenario id must match"),
    ("unknown scenario key", "id: a\nbrokers:\n  x: 1\n", 2, "unknown scenario key 'brokers'"),
    ("malformed yaml", "id: a\nproducer: [1, 2\n", 3, "invalid YAML"),
    ("duplicate key", "id: a\nid: b\n", 2, "invalid YAML"),
    ("inflight above 5 with idempotence",
     "id: a\nproducer:\n  enable.idempotence: true\n  max.in.flight.requests.per.connection: 6\n", 4,
     "set enable.idempotence=false"),
    ("shell in a value", "id: a\nproducer:\n  linger.ms: 5; rm -rf /\n", 3, "expected an integer"),
    ("cliff ratio out of range", "id: a\ncliff:\n  stands_for: x\n  max_ratio: 2\n", 4, "between 0 and 1"),
    ("duplicate ids", "scenarios:\n  - id: a\n  - id: a\n", 3, "duplicate scenario id 'a'"),
    ("empty suite", "scenarios: []\n", 1, "non-empty list"),
    ("no producers", "id: a\nproducers: 0\n", 2, "producers must be a whole number of producer processes at once from 1 to 16"),
    ("producers as text", "id: a\nproducers: four\n", 2, "got 'four'"),
    ("a record too large for a request", "id: a\nrecord_size: 2000000\n", 2, "must fit max.request.size"),
    ("record size not whole", "id: a\nrecord_size: 1.5\n", 2, "record_size must be a whole number of bytes"),
    ("consumer typo", "id: a\nconsumer:\n  max.pol.records: 1\n", 3, "did you mean 'max.poll.records'"),
    ("consumer below Kafka's minimum", "id: a\nconsumer:\n  max.poll.records: 0\n", 3, "out of range"),
    ("unknown workload", "id: a\nworkloads: [produce, read]\n", 2, "workloads must be a list of produce"),
    ("read canary without its workload",
     "id: a\nworkloads: [produce]\ncliff: {stands_for: x, metric: consumed}\n", 2, "needs the consume workload"),
]


@pytest.mark.parametrize("name,text,line,needle", CASES, ids=[c[0] for c in CASES])
def test_bad_scenario_names_file_and_line(tmp_path, name, text, line, needle):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_file(path)
    assert caught.value.path == str(path)
    assert caught.value.line == line, str(caught.value)
    assert needle in str(caught.value)


def test_good_scenario_applies_invariants(tmp_path):
    path = tmp_path / "good.yaml"
    path.write_text(GOOD)
    (sc,) = load_file(path)
    applied = sc.as_applied()
    assert applied["producer"] == {"batch.size": 65536, "acks": "all"}
    assert applied["topic"]["replication.factor"] == 3 and applied["topic"]["min.insync.replicas"] == 2
    assert applied["topic"]["partitions"] == 12
    assert sc.dynamic_broker() == {"log.flush.interval.messages": 1000} and sc.restart_overrides() == {}


def test_workloads_follow_what_a_scenario_sets_and_the_reference_reads_with_the_run(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("scenarios:\n  - id: plain\n  - id: poll-1\n    consumer: {max.poll.records: 1}\n"
                    "  - id: e2e\n    cliff: {stands_for: slow reads, metric: e2e_p99}\n")
    plain, poll, e2e = load_file(path)
    assert (plain.workloads, poll.workloads, e2e.workloads) == (
        ("produce",), ("produce", "consume"), ("produce", "end-to-end"))
    assert not plain.reads() and poll.reads()
    # consumer settings join the hash only when set: every producer-only scenario keeps its history
    assert "consumer" not in plain.as_applied() and poll.as_applied()["consumer"] == {"max.poll.records": 1}
    reference = load_suites([])[0]
    assert reading_reference([reference, plain]) == [reference, plain]
    assert reading_reference([reference, poll])[0].workloads == ("produce", "consume", "end-to-end")
    assert reading_reference([reference, poll])[0].settings_hash() == reference.settings_hash()
    # a check's self-test: the reference is only the canaries' yardstick, and reads what they read
    assert reading_reference([reference, poll], read_baseline=False)[0].workloads == ("produce", "consume")



def test_a_rate_brings_latency_at_rate_and_the_reference_measures_it_too(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("scenarios:\n  - id: wait-500\n    producer: {linger.ms: 500}\n    rate: 500 records/s\n"
                    "  - id: poll-1\n    consumer: {max.poll.records: 1}\n"
                    "  - id: at-run-rate\n    workloads: [produce, rate]\n")
    wait, poll, at_run = load_file(path)
    assert wait.workloads == ("produce", "rate") and str(wait.rate) == "500 records/s"
    assert at_run.at_rate() and at_run.rate is None and not at_run.reads() and at_run.beyond_producer()
    reference = load_suites([])[0]
    assert reading_reference([reference, wait])[0].workloads == ("produce", "rate")
    assert reading_reference([reference, wait, poll])[0].workloads == ("produce", "consume", "end-to-end", "rate")
    assert reading_reference([reference, wait])[0].settings_hash() == reference.settings_hash()


def test_a_bad_rate_names_its_line_and_the_valid_forms(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("scenarios:\n  - id: wait-500\n    producer: {linger.ms: 500}\n    rate: 500\n")
    with pytest.raises(InputError) as err:
        load_file(path)
    assert err.value.line == 4 and "'2000 records/s' or '1.5 MB/s'" in err.value.message

def test_restart_settings_are_told_apart(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("id: s\nbroker:\n  socket.send.buffer.bytes: 4096\n  num.io.threads: 2\n")
    (sc,) = load_file(path)
    assert sc.restart_overrides() == {"socket.send.buffer.bytes": 4096}
    assert sc.dynamic_broker() == {"num.io.threads": 2}


def test_shipped_suites_are_valid():
    scenarios = load_suites(["canaries"])
    assert scenarios[0].id == "reference"
    assert {"batching-off", "flush-1", "inflight-1"} <= {s.id for s in scenarios}
    network = load_suites(["canaries-network"], with_reference=False)
    assert {"batch16k-linger0", "topic-flush-1"} <= {s.id for s in network} and all(s.cliff for s in network)
    assert all(s.cliff for s in scenarios[1:])


def test_the_consumer_space_reads_and_changes_only_consumer_settings():
    space = load_suites(["consumer"], with_reference=False)
    assert {"consumer-recvbuf-1", "consumer-poll-1", "consumer-study-four"} <= {s.id for s in space}
    for sc in space:
        assert sc.reads() and sc.consumer and sc.cliff is None, sc.id
        applied = sc.as_applied()
        assert applied["producer"] == load_suites([], with_reference=True)[0].as_applied()["producer"], sc.id
    # with it in a run the reference reads too, so every consumer figure has its reference
    assert reading_reference(load_suites(["consumer"]))[0].reads()


@pytest.mark.parametrize("content,needle", [
    (b"", "file is empty"),
    (b"\x00\x01\x02binary\xff", "not UTF-8"),
    (b"- just\n- a list\n", "expected a mapping"),
])
def test_unreadable_files(tmp_path, content, needle):
    path = tmp_path / "x.yaml"
    path.write_bytes(content)
    with pytest.raises(InputError, match=needle):
        load_file(path)


def test_cli_refuses_bad_suite_before_starting_anything(tmp_path, kcliff):
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent("""\
        id: typo
        producer:
          batch.sise: 16384
        """))
    done = kcliff("run", "--suite", str(path), "--workdir", str(tmp_path / "w"), timeout=60)
    assert done.returncode == 2
    assert f"{path}:3: unknown producer setting 'batch.sise': did you mean 'batch.size'?" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "w").exists()


def test_a_canary_round_trip_must_be_milliseconds(tmp_path, kcliff):
    path = tmp_path / "s.yaml"
    path.write_text("scenarios:\n  - id: x\n    producer:\n      linger.ms: 0\n    cliff:\n"
                    "      stands_for: a round trip per record\n      min_client_rtt_ms: -3\n")
    done = kcliff("run", "--suite", str(path), "--workdir", str(tmp_path / "w"), timeout=60)
    assert done.returncode == 2 and f"{path}:7:" in done.stderr
    assert "cliff.min_client_rtt_ms must be milliseconds between 0 and 1000" in done.stderr


def test_every_bad_setting_and_scenario_of_a_suite_is_reported_at_once(tmp_path):
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent("""\
        scenarios:
          - id: a
            producer:
              linger.msec: 5
              batch.size: big
            broker:
              log.flush.interval.messages: 0
          - id: Has Spaces
          - id: c
            cliff: {stands_for: x, max_ratio: 2}
          - id: d
        """))
    with pytest.raises(InputError) as caught:
        load_file(path)
    problems = caught.value.problems
    assert sorted(p.line for p in problems) == [4, 5, 7, 8, 10], str(caught.value)
    assert all(p.path == str(path) for p in problems)
    words = ["did you mean 'linger.ms'", "expected an integer", "out of range", "scenario id must match",
             "between 0 and 1"]
    assert all(any(w in p.message for p in problems) for w in words), str(caught.value)


def test_producers_and_record_size_are_measured_settings_and_a_lone_1_kib_producer_hashes_as_before(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(GOOD)
    lone = load_file(path)[0]
    path.write_text(GOOD + "producers: 4\nrecord_size: 200\n")
    several = load_file(path)[0]
    assert (lone.producers, lone.record_size) == (1, 1024)
    assert (several.producers, several.record_size) == (4, 200)
    assert "producers" not in lone.as_applied()  # the hash every stored lone-producer run carries
    assert lone.settings_hash() == "73015cf5e342"  # as before scenarios had either
    assert several.as_applied()["producers"] == 4 and several.as_applied()["record_size"] == 200
    assert several.settings_hash() != lone.settings_hash()


def test_a_canary_bound_where_bytes_bind_must_be_a_ratio(tmp_path, kcliff):
    path = tmp_path / "s.yaml"
    path.write_text("scenarios:\n  - id: x\n    producer:\n      batch.size: 0\n    cliff:\n"
                    "      stands_for: a request per record\n      max_ratio_where_bytes_bind: 1.5\n")
    done = kcliff("run", "--suite", str(path), "--workdir", str(tmp_path / "w"), timeout=60)
    assert done.returncode == 2 and f"{path}:7:" in done.stderr, done.stderr
    assert "cliff.max_ratio_where_bytes_bind must be a number between 0 and 1 (exclusive), got 1.5" in done.stderr
