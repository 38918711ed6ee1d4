"""The rig a run was measured on (results/rig.py), which resource bound a scenario's runs
(results/bottleneck.py `prevailing`, `Entry.bound`) and the run table's lines about both, on real
results files:

- profile-check-aws-m5.xlarge-gp3.json: a `kcliff check` measured at aws-m5.xlarge-gp3 on the 2-core
  development VM (kcliff 8fcd068), its runner class `local-2c-24g@aws-m5.xlarge-gp3`;
- profile-run-interrupted-aws-m5.xlarge-gp3.json: `kcliff run --suite canaries --profile
  aws-m5.xlarge-gp3` (kcliff b4cf8e0), interrupted, written before the runner class carried the
  profile; its runs are bound by the link, the disk and by nothing (wait);
- benchmarks/data/early-stop-100k-on.json: a run from before kcliff recorded a rig or a bound.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from kcliff.errors import InputError
from kcliff.measure import rig_capacity
from kcliff.report import table
from kcliff.results import model
from kcliff.results.bottleneck import Bound, Resource, prevailing
from kcliff.results.rig import CPU_BOUND, Rig, RunnerClass, profile_of
from kcliff.scenario import profile as profiles

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "results"
AT_PROFILE = DATA / "profile-check-aws-m5.xlarge-gp3.json"
INTERRUPTED = DATA / "profile-run-interrupted-aws-m5.xlarge-gp3.json"
BEFORE_RIGS = ROOT / "benchmarks" / "data" / "early-stop-100k-on.json"


@pytest.mark.parametrize("text, host, profile", [
    ("local-2c-24g@aws-m5.xlarge-gp3", "local-2c-24g", "aws-m5.xlarge-gp3"),
    ("local-2c-24g", "local-2c-24g", CPU_BOUND),
    ("compose-4c-16g@onprem-10g-nvme", "compose-4c-16g", "onprem-10g-nvme"),
    ("pool@", "pool", CPU_BOUND),
])
def test_a_runner_class_carries_its_profile_and_reads_back_as_written(text: str, host: str, profile: str) -> None:
    found = RunnerClass.parse(text)
    assert (found.host, found.profile) == (host, profile) and profile_of(text) == profile
    assert str(found) == text.rstrip("@")


def test_the_cpu_bound_rig_keeps_the_runner_class_it_always_had() -> None:
    assert str(RunnerClass("local-2c-24g")) == str(RunnerClass("local-2c-24g", CPU_BOUND)) == "local-2c-24g"


def test_recording_a_profile_appends_it_to_the_runner_class_and_records_the_caps() -> None:
    caps = profiles.preset("aws-m5.xlarge-gp3").caps(6.4)  # this rig's capacity in the recorded run
    env = {"runner_class": "local-2c-24g"}
    rig_capacity.record(env, caps)
    assert env["runner_class"] == "local-2c-24g@aws-m5.xlarge-gp3"
    assert Rig.of(env) == Rig.of(model.load(AT_PROFILE).environment)  # what a real run recorded
    uncapped = {"runner_class": "local-2c-24g"}
    rig_capacity.record(uncapped, None)
    assert uncapped == {"runner_class": "local-2c-24g", "rig": {"profile": CPU_BOUND}}


def test_the_rig_of_a_real_profile_run_and_of_a_run_from_before_rigs() -> None:
    rig = Rig.of(model.load(AT_PROFILE).environment)
    assert (rig.profile, rig.link_mbit, rig.disk_mb_s, rig.binds) == ("aws-m5.xlarge-gp3", 22.22, 2.33, "disk")
    assert rig.describe() == ("aws-m5.xlarge-gp3 (each broker's link 22.22 Mbit/s, disk 2.33 MB/s; disk meant "
                              "to bind)")
    old = Rig.of(model.load(BEFORE_RIGS).environment)
    assert old.profile == CPU_BOUND and old.describe() == "cpu-bound (no caps: CPU binds)"


def test_a_rig_kcliff_did_not_write_is_bad_input_naming_the_file() -> None:
    env = copy.deepcopy(model.load(AT_PROFILE).environment)
    env["rig"]["link_mbit"] = "fast"
    with pytest.raises(InputError) as found:
        Rig.of(env, str(AT_PROFILE))
    assert "environment.rig: link_mbit" in found.value.message and found.value.path == str(AT_PROFILE)


def test_what_bound_a_scenario_is_what_bound_most_of_its_finished_runs() -> None:
    doc = model.load(INTERRUPTED)
    reference, fetch, linger, batching = (doc.entry(i) for i in ("reference", "consumer-fetch-1", "linger-500",
                                                                  "batching-off"))
    assert reference.bound().describe() == "link 2.4/2.8 MB/s"
    assert linger.bound().describe() == "disk 2.0/2.3 MB/s"
    both = fetch.bound()  # two runs bound by the link: each figure their median
    assert both.resource is Resource.LINK and both.link_mb_s == 2.41 and both.cpu_busy == pytest.approx(0.301)
    assert batching.runs and not batching.runs[0].complete and batching.bound() is None  # stopped on its cliff
    assert model.load(BEFORE_RIGS).reference().bound() is None


def test_the_most_common_resource_wins_and_a_tie_goes_to_the_earliest_run() -> None:
    doc = model.load(INTERRUPTED)
    link = doc.entry("reference").runs[0].bound
    disk = doc.entry("linger-500").runs[0].bound
    wait = doc.entry("flush-1").runs[0].bound
    assert all(isinstance(b, Bound) for b in (link, disk, wait))
    assert prevailing([link, disk, disk, wait]).resource is Resource.DISK
    assert prevailing([wait, link]).resource is Resource.WAIT
    assert prevailing([link, wait]).resource is Resource.LINK
    assert prevailing([]) is None


def test_the_run_table_says_the_rig_and_what_bound_each_scenario() -> None:
    lines = table.bound_lines(model.load(AT_PROFILE))
    assert lines[0] == "rig: aws-m5.xlarge-gp3 (each broker's link 22.22 Mbit/s, disk 2.33 MB/s; disk meant to bind)"
    assert "  batching-off: bound by cpu: cpu (cpu 96%)" in lines
    raw = json.loads(BEFORE_RIGS.read_text())
    assert table.bound_lines(model.ResultsDoc.model_validate(raw)) == ["rig: cpu-bound (no caps: CPU binds)"]
