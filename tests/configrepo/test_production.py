"""kcliff.yaml's `producers:` and `rates:`: how each producer runs in production (its rate, its
instances, its sample records), read with the line of every bad entry, on a copy of the example config
repo (the convention finds its files; kcliff.yaml only says how the producer runs)."""

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff import configrepo
from kcliff.errors import InputError
from kcliff.results.metrics import ChangeKind
from kcliff.scenario.latency_budget import LatencyBudget
from kcliff.scenario.payload import Payload
from kcliff.scenario.rate import Rate, RateUnit, parse_rate

EXAMPLE = ROOT / "examples" / "config-repo"
PRODUCER = "producers/app-producer.properties"


@pytest.mark.parametrize("text, rate", [
    ("2000 records/s", Rate(2000, RateUnit.RECORDS_PER_S)),
    ("1.5 MB/s", Rate(1.5, RateUnit.MB_PER_S)),
    (" .5MB/s ", Rate(0.5, RateUnit.MB_PER_S)),
])
def test_rates_are_read_in_records_or_megabytes_per_second(text, rate):
    assert parse_rate(text) == rate


@pytest.mark.parametrize("text", ["2000", 2000, "fast", "2000 records/min", "-5 MB/s", "0 records/s", "1e3 records/s",
                                  None])
def test_a_rate_without_its_unit_or_above_zero_is_refused_with_the_valid_forms(text):
    with pytest.raises(ValueError, match=r"e\.g\. '2000 records/s' or '1\.5 MB/s'"):
        parse_rate(text)


def test_megabytes_per_second_count_as_kafkas_tools_count_them():
    assert Rate(1, RateUnit.MB_PER_S).records_per_s(1024) == 1024
    assert Rate(300, RateUnit.RECORDS_PER_S).records_per_s(1024) == 300


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "repo")
    return tmp_path / "repo"


def test_a_manifest_of_rates_only_keeps_the_files_the_convention_finds(repo):
    (repo / "kcliff.yaml").write_text(
        "# kcliff: how fast our services produce, so latency is judged at the rate they run\n"
        "version: 1\n"
        "rates:\n"
        f"  {PRODUCER}: 1500 records/s   # orders-service, peak hour\n")
    read = configrepo.load([str(repo)])
    assert sorted(f.role for f in read.files) == ["broker", "consumer", "producer", "topics"]
    scenario = configrepo.to_scenario(read, "head")
    assert scenario.rate == Rate(1500, RateUnit.RECORDS_PER_S)


def test_a_producer_without_a_rate_is_measured_without_one(repo):
    assert configrepo.to_scenario(configrepo.load([str(repo)]), "head").rate is None


def test_every_bad_rate_is_reported_on_its_line_with_what_would_do(repo):
    (repo / "kcliff.yaml").write_text(
        "version: 1\n"
        "rates:\n"
        f"  {PRODUCER}: 1500 msgs/s\n"
        "  producers/payments.properties: 2 MB/s\n"
        "  ../elsewhere/producer.properties: 1 MB/s\n")
    with pytest.raises(InputError) as err:
        configrepo.load([str(repo)])
    found = [(p.path, p.line, p.message) for p in err.value.problems]
    manifest = str(repo / "kcliff.yaml")
    assert [(path, line) for path, line, _ in found] == [(manifest, 3), (manifest, 4), (manifest, 5)], found
    assert "'1500 msgs/s': expected a positive number with a unit" in found[0][2]
    assert f"is not a producer file of this repo: expected one of {repo / PRODUCER}" in found[1][2]
    assert "inside the repo" in found[2][2]


def test_the_cli_refuses_a_bad_rate_naming_file_and_line(repo):
    (repo / "kcliff.yaml").write_text(f"version: 1\nrates:\n  {PRODUCER}: fast\n")
    done = run_kcliff("lint", str(repo), timeout=120)
    assert done.returncode == 2, done.stderr
    assert f"{repo / 'kcliff.yaml'}:3:" in done.stderr and "2000 records/s" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_producers_block_gives_rate_instances_and_samples_and_a_rate_alone_may_come_from_rates(repo):
    (repo / "samples").mkdir()
    (repo / "samples" / "orders.jsonl").write_text('{"key": "o-1", "value": {"id": 1}}\n')
    (repo / "kcliff.yaml").write_text(
        "# how our services produce in production: latency is judged at their rate, with their instances\n"
        "version: 1\n"
        "producers:\n"
        f"  {PRODUCER}:\n"
        "    rate: 4 MB/s          # all instances together\n"
        "    instances: 4          # one per pod\n"
        "    samples: samples/orders.jsonl\n")
    scenario = configrepo.to_scenario(configrepo.load([str(repo)]), "head")
    assert scenario.rate == Rate(4, RateUnit.MB_PER_S) and scenario.producers == 4
    assert scenario.production is not None and scenario.production.samples == str(repo / "samples" / "orders.jsonl")
    assert scenario.production.instances_line == 6
    assert scenario.as_applied()["producers"] == 4


def test_every_bad_producers_entry_is_reported_on_its_line(repo):
    (repo / "kcliff.yaml").write_text(
        "version: 1\n"
        "producers:\n"
        f"  {PRODUCER}:\n"
        "    rate: 4 MB/s\n"
        "    instances: 0\n"
        "    samples: samples/missing.jsonl\n"
        "    partitioner: sticky\n"
        "rates:\n"
        f"  {PRODUCER}: 2 MB/s\n")
    with pytest.raises(InputError) as err:
        configrepo.load([str(repo)])
    found = sorted((p.line, p.message) for p in err.value.problems)
    assert [line for line, _ in found] == [5, 6, 7, 9], found
    assert "instances must be a whole number of producer processes from 1 to 16, got 0" in found[0][1]
    assert "samples/missing.jsonl is not a file" in found[1][1]
    assert "unknown key 'partitioner': expected one of rate, instances, samples" in found[2][1]
    assert "has its rate under producers: already" in found[3][1]


def test_a_change_of_instances_is_a_producer_change_annotated_on_its_manifest_line(repo, tmp_path):
    base = configrepo.to_scenario(configrepo.load([str(repo)]), "base")
    (repo / "kcliff.yaml").write_text(f"version: 1\nproducers:\n  {PRODUCER}:\n    instances: 4\n")
    head = configrepo.to_scenario(configrepo.load([str(repo)]), "head")
    assert configrepo.changed_kinds(base, head) == {ChangeKind.PRODUCER}
    [change] = configrepo.production_changes(base, head)
    assert (change.path, change.line, change.describe()) == (str(repo / "kcliff.yaml"), 4, "producer instances 1 -> 4")
    assert configrepo.production_changes(head, head) == []


def test_a_repo_sends_json_events_unless_its_manifest_gives_samples_and_a_new_sample_is_a_producer_change(repo):
    base = configrepo.to_scenario(configrepo.load([str(repo)]), "base")
    assert base.payload == Payload.json_events() and base.as_applied()["payload"]["kind"] == "json-events"
    (repo / "samples").mkdir()
    (repo / "samples" / "orders.jsonl").write_text(
        '{"key": "o-1", "value": {"order": 1, "items": [{"sku": "A-1", "qty": 2}]}}\n'
        '{"key": "o-2", "value": {"order": 2, "items": []}}\n')
    (repo / "kcliff.yaml").write_text(f"version: 1\nproducers:\n  {PRODUCER}:\n    samples: samples/orders.jsonl\n")
    head = configrepo.to_scenario(configrepo.load([str(repo)]), "head")
    assert head.payload == Payload.samples(str(repo / "samples" / "orders.jsonl"))
    assert configrepo.changed_kinds(base, head) == {ChangeKind.PRODUCER}
    [change] = configrepo.production_changes(base, head)
    assert (change.name, change.line) == ("payload", 4)


def test_a_bad_line_of_a_samples_file_is_named_with_the_manifest_problems(repo):
    (repo / "samples").mkdir()
    (repo / "samples" / "orders.jsonl").write_text('{"key": "o-1", "value": {"order": 1}}\n{"key": "o-2", "value": \n')
    (repo / "kcliff.yaml").write_text(
        f"version: 1\nproducers:\n  {PRODUCER}:\n    samples: samples/orders.jsonl\n    instances: -1\n")
    with pytest.raises(InputError) as err:
        configrepo.load([str(repo)])
    where = sorted((p.path, p.line) for p in err.value.problems)
    assert (str(repo / "samples" / "orders.jsonl"), 2) in where and (str(repo / "kcliff.yaml"), 5) in where, where


def test_a_producers_latency_budget_is_read_and_every_bad_one_named_on_its_line(repo):
    (repo / "kcliff.yaml").write_text(
        "version: 1\n"
        "producers:\n"
        f"  {PRODUCER}:\n"
        "    rate: 2000 records/s\n"
        "    latency: {p99: 50 ms}   # the orders service's objective at its rate\n")
    scenario = configrepo.to_scenario(configrepo.load([str(repo)]), "head")
    assert scenario.latency_budget == LatencyBudget(99, 50.0) and str(scenario.latency_budget) == "p99 50 ms"
    (repo / "kcliff.yaml").write_text(
        "version: 1\n"
        "producers:\n"
        f"  {PRODUCER}:\n"
        "    rate: 2000 records/s\n"
        "    latency: {p95: 50 ms}\n"
        "  consumers/app-consumer.properties:\n"
        "    latency: 50 ms\n")
    with pytest.raises(InputError) as err:
        configrepo.load([str(repo)])
    found = sorted((p.line, p.message) for p in err.value.problems)
    assert [line for line, _ in found] == [5, 6, 7], found
    assert "unknown percentile 'p95': expected one of p50, p99" in found[0][1]
    assert "is not a producer file of this repo" in found[1][1]  # a budget is a producer's, at its rate
    assert "expected a mapping of p50 or p99 to a time, e.g. '{p99: 50 ms}'" in found[2][1]
    assert all(p.path.endswith("kcliff.yaml") for p in err.value.problems)
