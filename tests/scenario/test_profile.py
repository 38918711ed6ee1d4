"""Rig profiles: presets and declared shapes give each resource's limit after AWS's sizing rule, the
caps scale them to this rig's CPU-bound capacity so the same resource binds first at production's
ratio, and a bad profile in kcliff.yaml is refused on its line with every problem at once."""

import pytest
from conftest import run_kcliff
from kcliff.errors import Problems
from kcliff.scenario.profile import PRESETS, REPLICATION, Profile, BrokerShape, preset, read_profile


def test_every_preset_names_its_source_and_binds_on_bytes_before_cpu():
    for name in PRESETS:
        profile = preset(name)
        assert profile.shape.source and profile.binding() in ("network", "disk"), name


def test_limits_follow_the_sizing_rule_per_broker():
    # 10 Gbit/s = 1250 MB/s: in r copies, out r - 1 + 2 groups; disk r copies
    limits = Profile("x", BrokerShape(10, 600, 8), consumer_groups=2).limits()
    assert limits["network"] == pytest.approx(1250 / (REPLICATION - 1 + 2))
    assert limits["disk"] == pytest.approx(600 / REPLICATION)


def test_caps_keep_productions_ratio_to_the_rigs_cpu():
    profile = Profile("x", BrokerShape(1.25, 131, 4), peak_in_mb_s=30, peak_cpu=0.5)  # CPU limit 60 MB/s
    caps = profile.caps(rig_mb_s=6.0)  # 2 MB/s per broker on this rig, a thirtieth of production's CPU limit
    limits = profile.limits()
    assert caps.disk_mb_s == pytest.approx(limits["disk"] / 30 * REPLICATION, rel=0.01)
    assert caps.link_mbit == pytest.approx(limits["network"] / 30 * REPLICATION * 8, rel=0.01)
    assert caps.binds == "disk" and caps.rig_cpu_mb_s == 6.0
    # what the rig's brokers can take is below its CPU's, in production's order
    assert caps.disk_mb_s / REPLICATION < caps.link_mbit / 8 / REPLICATION < 6.0 / REPLICATION


def test_peak_metrics_replace_the_per_core_assumption():
    assert Profile("x", BrokerShape(10, 1000, 4), peak_in_mb_s=20, peak_cpu=0.8).limits()["cpu"] == 25
    assert Profile("x", BrokerShape(10, 1000, 4)).binding() in ("cpu", "disk", "network")


def read(text: str):
    from ruamel.yaml import YAML
    data = YAML().load(text)
    found = Problems()
    return read_profile(data["profile"], "kcliff.yaml", 1, found), [(p.line, p.message) for p in found.found]


def test_a_preset_a_shape_and_a_preset_with_peak_metrics_are_read():
    assert read("profile: aws-m5.large-gp3\n")[0] == preset("aws-m5.large-gp3", "kcliff.yaml", 1)
    shape, problems = read("profile:\n  nic_gbit: 25\n  disk_mb_s: 1000\n  cores: 16\n  consumer_groups: 3\n")
    assert not problems and shape is not None and shape.shape.nic_gbit == 25 and shape.consumer_groups == 3
    peaked, _ = read("profile:\n  preset: aws-m5.xlarge-gp3\n  peak:\n    bytes_in_mb_s: 12\n    cpu: 0.4\n")
    assert peaked is not None and peaked.limits()["cpu"] == pytest.approx(30)


def test_every_bad_entry_is_refused_on_its_line():
    _, problems = read("profile:\n  preset: aws-m9\n  nic_gbit: -1\n  cpus: 4\n  peak:\n    cpu: 1.5\n")
    lines = sorted(line for line, _ in problems)
    assert lines == [2, 3, 4, 6], problems
    assert any("aws-m5.xlarge-gp3" in m for _, m in problems)  # what would be valid


def test_an_incomplete_shape_names_what_is_missing():
    _, problems = read("profile:\n  nic_gbit: 10\n")
    assert problems and "disk_mb_s, cores" in problems[0][1]


def test_profile_is_refused_beside_explicit_caps_and_on_a_cluster_kcliff_did_not_start(tmp_path):
    done = run_kcliff("run", "--profile", "aws-m5.large-gp3", "--link-mbit", "10", "--workdir", str(tmp_path))
    assert done.returncode == 2 and "not both" in done.stderr and "Traceback" not in done.stderr
    done = run_kcliff("run", "--profile", "aws-m5.large-gp3", "--bootstrap-servers", "127.0.0.1:9",
                      "--workdir", str(tmp_path))
    assert done.returncode == 2 and "not external" in done.stderr and "Traceback" not in done.stderr


def test_a_profile_keys_its_own_baselines_history_and_series():
    from kcliff.measure import rig_capacity
    env = {"runner_class": "local-2c-24g"}
    rig_capacity.record(env, preset("aws-m5.large-gp3").caps(6.0))
    assert env["runner_class"] == "local-2c-24g@aws-m5.large-gp3" and env["rig"]["binds"] == "disk"
    plain = {"runner_class": "local-2c-24g"}
    rig_capacity.record(plain, None)
    assert plain == {"runner_class": "local-2c-24g", "rig": {"profile": "cpu-bound"}}


def test_the_settings_that_trade_cpu_for_bytes_are_known_kafka_keys():
    from kcliff.kafka import configs
    from kcliff.results.metrics import TRADES_CPU_FOR_BYTES, ChangeKind
    catalogue = configs.catalogue()
    newest = catalogue.newest
    scopes = {ChangeKind.PRODUCER: "producer", ChangeKind.CONSUMER: "consumer", ChangeKind.BROKER: "broker",
              ChangeKind.TOPIC: "topic"}
    for kind, names in TRADES_CPU_FOR_BYTES.items():
        for name in names:
            assert catalogue.lookup(scopes[kind], name, newest) is not None, (kind, name)


def test_a_run_at_a_profile_sends_what_its_tighter_cap_passes_in_a_runs_length():
    caps = preset("aws-m5.xlarge-gp3").caps(6.4)  # disk 2.33 MB/s binds before the 2.78 MB/s link
    assert caps.records_lasting(4.0) == int(caps.disk_mb_s * 1e6 * 4.0 / 1024)
    assert 8_000 < caps.records_lasting(4.0) < 30_000  # the CPU-bound rig's floor would last 13 s here
    tight = preset("aws-m5.large-gp3").caps(0.5)
    assert tight.records_lasting(4.0) == 2_000
