"""The suite's fault and status handling without Kafka: a stand-in cluster and admin client, and
perf runs made up by a script (the real-cluster side is test_faults.py and test_pairwise_run.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable

import pytest
from kcliff.backends.base import Cluster, Restartable
from kcliff.errors import ClusterError
from kcliff.measure import read_round
from kcliff.measure.options import Options
from kcliff.measure.progress import Progress
from kcliff.measure.suite import SuiteRunner
from kcliff.results import model
from kcliff.results.metrics import Workload
from kcliff.results.model import ResultsDoc, Run, RunStatus, Status, StopKind
from kcliff.scenario.suites import Cliff, Scenario

REFERENCE = Scenario("reference", "the reference")
CANARY = Scenario("batching-off", "a canary", producer={"batch.size": 0}, cliff=Cliff("a cliff"))
PLAIN = Scenario("linger-5", "plain", producer={"linger.ms": 5})
OTHER = Scenario("linger-20", "another", producer={"linger.ms": 20})
RESTART = Scenario("sndbuf", "needs a restart", broker={"socket.send.buffer.bytes": 65536})


class StandInCluster(Cluster):
    """Measures nothing itself: the suite's perf runs come from a script."""

    backend = "stand-in"
    admin_bootstrap = tool_bootstrap = "127.0.0.1:1"

    def __init__(self) -> None:
        self.dead: list[int] = []

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = ()) -> list[str]:
        raise AssertionError("no perf tool runs here")

    def dead_nodes(self) -> list[int]:
        return list(self.dead)

    def down(self) -> None:
        pass


class StandInRestartable(StandInCluster, Restartable):
    def __init__(self) -> None:
        super().__init__()
        self.heals = 0
        self.restarts: list[dict[str, Any]] = []
        self.paused: list[int] = []

    def restart(self, overrides: dict[str, Any]) -> None:
        self.restarts.append(dict(overrides))

    def heal(self) -> None:
        self.heals += 1
        self.dead = []

    def kill_broker(self, node_id: int) -> None:
        self.dead.append(node_id)

    def stop_broker(self, node_id: int, grace_s: float) -> None:
        self.dead.append(node_id)

    def pause_broker(self, node_id: int) -> None:
        self.paused.append(node_id)

    def resume_broker(self, node_id: int) -> None:
        self.paused.remove(node_id)


class StandInAdmin:
    """The admin calls the suite and BrokerState make, answered from memory."""

    def __init__(self) -> None:
        self.topics: list[str] = []
        self.configs: dict[str, dict[str, str]] = {}

    def broker_ids(self, timeout: float = 5.0) -> list[int]:
        return [1, 2, 3]

    def broker_config(self, node_id: int) -> dict[str, str | None]:
        return {}

    def broker_dynamic(self, node_id: int) -> dict[str, str]:
        return {}

    def alter_broker_configs(self, node_ids: list[int], changes: dict[str, str | None]) -> None:
        pass

    def create_topic(self, name: str, partitions: int, replication: int, configs: dict[str, str]) -> None:
        self.topics.append(name)
        self.configs[name] = dict(configs)

    def alter_topic_configs(self, name: str, changes: dict[str, str | None]) -> None:
        self.configs[name] = {k: v for k, v in {**self.configs[name], **changes}.items() if v is not None}

    def topic_overrides(self, name: str) -> dict[str, str]:
        return self.configs[name]

    def delete_topic(self, name: str) -> None:
        self.topics.remove(name)

    def wait_in_sync(self, timeout: float) -> None:
        pass


def finished(mb: float = 10.0) -> Run:
    return Run(records=1000, records_per_sec=mb * 1024, mb_per_sec=mb, p99_ms=5.0, elapsed_s=0.1)


def stopped(kind: StopKind, reason: str) -> Run:
    return Run(records=10, mb_per_sec=1.0, elapsed_s=0.1, complete=False, stopped_early=kind is not StopKind.BUDGET,
               stop_kind=kind, stop_reason=reason)


Script = Callable[[str, str], Run]  # (scenario id, run label as in the log name) -> the run


class Perf:
    """A perf_run stand-in: each call is recorded as (scenario id, label) and answered by `script`."""

    def __init__(self, script: Script | None = None) -> None:
        self.script = script or (lambda sc, label: finished())
        self.calls: list[tuple[str, str]] = []

    def __call__(self, cluster: Cluster, topic: str, records: int, producer: dict[str, object], deadline: float,
                 log_path: Path, *rest: Any, **kw: Any) -> Run:
        if log_path.stem.startswith("prime-"):
            return finished()
        sc, label = log_path.stem.rsplit("-", 1)
        self.calls.append((sc, label))
        return self.script(sc, label)


def runner(tmp_path: Path, perf: Perf, cluster: StandInCluster | None = None) -> SuiteRunner:
    doc = ResultsDoc(run_id="test", environment={})
    admin = StandInAdmin()  # the same after a restart or a heal, so it knows every topic
    return SuiteRunner(cluster or StandInRestartable(), admin, Options(repeats=3, prime_s=0), doc,  # type: ignore[arg-type]
                       tmp_path / "results.json", tmp_path / "perf", Progress(quiet=True), perf_run=perf,
                       connect=lambda bootstrap: admin)  # type: ignore[arg-type,return-value]


def saved(tmp_path: Path) -> ResultsDoc:
    return model.load(tmp_path / "results.json")


def test_a_fault_mid_group_heals_once_and_measures_the_group_again(tmp_path: Path):
    cluster = StandInRestartable()
    faulted = []

    def script(sc: str, label: str) -> Run:
        if sc == CANARY.id and label == "round2" and not faulted:
            faulted.append(label)
            cluster.dead = [2]
            return stopped(StopKind.FAULT, "fault: broker node(s) [2] died")
        return finished()

    suite = runner(tmp_path, Perf(script), cluster)
    doc = suite.run([REFERENCE, CANARY])
    assert cluster.heals == 1 and suite.admin.topics == []  # the faulted attempt's topic deleted after healing
    assert [e.status for e in doc.scenarios] == [Status.OK, Status.OK]
    for entry in doc.scenarios:
        assert entry.faulted_attempt is not None and entry.faulted_attempt.status is Status.FAULTED
        assert len(entry.runs) == 3 and entry.interleaved_with
    assert saved(tmp_path).status is RunStatus.COMPLETE


def test_a_second_fault_is_recorded_and_not_healed_again(tmp_path: Path):
    cluster = StandInRestartable()
    perf = Perf(lambda sc, label: stopped(StopKind.FAULT, "fault: stalled: no record acknowledged for 45s")
                if sc == PLAIN.id and label == "run1" else finished())
    doc = runner(tmp_path, perf, cluster).run([REFERENCE, PLAIN, OTHER])
    assert cluster.heals == 1
    plain = doc.entry(PLAIN.id)
    assert plain is not None and plain.status is Status.FAULTED and plain.faulted_attempt is not None
    assert doc.entry(OTHER.id).status is Status.OK  # the suite goes on


def test_a_fault_the_cluster_cannot_heal_ends_the_suite(tmp_path: Path):
    perf = Perf(lambda sc, label: stopped(StopKind.FAULT, "fault: broker node(s) [1] died")
                if sc == PLAIN.id else finished())
    with pytest.raises(ClusterError, match="could not be healed"):
        runner(tmp_path, perf, StandInCluster()).run([REFERENCE, PLAIN, OTHER])
    doc = saved(tmp_path)
    assert doc.status is RunStatus.FAILED and doc.entry(PLAIN.id).status is Status.FAULTED
    assert doc.entry(OTHER.id) is None


def test_a_full_disk_ends_the_suite_without_a_retry(tmp_path: Path):
    cluster = StandInRestartable()
    perf = Perf(lambda sc, label: stopped(StopKind.DISK_FULL, "fault: disk full: the disk holding /x has 3 MB free")
                if sc == PLAIN.id else finished())
    with pytest.raises(ClusterError, match="^the disk holding /x has 3 MB free"):
        runner(tmp_path, perf, cluster).run([REFERENCE, PLAIN, OTHER])
    assert cluster.heals == 0
    doc = saved(tmp_path)
    assert doc.status is RunStatus.FAILED and doc.entry(PLAIN.id).status is Status.FAULTED
    assert doc.entry(OTHER.id) is None


def test_the_budget_running_out_times_a_scenario_out_and_the_suite_goes_on(tmp_path: Path):
    perf = Perf(lambda sc, label: stopped(StopKind.BUDGET, "time budget exhausted")
                if sc == PLAIN.id and label == "run2" else finished())
    doc = runner(tmp_path, perf).run([REFERENCE, PLAIN, OTHER])
    plain = doc.entry(PLAIN.id)
    assert plain.status is Status.TIMED_OUT and plain.status_reason == "time budget of 600s exhausted in run 2"
    assert len(plain.runs) == 2 and doc.entry(OTHER.id).status is Status.OK


def test_two_stops_on_a_cliff_decide_a_scenario_as_cliff(tmp_path: Path):
    perf = Perf(lambda sc, label: stopped(StopKind.CLIFF, "cliff: at most 1.00 MB/s") if sc == PLAIN.id
                else finished())
    doc = runner(tmp_path, perf).run([REFERENCE, PLAIN])
    plain = doc.entry(PLAIN.id)
    assert plain.status is Status.CLIFF and plain.status_reason == "cliff: at most 1.00 MB/s"
    assert [label for sc, label in perf.calls if sc == PLAIN.id] == ["warmup", "warmup2"]
    assert len(plain.runs) == 1 and plain.summary is not None


def test_a_restart_the_cluster_cannot_make_skips_the_scenario(tmp_path: Path):
    doc = runner(tmp_path, Perf(), StandInCluster()).run([REFERENCE, RESTART])
    entry = doc.entry(RESTART.id)
    assert entry.status is Status.SKIPPED and "cannot restart brokers" in (entry.status_reason or "")
    assert saved(tmp_path).status is RunStatus.COMPLETE


def test_a_restartable_cluster_restarts_for_read_only_settings_and_back(tmp_path: Path):
    cluster = StandInRestartable()
    doc = runner(tmp_path, Perf(), cluster).run([REFERENCE, RESTART, PLAIN])
    assert cluster.restarts == [{"socket.send.buffer.bytes": 65536}]  # measured last: order() groups restarts
    assert doc.entry(RESTART.id).restart_forced and doc.entry(RESTART.id).status is Status.OK


def test_ctrl_c_marks_the_scenario_and_the_run_interrupted_and_saves(tmp_path: Path):
    def script(sc: str, label: str) -> Run:
        if sc == PLAIN.id and label == "run1":
            raise KeyboardInterrupt
        return finished()

    with pytest.raises(KeyboardInterrupt):
        runner(tmp_path, Perf(script)).run([REFERENCE, PLAIN])
    doc = saved(tmp_path)
    assert doc.status is RunStatus.INTERRUPTED
    assert doc.entry(REFERENCE.id).status is Status.OK
    assert doc.entry(PLAIN.id).status is Status.INTERRUPTED and doc.entry(PLAIN.id).status.unfinished


def test_flat_out_runs_nothing_judges_stop_once_the_topic_holds_what_the_reads_read(tmp_path: Path, monkeypatch):
    # a consumer-only check: its producer runs only fill the topic its consumers read from the start
    monkeypatch.setattr(read_round, "READ_MIN_RECORDS", 2500)  # the warm-up and two runs of 1,000 records
    reads: list[str] = []
    monkeypatch.setattr(read_round.ReadRound, "after", lambda self, site, sc, *rest: reads.append(sc.id))
    perf = Perf()
    reading = (Workload.PRODUCE, Workload.CONSUME)
    sides = [Scenario(side, side, consumer={"fetch.min.bytes": 1}, workloads=reading) for side in ("base", "head")]
    opts = Options(records=1000, repeats=3, prime_s=0)
    suite = runner(tmp_path, perf)
    for judged, produced in ((True, 5), (False, 2)):
        perf.calls.clear()
        reads.clear()
        entries = suite.measure_interleaved(sides, 5, None, dataclasses.replace(opts, flat_out_judged=judged))
        assert [label for sc, label in perf.calls if sc == "base"] == ["warmup", *(f"round{i}" for i in
                                                                           range(1, produced + 1))]
        assert reads.count("base") == reads.count("head") == 5  # every round still reads, on both sides
        assert [len(e.runs) for e in entries] == [produced, produced]  # and the flat-out figures still pair
        suite.doc.scenarios.clear()
