"""Rig profiles: presets and declared shapes give each resource's limit after AWS's sizing rule, the
caps scale them to this rig's CPU-bound capacity so the same resource binds first at production's
ratio, and a bad profile in kcliff.yaml is refused on its line with every problem at once."""

import pytest
from conftest import run_kcliff
from kcliff.errors import Problems
from kcliff.scenario.profile import PRESETS, REPLICATION, BrokerShape, Profile, RigCaps, preset, read_profile


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


def test_a_profile_as_a_user_that_is_not_root_is_refused_before_the_rigs_capacity_is_measured(monkeypatch, tmp_path):
    from kcliff.backends.local import Caps
    from kcliff.backends.open import ClusterConfig
    from kcliff.errors import ClusterError
    from kcliff.measure import rig_capacity
    from kcliff.measure.progress import Progress
    monkeypatch.setattr("os.geteuid", lambda: 1001)
    monkeypatch.setattr(rig_capacity, "measure", lambda *a: pytest.fail("measured a capacity it cannot use"))
    monkeypatch.setattr(rig_capacity, "cached", lambda *a: None)
    with pytest.raises(ClusterError, match="at rig profile aws-m5.large-gp3 cap each broker's link and disk: that "
                                           "needs root"):
        rig_capacity.capped(ClusterConfig("local", None, tmp_path, "4.2.0", None, Caps()), preset("aws-m5.large-gp3"),
                            tmp_path, Progress(quiet=True))


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


def test_librdkafkas_names_for_those_trades_are_its_producers_and_traded_as_the_java_ones():
    from kcliff.kafka import librdkafka_configs as rdk
    from kcliff.results.metrics import LIBRDKAFKA_TRADES_CPU_FOR_BYTES, ChangeKind, trades_cpu_for_bytes
    cat = rdk.catalogue()
    for name in LIBRDKAFKA_TRADES_CPU_FOR_BYTES:
        prop = cat.lookup(name, cat.newest)
        assert prop is not None and prop.for_client("producer"), name
    assert trades_cpu_for_bytes(ChangeKind.PRODUCER, "compression.codec")  # as compression.type is
    assert trades_cpu_for_bytes(ChangeKind.PRODUCER, "queue.buffering.max.ms")  # as linger.ms is
    assert not trades_cpu_for_bytes(ChangeKind.CONSUMER, "compression.codec")


def test_a_run_at_a_profile_sends_what_its_tighter_cap_passes_in_a_runs_length():
    caps = preset("aws-m5.xlarge-gp3").caps(6.4)  # disk 2.33 MB/s binds before the 2.78 MB/s link
    assert caps.records_lasting(4.0) == int(caps.disk_mb_s * 1e6 * 4.0 / 1024)
    assert 8_000 < caps.records_lasting(4.0) < 30_000  # the CPU-bound rig's floor would last 13 s here
    tight = preset("aws-m5.large-gp3").caps(0.5)
    assert tight.records_lasting(4.0) == 2_000


def test_a_replication_round_trip_is_read_passed_to_the_caps_unscaled_and_recorded():
    declared, problems = read("profile:\n  preset: aws-m5.xlarge-gp3\n  replication_rtt_ms: 2\n")
    assert not problems and declared is not None and declared.replication_rtt_ms == 2
    assert declared.shape == PRESETS["aws-m5.xlarge-gp3"]  # the preset's figures, the round trip beside them
    caps = declared.caps(rig_mb_s=6.0)
    assert caps.replication_rtt_ms == 2  # a round trip is no resource: not scaled to the rig
    from kcliff.measure import rig_capacity
    env = {"runner_class": "local-2c-24g"}
    rig_capacity.record(env, caps)
    assert env["rig"]["replication_rtt_ms"] == 2
    assert all(preset(name).replication_rtt_ms == 0 for name in PRESETS)  # no published figure to give them


@pytest.mark.parametrize("value", ["1.5", "-1", "1001", "'2'", "true", ".nan"])
def test_a_bad_replication_round_trip_is_refused_on_its_line_with_what_is_valid(value):
    _, problems = read(f"profile:\n  preset: aws-m5.xlarge-gp3\n  replication_rtt_ms: {value}\n")
    assert len(problems) == 1 and problems[0][0] == 3, problems
    assert "replication_rtt_ms: expected whole milliseconds from 0 to 1000" in problems[0][1]


def test_the_command_lines_round_trip_wins_over_the_profiles_and_only_the_local_backend_takes_one(
        tmp_path, monkeypatch):
    from kcliff.backends.local import Caps
    from kcliff.backends.open import ClusterConfig
    from kcliff.errors import InputError
    from kcliff.measure import rig_capacity
    monkeypatch.setattr(rig_capacity, "cached", lambda *_: 6.0)  # no calibration run

    class Quiet:
        def note(self, text):
            pass
    declared, _ = read("profile:\n  preset: aws-m5.xlarge-gp3\n  replication_rtt_ms: 2\n")
    config = ClusterConfig("local", None, tmp_path, "4.2.0", None, Caps())
    capped, caps = rig_capacity.capped(config, declared, tmp_path, Quiet())  # type: ignore[arg-type]
    assert capped.caps.replication_rtt_ms == 2 and caps is not None and caps.replication_rtt_ms == 2
    given = ClusterConfig("local", None, tmp_path, "4.2.0", None, Caps(replication_rtt_ms=20, replication_rtt_given=True))
    capped, caps = rig_capacity.capped(given, declared, tmp_path, Quiet())  # type: ignore[arg-type]
    assert capped.caps.replication_rtt_ms == 20 and caps is not None and caps.replication_rtt_ms == 20
    off = ClusterConfig("local", None, tmp_path, "4.2.0", None, Caps(replication_rtt_ms=0, replication_rtt_given=True))
    capped, caps = rig_capacity.capped(off, declared, tmp_path, Quiet())  # type: ignore[arg-type]
    assert capped.caps.replication_rtt_ms == 0 and caps is not None and caps.replication_rtt_ms == 0  # 0 wins too
    compose = ClusterConfig("compose", None, tmp_path, "4.2.0", None, Caps())
    with pytest.raises(InputError, match="replication_rtt_ms is for the local backend") as refused:
        rig_capacity.capped(compose, declared, tmp_path, Quiet())  # type: ignore[arg-type]
    assert (refused.value.path, refused.value.line) == ("kcliff.yaml", 1)


def test_a_bad_round_trip_in_kcliff_yaml_stops_the_command_on_its_line(tmp_path):
    (tmp_path / "producer.properties").write_text("linger.ms=5\n")
    (tmp_path / "kcliff.yaml").write_text("profile:\n  preset: aws-m5.xlarge-gp3\n  replication_rtt_ms: 1.5\n")
    done = run_kcliff("lint", str(tmp_path), timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{tmp_path / 'kcliff.yaml'}:3: profile replication_rtt_ms: expected whole milliseconds" in done.stderr


def test_a_round_trip_of_0_on_the_command_line_is_given_and_none_is_not():
    import argparse

    from kcliff.commands import options
    parser = argparse.ArgumentParser()
    options.add_cluster_options(parser)
    assert options.caps(parser.parse_args([])).replication_rtt_given is False
    zero = options.caps(parser.parse_args(["--replication-rtt-ms", "0"]))
    assert zero.replication_rtt_given is True and zero.replication_rtt_ms == 0


def test_caps_given_by_hand_are_a_rig_of_their_own_named_after_them(tmp_path):
    from kcliff.backends.local import Caps
    from kcliff.backends.open import ClusterConfig
    from kcliff.measure import rig_capacity
    from kcliff.results.rig import Rig, RunnerClass
    link = RigCaps.by_hand(80.0, 0.0)
    assert link is not None and (link.profile, link.binds) == ("link-80mbit", "link")
    assert link.records_lasting(5) == int(10e6 * 5 / 1024)  # 80 Mbit/s is 10 MB/s
    both = RigCaps.by_hand(80.0, 1.0)
    assert both is not None and (both.profile, both.binds) == ("link-80mbit-disk-1mbs", "disk")
    assert RigCaps.by_hand(0.0, 0.0) is None
    config = ClusterConfig("local", None, tmp_path, "4.2.0", None, Caps(disk_mb_s=1.0))
    same, caps = rig_capacity.capped(config, None, tmp_path, None)  # type: ignore[arg-type]
    assert same is config and caps is not None and caps.profile == "disk-1mbs"
    env = {"runner_class": "local-2c-24g"}
    rig_capacity.record(env, caps)
    # kept apart from the CPU-bound rig's baselines and series, and said as what it is
    assert env["runner_class"] == str(RunnerClass("local-2c-24g", "disk-1mbs"))
    assert Rig.of(env).describe() == "disk-1mbs (each broker's disk 1 MB/s; disk meant to bind)"
