"""One group of scenarios measured round by round: its topics, each side's warm-up, then in every
round each side's producer run (and its read side) in the order plan.round_orders gives, until the
rounds are done, the caller's stop rule says the outcome is certain, or a fault, the budget or a
skip ends the group. A lone scenario is a group of one."""

from __future__ import annotations

import random
import time

from kcliff.errors import ClusterError
from kcliff.measure import failover_side, faults, producer, rate_side
from kcliff.measure.document import GroupStop, check_fault, finish, new_entry
from kcliff.measure.on_cliff import on_its_cliff
from kcliff.measure.options import Options, sized
from kcliff.measure.plan import Decided, round_orders, shared_topics
from kcliff.measure.read_round import ReadRound, topic_holds_reads
from kcliff.measure.rig import Rig
from kcliff.measure.sites import Site
from kcliff.measure.time_left import RoundClock
from kcliff.results.metrics import METRICS, Workload
from kcliff.results.model import REFERENCE_ID, Entry, Run, Status, StopKind
from kcliff.scenario.suites import Scenario


class Rounds:
    """Measures groups on the rig's sites with these options, writing into its results document."""

    def __init__(self, rig: Rig, opts: Options) -> None:
        self.rig = rig
        self.opts = opts
        self.reads = ReadRound(rig, opts)

    def measure(self, scenarios: list[Scenario], rounds: int, decided: Decided | None = None) -> list[Entry]:
        """Each round measures every scenario once, in the order round_orders gives, so drift on a
        shared runner hits all sides alike. Each side has its own warm-up, and its own topic only where
        its topic's shape differs (shared_topics); broker and topic settings switch before each run.
        The entries are in the results file from the start and saved after every run."""
        rig = self.rig
        capped = rig.home.cluster.bytes_capped()
        entries = [new_entry(sc, capped) for sc in scenarios]
        for entry in entries:
            entry.kafka_version = rig.elsewhere[entry.id].kafka_version if entry.id in rig.elsewhere else None
        seed = random.SystemRandom().randrange(2**32)  # recorded, so the order can be drawn again
        orders = round_orders(len(scenarios), rounds, random.Random(seed))
        alone = len(scenarios) == 1
        for entry in entries:
            entry.status = Status.RUNNING
            if not alone:
                entry.interleaved_with = [e.id for e in entries if e is not entry]
                entry.order_seed = seed
        rig.doc.scenarios.extend(entries)
        topics = shared_topics(scenarios)
        began = time.monotonic()
        budget = sum(self.opts.budget_s + failover_side.budget_s(sc, rounds) for sc in scenarios)
        deadline = began + budget
        clock = RoundClock(rounds, deadline)
        rig.progress.rounds(clock)
        created: list[tuple[Site, str]] = []
        site = rig.home  # the site measured on last: a failure is put down to its cluster
        try:
            for sc, topic, entry in zip(scenarios, topics, entries):
                site = rig.site_of(sc.id)
                if (site, topic) not in created:
                    site.create_topic(sc, topic)
                    created.append((site, topic))
                self._switch_to(site, sc, entry, topic)
                warm = self._warm_up(site, sc, topic, deadline, entry)
                check_fault(warm)
                if warm.stop_kind is StopKind.BUDGET:
                    raise GroupStop(Status.TIMED_OUT, "warm-up did not finish in the time budget")
            self._fix_group_rate(scenarios, entries)
            sides = list(zip(scenarios, topics, entries))
            word = "run" if alone else "round"
            for i, round_order in enumerate(orders, start=1):
                clock.start(i, time.monotonic())
                # the same count for every side of a round, so their ratio is not also one of run lengths
                records = self.opts.records_for(*(e for e in entries if sizes_the_round(e)))
                counts = [sized(records, sc.bytes_per_record()) for sc in scenarios]  # as many bytes each side
                self.reads.pair_round(entries, counts, i == 1, capped)
                # every side at once, so that the flat-out figures nothing judges still pair round by round
                filled = not self.opts.flat_out_judged and all(
                    Workload.CONSUME not in sc.workloads or topic_holds_reads(e, n)
                    for sc, e, n in zip(scenarios, entries, counts))
                for position, k in enumerate(round_order):
                    (sc, topic, entry), count = sides[k], counts[k]
                    if on_its_cliff(entry):
                        continue  # on its cliff twice running: more rounds would only crawl
                    site = rig.site_of(sc.id)
                    self._switch_to(site, sc, entry, topic)
                    if filled:  # consumer-only or failure-only: a flat-out run adds records nobody reads
                        self.reads.after(site, sc, topic, entry, count, f"{word} {i}/{rounds}",
                                         None if alone else position, deadline)
                        continue
                    run = self._one(site, sc, topic, count, deadline, f"{word} {i}/{rounds}")
                    if not alone:
                        run.position = position
                    entry.runs.append(run)
                    entry.resummarise()
                    rig.save()
                    _check_run(site, run, i)
                    if run.stop_kind is StopKind.BUDGET:
                        raise GroupStop(Status.TIMED_OUT, f"time budget of {budget:.0f}s exhausted in {word} {i}")
                    self.reads.after(site, sc, topic, entry, count, f"{word} {i}/{rounds}",
                                     None if alone else position, deadline)
                if decided is not None and i < rounds and decided(entries):
                    what = "the canaries' verdicts" if any(e.is_canary for e in entries) else "verdict"
                    rig.progress.note(f"{what} certain after {word} {i} of {rounds}: stopped measuring")
                    break
            for entry in entries:
                on_cliff = on_its_cliff(entry)
                entry.status = Status.CLIFF if on_cliff else Status.OK
                entry.status_reason = entry.runs[-1].stop_reason if on_cliff else None
        except (GroupStop, ClusterError) as exc:
            self._record_failure(site, entries, exc)
        except KeyboardInterrupt:
            for entry in entries:
                entry.status, entry.status_reason = Status.INTERRUPTED, "interrupted mid-round"
            raise
        finally:
            rig.progress.rounds(None)
            for made_on, topic in created:
                made_on.delete_topic(topic)
            for entry in entries:
                finish(entry, began)
            rig.save()
        return entries

    def _fix_group_rate(self, scenarios: list[Scenario], entries: list[Entry]) -> None:
        """With Options.rate_share, the rate every side of the group is measured at where none is given:
        that share of the first side's peak, from its warm-up, fixed before the first round."""
        share, first = self.opts.rate_share, entries[0]
        self.reads.group_rate = None
        if share is None or not any(sc.at_rate() and sc.rate is None for sc in scenarios):
            return
        self.reads.group_rate = rate_side.share_of_peak(first, share)
        if self.reads.group_rate is not None:
            self.rig.progress.note(f"latency at rate measured at {self.reads.group_rate}, {share:.0%} of "
                                   f"{first.id}'s peak in its warm-up")

    def _switch_to(self, site: Site, sc: Scenario, entry: Entry, topic: str) -> None:
        """`sc`'s site restarted with its read-only overrides and set to its dynamic broker settings, and
        its `topic` to its topic configs."""
        entry.restart_forced = site.restart_for(sc, self.rig.progress) or entry.restart_forced
        site.state.apply(sc.dynamic_broker())
        site.switch_topic(sc, topic)

    def _record_failure(self, site: Site, entries: list[Entry], exc: Exception) -> None:
        if isinstance(exc, GroupStop):
            status, reason = exc.status, str(exc)
            if exc.kind is StopKind.DISK_FULL:
                self.rig.abort = faults.unprefixed(reason)
        else:
            dead = site.cluster.dead_nodes()
            status = Status.FAULTED if dead else Status.FAILED
            reason = f"{exc}" + (f" (broker node(s) {dead} died)" if dead else "")
        for entry in entries:
            entry.status, entry.status_reason = status, reason

    def _warm_up(self, site: Site, sc: Scenario, topic: str, deadline: float, entry: Entry) -> Run:
        """The warm-up, and once more if it was stopped on a cliff: that second brief attempt decides.
        Stopped too, it is kept as the first (stopped) run; finished, it was a longer warm-up. Confirming
        on a warm-up, which keeps fewer records quiet than a measured run, decides a cliff sooner. A
        canary is decided by one stop (on_cliff.stops_to_decide): 5-6 s less per cliff in a self-test."""
        records = sized(self.opts.warmup(), sc.bytes_per_record())
        # the reference's warm-up figure stands in for the reference until it has a run: kept as measured
        quiet = producer.steady_state_after(records) if sc.id == REFERENCE_ID else producer.warmup_quiet(records)
        quiet = quiet if self.rig.steady_state() else 0
        warm = self._one(site, sc, topic, records, deadline, "warmup", quiet)
        entry.warmup = warm
        if warm.stop_kind is not StopKind.CLIFF:
            return warm
        if on_its_cliff(entry):  # a canary: its stopped warm-up is its one measured run
            entry.warmup, entry.runs = None, [warm]
            return warm
        again = self._one(site, sc, topic, records, deadline, "warmup 2", quiet)
        if again.stop_kind is StopKind.CLIFF:
            entry.runs.append(again)
        else:
            entry.warmup_stopped, entry.warmup = warm, again
        return again

    def _stop_rule(self, sc: Scenario, quiet: int) -> producer.StopRule | None:
        """A fresh early-stop rule for one run, against the reference's figure so far (none when
        early stop is off, for the reference itself, or before the reference has a figure)."""
        reference = self.rig.reference_mb()
        if not self.opts.early_stop or sc.id == REFERENCE_ID or not reference:
            return None
        unreported = producer.unreported_records(quiet, sc.as_applied()["producer"], sc.bytes_per_record(),
                                                 sc.producers)
        return producer.cliff_stop_rule(reference, self.opts.cliff_threshold, unreported, quiet_ticks=quiet > 0,
                                        record_size=sc.bytes_per_record())

    def _one(self, site: Site, sc: Scenario, topic: str, records: int, deadline: float, label: str,
             quiet: int | None = None) -> Run:
        """One perf run; `quiet` records are left out of its figures (default: a measured run's fifth,
        none where a release's tool cannot, see Rig.steady_state)."""
        self.rig.progress.run_started(label, sc.id)
        if quiet is None:
            quiet = producer.steady_state_after(records) if self.rig.steady_state() else 0
        return self.rig.perf_run(site.cluster, topic, records, sc.as_applied()["producer"], deadline,
                                 self.rig.log_path(sc.id, label), self._stop_rule(sc, quiet),
                                 on_line=self.rig.progress.live, throughput=sc.throughput_limit,
                                 watch=faults.FaultWatch(site.cluster).check, quiet=quiet,
                                 producers=sc.producers, record_size=sc.record_size, payload=sc.prepared_payload(),
                                 client=sc.client)


def sizes_the_round(entry: Entry) -> bool:
    """Whether an entry's latest rate sizes its round's runs: not once it is decided on its cliff (it
    measures no more), nor for a canary judged on anything but its producer flat out. Flat out, the
    latency canary (linger-500) ran at about 8x the reference's MB/s and stretched the reference's runs
    in a check's self-test to 11-14 s, for flat-out figures nothing judges."""
    return not on_its_cliff(entry) and (entry.cliff is None
                                        or METRICS[entry.cliff.metric].workload is Workload.PRODUCE)


def _check_run(site: Site, run: Run, index: int) -> None:
    """Raise for a run that hit a fault or failed; a cliff stop, the budget or a complete run is fine."""
    check_fault(run)
    if run.stop_kind is StopKind.FAILED:
        dead = site.cluster.dead_nodes()
        if dead:
            raise GroupStop(Status.FAULTED, faults.died(dead, f"run {index}"), StopKind.FAULT)
        raise ClusterError(f"perf run {index} failed: {run.stop_reason}")
