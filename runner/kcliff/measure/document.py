"""Building the results document while a suite measures: the document itself, an entry per scenario,
its timings once done, and the status a group's measurement ends with."""

from __future__ import annotations

import time
import uuid

from kcliff.backends.base import Cluster
from kcliff.measure import environment
from kcliff.measure.options import Options
from kcliff.results.documents import RESULTS
from kcliff.results.model import CliffSpec, Entry, ResultsDoc, Status, StopKind, ToolRun
from kcliff.scenario.settings import RECORD_SIZE
from kcliff.scenario.suites import Scenario


def new_document(cluster: Cluster, opts: Options, suites: list[str], kafka_version: str) -> ResultsDoc:
    run_id = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + uuid.uuid4().hex[:4]
    return ResultsDoc(
        schema=RESULTS.name, run_id=run_id, environment=environment.collect(cluster, kafka_version),
        parameters={"records": opts.records, "warmup_records": opts.warmup(), "repeats": opts.repeats,
                    "record_size": RECORD_SIZE, "budget_s": opts.budget_s, "suites": suites,
                    "early_stop": opts.early_stop, "cliff_threshold": opts.cliff_threshold,
                    "prime_s": opts.prime_s, "run_s": opts.run_s, **({"rate": str(opts.rate)} if opts.rate else {})})


def new_entry(sc: Scenario, bytes_capped: bool = False) -> Entry:
    """`bytes_capped`: the rig's links or disks are capped, so a canary is held to its bound for that."""
    cliff = sc.cliff.on_rig(bytes_capped) if sc.cliff else None
    return Entry(id=sc.id, description=sc.description, source=sc.source, settings_hash=sc.settings_hash(),
                 applied=sc.as_applied(), cliff=CliffSpec(**vars(cliff)) if cliff else None,
                 workloads=list(sc.workloads) if sc.beyond_producer() else None, started=environment.now())


def finish(entry: Entry, began: float) -> None:
    """Timings (wall, inside measured runs, harness overhead) and the summary."""
    measured = sum(r.elapsed_s for r in entry.runs)
    warm = sum(r.elapsed_s for r in entry.attempts()) - measured
    entry.wall_s = round(time.monotonic() - began, 2)
    entry.measured_s = round(measured, 2)
    entry.overhead_s = round(entry.wall_s - measured - warm, 2)
    entry.ended = environment.now()
    entry.resummarise()


def skipped(sc: Scenario, reason: str) -> Entry:
    entry = new_entry(sc)
    entry.status, entry.status_reason = Status.SKIPPED, reason
    finish(entry, time.monotonic())
    return entry


class GroupStop(Exception):
    """Ends a group's measurement with this status (skipped, timed out, faulted)."""

    def __init__(self, status: Status, reason: str, kind: StopKind | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.kind = kind


def check_fault(run: ToolRun) -> None:
    if run.stop_kind is not None and run.stop_kind.is_fault:
        raise GroupStop(Status.FAULTED, run.stop_reason or "", run.stop_kind)
