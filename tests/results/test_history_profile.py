"""The history keeps each rig profile's runs as series of their own: a runner class carries its profile,
so a run at aws-m5.xlarge-gp3 and a CPU-bound run of the same host never share a series, and `kcliff
history list|regressions --profile` select one profile's runs. On real results (tests/data/results/, see
tests/results/test_rig.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_kcliff
from kcliff.judge import regressions
from kcliff.results import history
from kcliff.results.rig import CPU_BOUND

DATA = Path(__file__).resolve().parents[1] / "data" / "results"
AT_PROFILE = DATA / "profile-check-aws-m5.xlarge-gp3.json"   # 20261129T102831Z-4b6e, local-2c-24g@aws-m5.xlarge-gp3
CPU_BOUND_RUN = DATA / "check-cpu-bound.json"                # 20261129T101015Z-74ef, local-2c-24g
PROFILE_CLASS = "local-2c-24g@aws-m5.xlarge-gp3"


@pytest.fixture
def two_profiles(tmp_path: Path) -> Path:
    for results in (CPU_BOUND_RUN, AT_PROFILE):
        history.add(results, tmp_path / "hist")
    return tmp_path / "hist"


def test_each_profile_is_filed_and_keyed_on_its_own(two_profiles: Path) -> None:
    runs = history.load(two_profiles)
    assert [(r.key.runner_class, r.key.profile) for r in runs] == [("local-2c-24g", CPU_BOUND),
                                                                    (PROFILE_CLASS, "aws-m5.xlarge-gp3")]
    assert len({r.path.parent for r in runs}) == 2
    assert [r.key.run_id for r in history.at_profile(runs, "aws-m5.xlarge-gp3")] == ["20261129T102831Z-4b6e"]
    assert [r.key.run_id for r in history.at_profile(runs, CPU_BOUND)] == ["20261129T101015Z-74ef"]
    assert history.at_profile(runs, "onprem-10g-nvme") == []


def test_a_profiles_series_hold_only_its_own_runs(two_profiles: Path) -> None:
    runs = history.load(two_profiles)
    for runner_class, run_id in ((PROFILE_CLASS, "20261129T102831Z-4b6e"), ("local-2c-24g", "20261129T101015Z-74ef")):
        series = regressions.build_series(runs, runner_class)
        assert {s.scenario for s in series} >= {"reference", "batching-off", "flush-1"}
        assert {p.run_id for s in series for p in s.points} == {run_id}
    # the newest run is the profile's: by default its series alone
    assert {p.run_id for s in regressions.build_series(runs) for p in s.points} == {"20261129T102831Z-4b6e"}


def test_history_list_and_regressions_select_a_profile(two_profiles: Path) -> None:
    listed = run_kcliff("history", "list", "--dir", str(two_profiles), "--profile", "aws-m5.xlarge-gp3")
    assert listed.returncode == 0, listed.stderr
    rows = listed.stdout.splitlines()
    assert "20261129T102831Z-4b6e" in listed.stdout and "20261129T101015Z-74ef" not in listed.stdout
    assert rows[-1] == f"1 runs in {two_profiles} at profile aws-m5.xlarge-gp3"
    assert rows[0].index("status") == rows[1].index("complete")  # the whole class fits its column
    every = run_kcliff("history", "list", "--dir", str(two_profiles))
    assert every.returncode == 0 and "20261129T101015Z-74ef" in every.stdout and PROFILE_CLASS in every.stdout
    cpu = run_kcliff("history", "regressions", "--dir", str(two_profiles), "--profile", CPU_BOUND)
    assert cpu.returncode == 0 and "1 runs (local-2c-24g); newest run 20261129T101015Z-74ef" in cpu.stdout, cpu.stdout
    none = run_kcliff("history", "regressions", "--dir", str(two_profiles), "--profile", "onprem-10g-nvme")
    assert none.returncode == 0 and "for profile onprem-10g-nvme" in none.stdout, none.stdout
