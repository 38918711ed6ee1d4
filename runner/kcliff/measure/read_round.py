"""A side's read side within its round: right after its producer run, its consumer and end-to-end
runs on the same topic, so a check's sequential stop ends both together."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

from kcliff.errors import ClusterError
from kcliff.measure import failover_side, faults, rate_side, read_side
from kcliff.measure.document import GroupStop, check_fault
from kcliff.measure.on_cliff import on_its_cliff, reads_on_cliff
from kcliff.measure.options import Options
from kcliff.measure.rig import Rig
from kcliff.measure.sites import Site
from kcliff.results.metrics import READ_SIDE, Workload
from kcliff.results.model import REFERENCE_ID, Entry, ReadRun, Status, StopKind
from kcliff.scenario.rate import Rate
from kcliff.scenario.suites import Scenario

READ_MIN_RECORDS = 150_000  # a consumer reads a run's worth, or this many: a read under half a second scatters
RATE_CAP_S = 60.0  # a fixed-rate run's whole time: the JVM's start, warm-up, run and drain fit in well under it


class ReadRound:
    def __init__(self, rig: Rig, opts: Options) -> None:
        self.rig = rig
        self.opts = opts
        self.group_rate: Rate | None = None  # the group's share of a peak (Options.rate_share), set by Rounds
        self.round_reads: int | None = None  # what every paired side reads this round (pair_round), set by Rounds
        self.warm_up_reads = False  # this round's paired read-side runs are warm-ups (pair_round)

    def pair_round(self, entries: list[Entry], counts: list[int], first: bool, bytes_capped: bool) -> None:
        """Every side of a pair (a check's base and head: the group's entries that are no canary) reads as
        many records this round (`counts`: each side's records this round), what the emptier topic will
        hold after its run: a read's size moves its MB/s where links are capped (docs/profiles.md).
        Canaries and a side alone read what their own topic holds. Where links or disks are capped, the
        `first` round's read-side runs of a pair are warm-ups, kept and not judged: its reads came out
        0.44x and 1.9x and its latency at rate 1.31x where the rounds after read 0.99-1.01x (docs/profiles.md)."""
        paired = [(e, n) for e, n in zip(entries, counts) if not e.is_canary]
        alike = len(paired) > 1 and len({n for _, n in paired}) == 1  # sides of one record size send as many
        self.round_reads = min(read_count(paired[0][1]), *(produced(e) + n for e, n in paired)) if alike else None
        self.warm_up_reads = alike and first and bytes_capped

    def after(self, site: Site, sc: Scenario, topic: str, entry: Entry, records: int, label: str,
              position: int | None, deadline: float) -> None:
        """The side's consumer, end-to-end and fixed-rate runs after its producer run. A side whose
        consumer was stopped at its cap twice running is on a read-side cliff: more reads would only crawl."""
        if on_its_cliff(entry) or not produced(entry):
            return
        for workload in read_order(sc.workloads):
            if workload in READ_SIDE and reads_on_cliff(entry):
                continue
            run = self._read(site, sc, topic, workload, entry, records, f"{workload} {label}", deadline)
            run.position = position
            warm_up = self.warm_up_reads and not entry.is_canary
            (entry.read_warmups if warm_up else entry.read_runs).append(run)
            entry.resummarise()
            self.rig.save()
            if not run.complete:
                _check_read(site, sc, run, f"{workload} {label}")

    def _read(self, site: Site, sc: Scenario, topic: str, workload: str, entry: Entry, records: int, label: str,
              deadline: float) -> ReadRun:
        self.rig.progress.run_started(label, sc.id, workload)
        log = self.rig.log_path(sc.id, label)
        left = max(1.0, deadline - time.monotonic())
        watch = faults.FaultWatch(site.cluster).check
        if workload == Workload.CONSUME:
            wanted = self.round_reads if self.round_reads is not None and not entry.is_canary else read_count(records)
            count = read_side.worked_reads(sc.consuming, min(wanted, produced(entry)))  # from the topic's start
            cap = left if sc.id == REFERENCE_ID else min(left, self._read_cap(count) + read_side.work_s(sc.consuming, count))
            return read_side.consume_run(site.cluster, topic, count, sc.consumer, cap, log, watch, sc.consuming)
        if workload == Workload.RATE:
            rate = rate_side.rate_of(sc, self.opts.rate, self.group_rate)
            return rate_side.rate_run(site.cluster, sc, topic, rate, log, min(left, RATE_CAP_S), watch,
                                      self.opts.rate_records)
        if workload == Workload.FAILOVER:  # its own fault is no fault of the run's: no watch
            return failover_side.failover_run(site.cluster, sc, topic, rate_side.rate_of(sc, self.opts.rate), log,
                                              self.opts.fault_bound_s)
        return read_side.latency_run(site.cluster, topic, sc.as_applied()["producer"], sc.consumer,
                                     min(left, read_side.LATENCY_CAP_S), log.with_suffix(".properties"), log, watch)

    def _read_cap(self, records: int) -> float:
        """How long a consumer of `records` may read: the reference's consumer time for as many records
        over the cliff threshold (a consumer that much slower is on a cliff, like the producer's early
        stop); before the reference has read, the shortest cap: a cut run keeps the rate it had."""
        ref = self.rig.doc.reference()
        done = [r for r in (ref.read_runs if ref else []) if r.workload == Workload.CONSUME and r.complete and r.records]
        if not self.opts.early_stop:
            return read_side.CONSUME_MAX_S
        if not done:
            return read_side.CONSUME_MIN_CAP_S
        per_record = statistics.median(r.elapsed_s / r.records for r in done)
        return min(read_side.CONSUME_MAX_S,
                   max(read_side.CONSUME_MIN_CAP_S, per_record * records / self.opts.cliff_threshold))


def _check_read(site: Site, sc: Scenario, run: ReadRun, label: str) -> None:
    """Raise for a read run a fault ended (a dead broker, a full disk: as for a producer run, so it is
    healed or ends the suite) or that failed; a cut or too-short read is fine."""
    check_fault(run)
    found = faults.FaultWatch(site.cluster, every_s=0).check()
    if found is not None:
        kind, reason = found
        raise GroupStop(Status.FAULTED, f"{reason} (in {sc.id}'s {label})", kind)
    if run.stop_kind is StopKind.FAILED:
        raise ClusterError(f"{sc.id}: {label} failed: {run.stop_reason}")


def read_order(workloads: Sequence[Workload]) -> list[Workload]:
    """The read side's runs in the order a round measures them: the run at a fixed rate first, right after
    the producer's as in a check that reads nothing, so a consumer's read (at the caps, the links full for
    seconds) never comes just before it (docs/profiles.md); the run through a fault last (Workload's order),
    so the broker it kills and starts again is behind every other run of the side."""
    return sorted((w for w in workloads if w != Workload.PRODUCE), key=lambda w: w != Workload.RATE)


def read_count(records: int) -> int:
    """Records a consumer reads in a round of `records`, where its topic holds them."""
    return max(records, READ_MIN_RECORDS)


def topic_holds_reads(entry: Entry, records: int) -> bool:
    """Whether this side's topic already holds what its reads of a round of `records` read: a flat-out
    run that nothing judges would add nothing they read (they read from the start of the topic)."""
    return produced(entry) >= read_count(records)


def produced(entry: Entry) -> int:
    """Records this side's finished producer runs left in its topic: what its consumer can read."""
    return sum(r.records for r in entry.attempts() if r.complete)
