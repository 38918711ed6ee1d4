"""A baseline belongs to one rig profile: results measured at another are refused by `kcliff compare`
and `kcliff baseline update` with a message naming both profiles, --runner-class cannot relabel a
profile, and `kcliff run --profile` prints its verdicts against its own profile's baseline. On real
results: a check measured at aws-m5.xlarge-gp3 and one measured CPU-bound on the same VM
(tests/data/results/, see tests/results/test_rig.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import run_kcliff
from kcliff.commands import run as run_command
from kcliff.report import table
from kcliff.results import baseline, model

DATA = Path(__file__).resolve().parents[1] / "data" / "results"
AT_PROFILE = DATA / "profile-check-aws-m5.xlarge-gp3.json"   # runner class local-2c-24g@aws-m5.xlarge-gp3
CPU_BOUND_RUN = DATA / "check-cpu-bound.json"                # runner class local-2c-24g, rig cpu-bound


def refusal(results: Path, held: str, relabel: str | None = None) -> str:
    with pytest.raises(baseline.Refused) as found:
        baseline.check_compatible(model.load(results), baseline.new_baseline("4.2.0", held), relabel)
    assert found.value.code == 2
    return str(found.value)


def test_results_of_a_profile_are_refused_by_the_cpu_bound_baseline_naming_both_profiles() -> None:
    said = refusal(AT_PROFILE, "local-2c-24g")
    assert "measured at rig profile 'aws-m5.xlarge-gp3'" in said and "holds profile 'cpu-bound'" in said
    assert "a baseline belongs to one profile" in said and "--runner-class" not in said


def test_cpu_bound_results_are_refused_by_a_profiles_baseline() -> None:
    said = refusal(CPU_BOUND_RUN, "local-2c-24g@aws-m5.xlarge-gp3")
    assert "measured at rig profile 'cpu-bound'" in said and "holds profile 'aws-m5.xlarge-gp3'" in said


def test_another_host_class_at_the_same_profile_is_the_runner_class_refusal_as_before() -> None:
    said = refusal(AT_PROFILE, "compose-4c-16g@aws-m5.xlarge-gp3")
    assert "runner classes are never mixed silently" in said and "profile" not in said.split(";")[0]


def test_runner_class_may_relabel_the_host_never_the_profile() -> None:
    results = model.load(AT_PROFILE)
    other_host = baseline.new_baseline("4.2.0", "pool-4c@aws-m5.xlarge-gp3")
    assert baseline.check_compatible(results, other_host, "pool-4c@aws-m5.xlarge-gp3") == "pool-4c@aws-m5.xlarge-gp3"
    said = refusal(AT_PROFILE, "local-2c-24g", relabel="local-2c-24g")
    assert "--runner-class local-2c-24g names rig profile 'cpu-bound'" in said
    assert "measured at 'aws-m5.xlarge-gp3'" in said
    same = baseline.new_baseline("4.2.0", "local-2c-24g@aws-m5.xlarge-gp3")
    assert baseline.check_compatible(results, same, None) == "local-2c-24g@aws-m5.xlarge-gp3"


def test_compare_and_baseline_update_refuse_another_profile_in_one_sentence(tmp_path: Path) -> None:
    cpu_bound = baseline.baseline_path(tmp_path, "4.2.0", "local-2c-24g")
    baseline.save(baseline.new_baseline("4.2.0", "local-2c-24g"), cpu_bound)
    done = run_kcliff("compare", str(AT_PROFILE), "--baseline", str(cpu_bound))
    assert done.returncode == 2 and "rig profile 'aws-m5.xlarge-gp3'" in done.stderr, done.stderr
    assert "holds profile 'cpu-bound'" in done.stderr and "Traceback" not in done.stderr
    before = cpu_bound.read_text()
    done = run_kcliff("baseline", "update", str(AT_PROFILE), "--file", str(cpu_bound))
    assert done.returncode == 2 and "holds profile 'cpu-bound'" in done.stderr, done.stderr
    done = run_kcliff("baseline", "update", str(AT_PROFILE), "--dir", str(tmp_path), "--runner-class", "local-2c-24g")
    assert done.returncode == 2 and "names rig profile 'cpu-bound'" in done.stderr, done.stderr
    assert cpu_bound.read_text() == before


def test_a_directory_of_baselines_gives_a_profile_its_own_file(tmp_path: Path) -> None:
    done = run_kcliff("compare", str(AT_PROFILE), "--baseline", str(tmp_path))
    assert done.returncode == 2 and "local-2c-24g@aws-m5.xlarge-gp3.json" in done.stderr, done.stderr


def test_kcliff_run_at_a_profile_reads_that_profiles_baseline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KCLIFF_RUNNER_CLASS", "local-2c-24g")
    config = SimpleNamespace(no_baselines=False, baselines=tmp_path,
                             cluster=SimpleNamespace(kafka_version="4.2.0", backend="local"))
    path, _ = run_command.stored_baseline(config, "aws-m5.xlarge-gp3")
    assert path == tmp_path / "4.2.0" / "local-2c-24g@aws-m5.xlarge-gp3.json"
    path, _ = run_command.stored_baseline(config)
    assert path == tmp_path / "4.2.0" / "local-2c-24g.json"


def test_the_run_table_does_not_judge_a_profile_against_the_cpu_bound_baseline(tmp_path: Path) -> None:
    section = table.baseline_section(model.load(AT_PROFILE), tmp_path / "b.json",
                                     baseline.new_baseline("4.2.0", "local-2c-24g"))
    assert section.startswith(f"vs baseline: {tmp_path / 'b.json'} not used: results were measured at rig profile")
