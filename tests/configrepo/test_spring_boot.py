"""Spring Boot application files as a config repo: spring.kafka's producer and consumer properties mapped
to Kafka's keys with Spring's data sizes and durations converted, the properties maps passed through
(the shared one to the clients that know each key), relaxed names, placeholders and Spring's own
sections noted, a property Spring does not have refused; discovery by name; lint annotations on the
right line of the example service."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff import configrepo
from kcliff.configrepo import spring_boot
from kcliff.errors import InputError
from repo_files import line_of, write

EXAMPLE = ROOT / "examples" / "spring-repo"
RESOURCES = "orders-service/src/main/resources"

# A payments service's application.yml: its web, database and Kafka settings, and a profile document.
APPLICATION_YML = """\
server:
  port: 8443
spring:
  application:
    name: payments-service
  jpa:
    open-in-view: false
  kafka:
    bootstrap-servers:
      - kafka-1.internal:9093
      - kafka-2.internal:9093
    properties:
      security.protocol: SSL
      fetch.max.bytes: 10485760
      linger.ms: 25
      request.timeout.ms: 40000
      "[max.request.size]": 2097152
    producer:
      acks: all
      batchSize: 256KB
      buffer_memory: 128MB
      compression-type: zstd
      transaction-id-prefix: payments-tx-
      properties:
        max.in.flight.requests.per.connection: 5
        delivery.timeout.ms: ${PRODUCER_DELIVERY_TIMEOUT_MS:120000}
        send.buffer.bytes: 262144
    consumer:
      group-id: payments
      enable-auto-commit: true
      auto-commit-interval: 2s
      fetch-min-size: 64KB
      fetch-max-wait: PT0.25S
      max-poll-records: 250
      max-poll-interval: 5m
      isolation-level: READ_COMMITTED
      properties:
        "[max.partition.fetch.bytes]": 4194304
        spring.json.trusted.packages: com.acme.payments
      ssl:
        bundle: payments-client
    listener:
      concurrency: 6
    streams:
      application-id: payments-streams
---
spring:
  config:
    activate:
      on-profile: perf
  kafka:
    producer:
      properties:
        linger.ms: 50
"""


def read(path: Path) -> configrepo.ReadResult:
    return spring_boot.SpringBootReader().read(path, "spring-boot")


def test_spring_properties_become_kafka_keys_on_their_lines(tmp_path):
    path = write(tmp_path, "application.yml", APPLICATION_YML)
    result = read(path)
    got: dict[tuple[str, str], list[tuple[str, int | None]]] = {}
    for e in result.entries:
        got.setdefault((e.scope, e.name), []).append((e.raw, e.line))
    expected = {
        ("producer", "acks"): ("all", "acks: all"), ("producer", "batch.size"): ("262144", "batchSize: 256KB"),
        ("producer", "buffer.memory"): ("134217728", "buffer_memory: 128MB"),
        ("producer", "compression.type"): ("zstd", "compression-type"),
        ("producer", "max.in.flight.requests.per.connection"): ("5", "max.in.flight"),
        ("producer", "send.buffer.bytes"): ("262144", "send.buffer.bytes"),
        ("consumer", "group.id"): ("payments", "group-id"), ("consumer", "enable.auto.commit"): ("true", "enable-auto"),
        ("consumer", "auto.commit.interval.ms"): ("2000", "auto-commit-interval: 2s"),
        ("consumer", "fetch.min.bytes"): ("65536", "fetch-min-size: 64KB"),
        ("consumer", "fetch.max.wait.ms"): ("250", "fetch-max-wait: PT0.25S"),
        ("consumer", "max.poll.records"): ("250", "max-poll-records"),
        ("consumer", "max.poll.interval.ms"): ("300000", "max-poll-interval: 5m"),
        ("consumer", "isolation.level"): ("read_committed", "isolation-level"),
        ("consumer", "max.partition.fetch.bytes"): ("4194304", "max.partition.fetch.bytes"),
        # spring.kafka.properties: each key for the clients that know it
        ("consumer", "fetch.max.bytes"): ("10485760", "fetch.max.bytes"),
        ("producer", "max.request.size"): ("2097152", "[max.request.size]"),
        ("producer", "request.timeout.ms"): ("40000", "request.timeout.ms"),
        ("consumer", "request.timeout.ms"): ("40000", "request.timeout.ms"),
    }
    for key, (raw, text) in expected.items():
        assert got[key] == [(raw, line_of(path, text))], key
    assert ("producer", "fetch.max.bytes") not in got and ("consumer", "linger.ms") not in got
    # the perf profile's linger.ms is read after the shared one, so it is the value in effect
    assert got[("producer", "linger.ms")] == [("25", line_of(path, "linger.ms: 25")), ("50", line_of(path, "linger.ms: 50"))]
    assert ("producer", "transactional.id") in got  # Spring's prefix, noted by validation as not measured
    notes = {n.line: n.message for n in result.notes}
    assert "a placeholder resolved when the service starts" in notes[line_of(path, "delivery.timeout.ms")]
    assert "(de)serializers" in notes[line_of(path, "spring.json.trusted.packages")]
    # the listener's consumers are the group's members; with auto-commit on, the container commits nothing
    assert got[("consuming", "members")] == [(6, line_of(path, "concurrency: 6"))]
    assert ("consuming", "commit") not in got
    assert "Kafka Streams" in notes[line_of(path, "application-id")]
    assert "TLS settings for the consumer" in notes[line_of(path, "bundle:")]
    assert "where every client connects" in notes[line_of(path, "bootstrap-servers:")]
    assert "profile perf" in notes[line_of(path, "on-profile: perf")]
    assert not any(e.name.startswith("spring.") or e.name == "delivery.timeout.ms" for e in result.entries)


def test_the_properties_form_with_relaxed_names_and_bracketed_keys(tmp_path):
    path = write(tmp_path, "application-prod.properties", """\
# payments-service, production
server.port=8443
spring.kafka.bootstrap-servers[0]=kafka-1.internal:9093
spring.kafka.producer.batch_size=1MB
spring.kafka.producer.BUFFER-MEMORY=67108864
spring.kafka.producer.properties[linger.ms]=15
spring.kafka.producer.properties.enable.idempotence=true
spring.kafka.consumer.fetchMaxWait=100
spring.kafka.consumer.max-poll-records=1000
spring.kafka.consumer.heartbeat-interval=PT3S
""")
    got = {(e.scope, e.name): (e.raw, e.line) for e in read(path).entries}
    assert got == {("producer", "batch.size"): ("1048576", 4), ("producer", "buffer.memory"): ("67108864", 5),
                   ("producer", "linger.ms"): ("15", 6), ("producer", "enable.idempotence"): ("true", 7),
                   ("consumer", "fetch.max.wait.ms"): ("100", 8), ("consumer", "max.poll.records"): ("1000", 9),
                   ("consumer", "heartbeat.interval.ms"): ("3000", 10),
                   # auto-commit unset: Spring Kafka turns it off and commits after each poll (ack-mode BATCH)
                   ("consuming", "commit"): ("poll-sync", None)}


@pytest.mark.parametrize("raw, expected", [(512, 512), ("512", 512), ("64KB", 65536), ("1MB", 1048576),
                                           ("2GB", 2 * 1024**3), ("16B", 16), (" 32 KB ", 32768), ("0", 0)])
def test_data_sizes_are_spring_s_1024_based_units(raw, expected):
    assert spring_boot.data_size(raw) == expected


@pytest.mark.parametrize("raw, expected", [(250, 250), ("250", 250), ("500ms", 500), ("5s", 5000), ("5S", 5000),
                                           ("1m", 60000), ("2h", 7200000), ("1d", 86400000), ("1500us", 1),
                                           ("PT5S", 5000), ("PT0.25S", 250), ("pt1m30s", 90000), ("P1DT1H", 90000000),
                                           ("PT-0.5S", -500), ("-PT1S", -1000)])
def test_durations_are_spring_s_with_milliseconds_by_default(raw, expected):
    assert spring_boot.duration_ms(raw) == expected


@pytest.mark.parametrize("convert, raw", [(spring_boot.data_size, "64kb"), (spring_boot.data_size, "1.5MB"),
                                          (spring_boot.data_size, "10 PB"), (spring_boot.duration_ms, "5 sec"),
                                          (spring_boot.duration_ms, "P1Y"), (spring_boot.duration_ms, "PT"),
                                          (spring_boot.duration_ms, "1.5s")])
def test_values_spring_would_refuse_are_refused(convert, raw):
    with pytest.raises(ValueError):
        convert(raw)


def test_properties_spring_does_not_have_are_bad_input_all_at_once(tmp_path):
    path = write(tmp_path, "application.yml", """\
spring:
  kafka:
    producer:
      linger-ms: 5
      batch-sise: 64KB
      buffer-memory: 64kb
    consumer:
      fetch-max-wait: 5 seconds
      isolation-level: serializable
""")
    with pytest.raises(InputError) as caught:
        read(path)
    found = {p.line: p.message for p in caught.value.problems}
    assert set(found) == {4, 5, 6, 8, 9}, found
    assert "Spring Boot has no such producer property and ignores it" in found[4]
    assert "Kafka's linger.ms goes under spring.kafka.producer.properties.linger.ms" in found[4]
    assert "did you mean spring.kafka.producer.batch-size?" in found[5]
    assert "not a Spring data size" in found[6] and "not a Spring duration" in found[8]
    assert "read-committed or read-uncommitted" in found[9]


def test_application_files_are_found_by_name(tmp_path):
    write(tmp_path, "svc/src/main/resources/application.yml", APPLICATION_YML)
    write(tmp_path, "svc/src/main/resources/application-producer.properties", "spring.kafka.producer.acks=all\n")
    write(tmp_path, "svc/src/main/resources/logback-spring.xml", "<configuration/>\n")
    write(tmp_path, "svc/src/main/resources/bootstrap.yml", "spring:\n  cloud:\n    config:\n      enabled: false\n")
    files, _, _ = configrepo.discover([str(tmp_path)])
    assert [(Path(f.path).name, f.role) for f in files] == [("application-producer.properties", "spring-boot"),
                                                           ("application.yml", "spring-boot")]


def test_the_application_is_measured_as_the_repo_s_producer_and_consumer(tmp_path):
    write(tmp_path, "application.yml", APPLICATION_YML)
    repo = configrepo.load([str(tmp_path)])
    path = str(tmp_path / "application.yml")
    assert repo.files_with_role("producer") == [path] and repo.files_with_role("consumer") == [path]
    sc = configrepo.to_scenario(repo, "head")
    assert sc.producer["batch.size"] == 262144 and sc.producer["linger.ms"] == 50
    assert sc.consumer["fetch.max.wait.ms"] == 250 and sc.consumer["fetch.max.bytes"] == 10485760


def test_the_manifest_maps_spring_files_and_picks_the_measured_one(tmp_path):
    write(tmp_path, "svc/config/base.yml", APPLICATION_YML)
    write(tmp_path, "svc/config/prod.yml", "spring:\n  kafka:\n    producer:\n      batch-size: 512KB\n")
    write(tmp_path, "kcliff.yaml", "version: 1\nfiles:\n  - {path: svc/config/*.yml, format: spring-boot}\n"
                                   "measure:\n  producer: svc/config/prod.yml\n")
    repo = configrepo.load([str(tmp_path)])
    assert [(Path(f.path).name, f.role) for f in repo.files] == [("base.yml", "spring-boot"), ("prod.yml", "spring-boot")]
    assert configrepo.to_scenario(repo, "head").producer == {"batch.size": 524288}


# --- the real CLI ------------------------------------------------------------------------------------

def test_the_example_lints_clean():
    done = run_kcliff("lint", "--verbose", str(EXAMPLE))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 error(s), 0 warning(s) in 2 file(s)" in done.stdout
    assert "a document for profile local" in done.stdout


def test_lint_annotates_spring_properties_on_their_lines(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    (repo / ".git").mkdir()
    app, prod = repo / RESOURCES / "application.yml", repo / RESOURCES / "application-prod.yml"
    app.write_text(app.read_text().replace("max.in.flight.requests.per.connection: 5",
                                           "max.in.flight.requests.per.connection: 1"))
    prod.write_text(prod.read_text().replace("batch-size: 128KB", "batch-size: 0"))
    done = run_kcliff("lint", "--format", "github", "repo", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    found = sorted(line for line in done.stdout.splitlines() if line.startswith("::"))
    assert len(found) == 2, found
    assert found[0].startswith(f"::error file={RESOURCES}/application-prod.yml,line={line_of(prod, 'batch-size: 0')},"
                               "title=kcliff batching-disabled%3A ")
    assert found[1].startswith(f"::error file={RESOURCES}/application.yml,line="
                               f"{line_of(app, 'max.in.flight.requests.per.connection: 1')},title=kcliff inflight-one%3A ")


def test_lint_of_a_property_spring_lacks_exits_2_naming_file_and_line(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    app = repo / RESOURCES / "application.yml"
    app.write_text(app.read_text().replace("      retries: 2147483647\n", "      retries: 2147483647\n"
                                                                          "      linger-ms: 10\n"))
    done = run_kcliff("lint", str(repo))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{app}:{line_of(app, 'linger-ms: 10')}: 'spring.kafka.producer.linger-ms': Spring Boot has no such" \
           in done.stderr
    assert "Traceback" not in done.stderr
