"""A librdkafka producer file as the producer `kcliff check` measures (issue #44): chosen when the repo
has no Java producer file or kcliff.yaml names it, its settings kept under librdkafka's names (how it
reaches its own cluster left out), its acks laid over acks=all only where it weakens them, and a change
of one annotated on its line, not noted as unmeasured."""

import shutil
from pathlib import Path

from conftest import ROOT, run_kcliff
from kcliff import configrepo
from kcliff.configrepo import librdkafka
from kcliff.configrepo.repo_scenario import to_scenario
from kcliff.kafka.clients import Client
from kcliff.scenario.rate import Rate, RateUnit

SERVICE = ROOT / "tests" / "data" / "rdkafka-service"
CONF = Path("ingest") / "producer.conf"


def _copy(tmp_path: Path, name: str, old: str = "", new: str = "") -> Path:
    repo = tmp_path / name
    shutil.copytree(SERVICE, repo)
    if old:
        text = (repo / CONF).read_text()
        assert old in text
        (repo / CONF).write_text(text.replace(old, new))
    return repo


def test_the_service_file_is_the_measured_producer_under_librdkafkas_names():
    sc = to_scenario(configrepo.load([str(SERVICE)]), "base")
    assert sc.client is Client.LIBRDKAFKA and sc.rate == Rate(1000, RateUnit.RECORDS_PER_S)
    applied = sc.as_applied()
    assert applied["client"] == "librdkafka"
    producer = applied["producer"]
    assert producer["queue.buffering.max.ms"] == 5 and producer["compression.codec"] == "none"
    assert producer["batch.num.messages"] == 10_000 and producer["acks"] == "all"
    assert "request.required.acks" not in producer  # its acks, as the invariant's name, once
    assert not {k for k in producer if k.startswith(("ssl.", "security.", "bootstrap.", "go."))}
    assert "api.version.request" not in producer  # deprecated: a warning, and left to librdkafka's default
    assert sc.weakened_durability() == {}


def test_a_java_producer_scenario_keeps_its_hash():
    java = to_scenario(configrepo.load([str(ROOT / "examples" / "config-repo")]), "base")
    assert java.client is Client.JAVA and "client" not in java.as_applied()


def test_a_head_changing_the_linger_is_a_measured_producer_change_on_its_line(tmp_path: Path):
    base = _copy(tmp_path, "base")
    head = _copy(tmp_path, "head", "queue.buffering.max.ms = 5\n", "queue.buffering.max.ms = 100\n")
    base_repo, head_repo = configrepo.load([str(base)]), configrepo.load([str(head)])
    changes = configrepo.setting_changes(configrepo.measured_entries(base_repo), configrepo.measured_entries(head_repo),
                                         str(base), str(head), head_repo.files)
    line = next(i for i, t in enumerate((head / CONF).read_text().splitlines(), 1) if t.startswith("queue.buffering"))
    assert [(c.describe(), c.path, c.line) for c in changes] == [
        ("producer queue.buffering.max.ms 5 -> 100", str(head / CONF), line)]
    measured = frozenset(e.path for r in (base_repo, head_repo) for e in configrepo.measured_entries(r))
    assert librdkafka.unmeasured_changes(base_repo.entries, head_repo.entries, str(base), str(head), measured) == []
    base_sc, head_sc = configrepo.measured_workloads(to_scenario(base_repo, "base"), to_scenario(head_repo, "head"),
                                                     at_rate=True)
    assert [w.value for w in head_sc.workloads] == ["produce", "rate"]


def test_a_change_of_its_own_brokers_or_certificates_is_no_measured_change(tmp_path: Path):
    base = _copy(tmp_path, "base")
    head = _copy(tmp_path, "head", "ssl.ca.location = /etc/ingest/tls/ca.crt", "ssl.ca.location = /etc/tls/ca.pem")
    sides = [to_scenario(configrepo.load([str(p)]), n) for p, n in ((base, "base"), (head, "head"))]
    assert sides[0].as_applied() == sides[1].as_applied()


def test_acks_1_weakens_durability_as_a_java_producers_would(tmp_path: Path):
    head = _copy(tmp_path, "head", "request.required.acks = all", "request.required.acks = 1")
    sc = to_scenario(configrepo.load([str(head)]), "head")
    assert sc.weakened_durability() == {"producer": {"acks": "1"}} and sc.as_applied()["producer"]["acks"] == "1"


def test_a_java_producer_beside_it_is_measured_unless_kcliff_yaml_names_the_librdkafka_file(tmp_path: Path):
    repo = _copy(tmp_path, "repo")
    (repo / "producer.properties").write_text("linger.ms=5\nacks=all\n")
    (repo / "kcliff.yaml").write_text("version: 1\n")
    assert to_scenario(configrepo.load([str(repo)]), "r").client is Client.JAVA
    (repo / "kcliff.yaml").write_text(f"version: 1\nmeasure: {{producer: {CONF}}}\n")
    assert to_scenario(configrepo.load([str(repo)]), "r").client is Client.LIBRDKAFKA


def test_check_on_compose_refuses_a_librdkafka_producer_before_any_cluster(tmp_path: Path):
    head = _copy(tmp_path, "head", "queue.buffering.max.ms = 5\n", "queue.buffering.max.ms = 100\n")
    done = run_kcliff("check", "--base", str(SERVICE), "--head", str(head), "--backend", "compose",
                      "--workdir", str(tmp_path / "w"), timeout=120)
    assert done.returncode == 2 and "compose backend cannot measure a librdkafka client" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "w" / "runs").exists()


def test_check_refuses_a_fault_it_cannot_make_with_a_librdkafka_producer(tmp_path: Path):
    # a broker change that decides what a broker's death costs is measured through the fault, whose runs are
    # the Java load generator's: with a librdkafka producer that is refused, before any cluster
    base, head = _copy(tmp_path, "base"), _copy(tmp_path, "head")
    for side, value in ((base, 30000), (head, 10000)):
        (side / "server.properties").write_text(f"replica.lag.time.max.ms={value}\n")
    done = run_kcliff("check", "--base", str(base), "--head", str(head), "--workdir", str(tmp_path / "w"), timeout=120)
    assert done.returncode == 2 and "through a broker fault" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "w" / "runs").exists()
