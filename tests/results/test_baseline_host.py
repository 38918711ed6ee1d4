"""The one rule for whose runs a baseline holds (results/baseline_host.py), and the exit code kcliff
compare gives on its basis, on the committed baseline (benchmarks/data/'s real runs of the VM) with
host ids stamped where a test needs them."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT
from kcliff.commands import compare
from kcliff.judge import verdict
from kcliff.measure import environment
from kcliff.results import baseline
from kcliff.results.baseline_host import Basis, own_runs, runner_pool, yardstick

STORED = ROOT / "baselines" / "4.2.0" / "local-2c-24g.json"
OFF, ON = (ROOT / "benchmarks" / "data" / f"early-stop-100k-{s}.json" for s in ("off", "on"))


def built(hosts: tuple[str | None, str | None]) -> baseline.Baseline:
    """The committed baseline rebuilt from its two real runs, each recorded as measured on its host."""
    doc = baseline.new_baseline("4.2.0", "local-2c-24g")
    for path, host in zip((OFF, ON), hosts):
        results = baseline.load_results(path)
        results.environment["host_id"] = host
        doc, _ = baseline.update(doc, results)
    return doc


def test_a_host_that_measured_every_run_compares_as_measured_with_all_of_them():
    found = yardstick({"host_id": "vm"}, built(("vm", "vm")))
    assert found.basis is Basis.OWN_HOST and found.basis.absolute and found.note() is None
    assert len(found.baseline.sources) == 2 and len(found.baseline.scenarios["reference"].runs) == 6


def test_another_host_compares_ratios_and_is_told_so_in_one_line():
    base = built(("vm", "vm"))
    found = yardstick({"host_id": "fresh-clone"}, base)
    assert found.basis is Basis.OTHER_HOST and not found.basis.absolute and found.baseline is base
    note = found.note("results/r.json")
    assert note is not None and "\n" not in note and "`kcliff baseline update results/r.json`" in note


def test_a_baseline_that_records_no_host_is_no_hosts_own():
    # the committed one, written before kcliff recorded hosts: a fresh clone must not read it as its own
    committed = baseline.load_baseline(STORED)
    assert all(s.host_id is None for s in committed.sources)
    assert yardstick({"host_id": environment.host_id()}, committed).basis is Basis.OTHER_HOST
    assert yardstick({}, committed).basis is Basis.OTHER_HOST  # nor is a results file that records none


def test_on_a_host_that_measured_some_runs_only_those_are_compared_with():
    # a host that ran `kcliff baseline update` into a file holding another host's runs
    base = built(("vm", "fresh-clone"))
    found = yardstick({"host_id": "fresh-clone"}, base)
    assert found.basis is Basis.OWN_HOST
    on = baseline.load_results(ON)
    assert [s.run_id for s in found.baseline.sources] == [on.run_id]
    assert {r.run_id for s in found.baseline.scenarios.values() for r in s.runs} == {on.run_id}
    assert own_runs(base, None) is None and own_runs(base, "third-host") is None


def test_a_runner_pool_compares_as_measured():
    assert runner_pool(built((None, None))).basis.absolute


def test_the_host_id_is_stable_hashed_and_falls_back_to_the_hostname(tmp_path: Path):
    machine = tmp_path / "machine-id"
    machine.write_text("3d1219c7c4c5404aaa1f6d2a48adfda4\n")
    first = environment.host_id((machine,))
    assert first == environment.host_id((machine,)) and len(first) == 16
    assert "3d1219c7" not in first  # the machine id itself is never recorded
    other = tmp_path / "other-id"
    other.write_text("0123456789abcdef0123456789abcdef\n")
    assert environment.host_id((other,)) != first
    assert environment.host_id((tmp_path / "absent",)) == environment.host_id((tmp_path / "also-absent",))


@pytest.mark.parametrize("outcome, basis, code", [
    (verdict.Outcome.REGRESSION, Basis.OWN_HOST, 1),
    (verdict.Outcome.CLIFF, Basis.OWN_HOST, 1),
    (verdict.Outcome.REGRESSION, Basis.OTHER_HOST, 3),
    (verdict.Outcome.CLIFF, Basis.OTHER_HOST, 3),
    (verdict.Outcome.PASS, Basis.OTHER_HOST, 0),
    (verdict.Outcome.INCONCLUSIVE, Basis.OTHER_HOST, 3),
    (verdict.Outcome.REGRESSION, Basis.RUNNER_POOL, 1),
])
def test_compare_exits_with_no_finding_against_another_hosts_baseline(outcome, basis, code):
    assert compare.exit_code(verdict.Verdict(outcome, ()), basis) == code
