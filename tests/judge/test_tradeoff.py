"""A check measured on a CPU-bound and a byte-bound rig: opposite readings of a setting that trades
CPU against bytes pass with the disagreement said; a cliff or a regression on both fails."""

import pytest
from kcliff.judge.tradeoff import ASK, RigVerdict, combine, direction, disagreement
from kcliff.judge.verdict import Decision, Outcome, ScenarioVerdict, Verdict


def rig(name: str, binds: str, outcome: Outcome, throughput: Outcome) -> RigVerdict:
    head = ScenarioVerdict("head", outcome, (Decision("throughput", throughput, "", 6, 6, ratio=1.0),))
    return RigVerdict(name, binds, Verdict(outcome, (f"{outcome.value} on {name}",), (head,)))


CPU_REGRESSES = rig("cpu-bound", "cpu", Outcome.REGRESSION, Outcome.REGRESSION)
BYTES_IMPROVE = rig("aws-m5.xlarge-gp3", "disk", Outcome.PASS, Outcome.IMPROVEMENT)


def test_a_rig_that_passes_with_an_improved_metric_reads_as_an_improvement():
    assert direction(BYTES_IMPROVE.verdict) is Outcome.IMPROVEMENT
    assert direction(rig("x", "cpu", Outcome.PASS, Outcome.PASS).verdict) is Outcome.PASS


def test_opposite_readings_pass_and_say_which_way_each_cluster_reads_it():
    combined = combine([CPU_REGRESSES, BYTES_IMPROVE])
    assert combined.verdict is Outcome.PASS and combined.exit_code == 0
    said = disagreement([CPU_REGRESSES, BYTES_IMPROVE])
    assert said == f"regression where CPU binds, improvement where the disk binds: {ASK}"
    assert combined.reasons[0] == f"trade-off: {said}"


@pytest.mark.parametrize("other, expected", [
    (rig("aws", "network", Outcome.REGRESSION, Outcome.REGRESSION), Outcome.REGRESSION),  # both: a real cost
    (rig("aws", "network", Outcome.CLIFF, Outcome.REGRESSION), Outcome.CLIFF),  # a cliff is no trade
    (rig("aws", "network", Outcome.INCONCLUSIVE, Outcome.INCONCLUSIVE), Outcome.REGRESSION),
])
def test_agreeing_or_cliff_readings_keep_the_worst(other, expected):
    assert disagreement([CPU_REGRESSES, other]) is None
    assert combine([CPU_REGRESSES, other]).verdict is expected


def test_an_improvement_where_bytes_bind_and_no_answer_where_cpu_binds_is_a_trade_said():
    # measured: zstd on JSON events read 4.00x where the disk binds; the busy CPU-bound rig could not tell
    unsure = rig("cpu-bound", "cpu", Outcome.INCONCLUSIVE, Outcome.PASS)
    assert combine([unsure, BYTES_IMPROVE]).verdict is Outcome.PASS
    assert disagreement([unsure, BYTES_IMPROVE]).startswith("inconclusive where CPU binds, improvement where the disk")


def test_one_rig_is_its_own_verdict():
    assert combine([BYTES_IMPROVE]) is BYTES_IMPROVE.verdict


def test_a_check_measures_a_trade_on_both_rigs_unless_a_profile_says_where_it_binds(monkeypatch):
    import argparse
    import os
    from kcliff.commands import check
    from kcliff.configrepo.diff import SettingChange
    from kcliff.scenario.profile import DEFAULT_BYTE_BOUND, preset
    parser = argparse.ArgumentParser()
    check.options.add_cluster_options(parser)
    parser.add_argument("--backend")
    parser.add_argument("--bootstrap-servers")
    args = parser.parse_args([])
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    zstd = SettingChange("producer", "compression.type", "none", "zstd", "p.properties", 3)
    acks = SettingChange("producer", "max.poll.records", 500, 5, "c.properties", 3)
    notes: list[str] = []
    assert check.rig_profiles(args, None, [zstd], notes) == [None, preset(DEFAULT_BYTE_BOUND)]
    assert "trades CPU against bytes" in notes[0]
    declared = preset("aws-m5.large-gp3")
    assert check.rig_profiles(args, declared, [zstd], []) == [declared]
    assert check.rig_profiles(args, None, [acks], []) == [None]
    args.profile = "cpu-bound"
    assert check.rig_profiles(args, None, [zstd], []) == [None]
    args.profile = None
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    said: list[str] = []
    assert check.rig_profiles(args, None, [zstd], said) == [None] and "needs the local backend as root" in said[0]
