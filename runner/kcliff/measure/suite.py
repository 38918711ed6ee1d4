"""Run a list of scenarios on a cluster: apply each, warm up, measure N runs, record, clean up.

The results document is rewritten atomically after every scenario, so nothing measured is lost
when a later scenario fails or the run is interrupted.
"""

from __future__ import annotations

import dataclasses
import json
import random
import statistics
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kcliff.backends.admin import Admin
from kcliff.backends.base import Cluster, restartable
from kcliff.errors import ClusterError
from kcliff.measure import environment, faults, read_side
from kcliff.measure import producer as measure
from kcliff.measure.apply import BrokerState
from kcliff.measure.progress import Progress
from kcliff.results.model import (
    METRICS,
    REFERENCE_ID,
    SCHEMA,
    THROUGHPUT,
    CliffSpec,
    Entry,
    ReadRun,
    ResultsDoc,
    Run,
    RunStatus,
    Status,
    StopKind,
    ToolRun,
    canary_settled,
    save,
)
from kcliff.scenario.settings import INVARIANTS, RECORD_SIZE, as_kafka_value
from kcliff.scenario.suites import CONSUME, PRODUCE, Scenario, reading_reference

CLIFF_THRESHOLD = 0.5  # a scenario below half the reference's MB/s is on a cliff
EARLY_STOP_AFTER = 2     # runs in a row (the warm-up counts) stopped on a cliff decide a scenario
PRIME_S = 45.0           # of unmeasured load before the first measurement (see SuiteRunner.prime)
PRIME_RECORDS = 30_000   # per priming run, so JVM start-ups do not eat the priming time
HEAL_SYNC_S = 180.0      # for a healed broker to catch up with every partition it replicates
READ_MIN_RECORDS = 150_000  # a consumer reads a run's worth, or this many: a read under half a second scatters


@dataclass(frozen=True)
class Options:
    records: int = 100_000
    warmup_records: int | None = None
    repeats: int = 3
    budget_s: float = 600.0
    early_stop: bool = True
    cliff_threshold: float = CLIFF_THRESHOLD
    prime_s: float = PRIME_S
    run_s: float | None = None  # stretch measured runs to about this long (see records_for)
    settle: bool = False  # end the reference's and canaries' rounds once every canary's verdict is settled

    def records_for(self, *entries: Entry) -> int:
        """Records per measured run: --records, or more where the latest runs (the warm-ups before the
        first) show that would take under run_s seconds at their mean rate: runs of under a second
        scatter widely. Given the entries of one interleaved round, every side of it runs the same count."""
        rates = [r for r in (_latest_rate(e) for e in entries) if r]
        if self.run_s is None or not rates:
            return self.records
        return max(self.records, min(int(sum(rates) / len(rates) * self.run_s), 20 * self.records))

    def warmup(self) -> int:
        return self.warmup_records if self.warmup_records is not None else max(self.records // 2, 1000)


def order(scenarios: list[Scenario]) -> list[Scenario]:
    """Reference first, then scenarios grouped by the read-only broker overrides they need, so the
    brokers restart once per distinct set (default set first), file order kept inside a group."""
    def key(item: tuple[int, Scenario]) -> tuple[bool, bool, tuple[tuple[str, object], ...], int]:
        index, sc = item
        overrides = tuple(sorted(sc.restart_overrides().items()))
        return (sc.id != REFERENCE_ID, overrides != (), overrides, index)
    return [sc for _, sc in sorted(enumerate(scenarios), key=key)]


def round_orders(sides: int, rounds: int, rng: random.Random) -> list[list[int]]:
    """The order of the sides in each interleaved round: the rotations of one random order, so every
    side runs in every position equally often (drift within a round cancels), in shuffled rounds, so
    a slowdown that comes and goes every few runs falls on either side by chance and the rounds'
    spread counts it (a fixed A B, B A alternation let it side with one: docs/measurements.md)."""
    first = list(range(sides))
    rng.shuffle(first)
    rotations = [first[i:] + first[:i] for i in range(sides)]
    orders = [rotations[i % sides] for i in range(rounds)]
    rng.shuffle(orders)
    return orders


def interleaved_group(planned: list[Scenario]) -> list[Scenario]:
    """The reference and the canaries that need no broker restart, when there is any such canary."""
    canaries = [sc for sc in planned if sc.cliff is not None and not sc.restart_overrides()]
    reference = [sc for sc in planned if sc.id == REFERENCE_ID]
    return reference + canaries if reference and canaries else []


def new_document(cluster: Cluster, opts: Options, suites: list[str], kafka_version: str) -> ResultsDoc:
    run_id = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + uuid.uuid4().hex[:4]
    return ResultsDoc(
        schema=SCHEMA, run_id=run_id, environment=environment.collect(cluster, kafka_version),
        parameters={"records": opts.records, "warmup_records": opts.warmup(), "repeats": opts.repeats,
                    "record_size": RECORD_SIZE, "budget_s": opts.budget_s, "suites": suites,
                    "early_stop": opts.early_stop, "cliff_threshold": opts.cliff_threshold,
                    "prime_s": opts.prime_s, "run_s": opts.run_s})


# measure.perf_run's signature: the suite is given it, so its fault and status handling can be tested
# with made-up runs
Measure = Callable[..., Run]


@dataclass(frozen=True)
class Group:
    """Scenarios measured interleaved after the suite, in the same run (`run --confirm`)."""

    scenarios: list[Scenario]
    rounds: int
    run_s: float | None = None  # stretch its runs as `kcliff check` does (Options.run_s)


FollowUp = Callable[[], Group | None]


@dataclass(eq=False)
class Site:
    """A cluster the suite measures on, with what kcliff has changed there. A check of a Kafka upgrade
    measures its head on a second site, a cluster of the head's version."""

    cluster: Cluster
    admin: Admin
    state: BrokerState
    kafka_version: str | None = None  # None: the run's own version (the home cluster)
    loaded_since: float | None = None  # monotonic time its priming began: how long it has been warming
    overrides: dict[str, object] = field(default_factory=dict)  # the read-only broker settings restarted with
    stale_topics: list[str] = field(default_factory=list)  # not deleted while a broker was down


class SuiteRunner:
    """Measures scenarios on `cluster` through `admin` (a new one from `connect` after a restart or a
    heal), runs made by `perf_run`, and writes everything into `doc`, saved to `out` as it goes."""

    def __init__(self, cluster: Cluster, admin: Admin, opts: Options, doc: ResultsDoc, out: Path, logdir: Path,
                 progress: Progress | None = None, perf_run: Measure = measure.perf_run,
                 connect: Callable[[str], Admin] = Admin) -> None:
        self.connect = connect
        self.opts = opts
        self.doc = doc
        self.out = out
        self.logdir = logdir
        self.progress = progress or Progress()
        self.perf_run = perf_run
        self.logdir.mkdir(parents=True, exist_ok=True)
        self.home = Site(cluster, admin, BrokerState(admin, admin.broker_ids()))
        self.site = self.home  # the cluster being measured on now
        self.elsewhere: dict[str, Site] = {}  # scenario id -> the site it is measured on, when not home
        self.abort: str | None = None  # a fault no retry can mend (a full disk): ends the suite

    @property
    def cluster(self) -> Cluster:
        return self.site.cluster

    @property
    def admin(self) -> Admin:
        return self.site.admin

    @property
    def state(self) -> BrokerState:
        return self.site.state

    def measure_elsewhere(self, scenario_id: str, cluster: Cluster, admin: Admin, kafka_version: str) -> None:
        """Measure `scenario_id` on `cluster`, of `kafka_version`, from now on (the head of an upgrade
        check). Its fresh brokers are primed for as long as the home cluster has carried load (its
        priming and the self-test), so neither side is measured on colder brokers."""
        site = Site(cluster, admin, BrokerState(admin, admin.broker_ids()), kafka_version)
        self.elsewhere[scenario_id] = site
        warm_s = time.monotonic() - self.home.loaded_since if self.home.loaded_since is not None else 0.0
        home_opts, self.opts = self.opts, dataclasses.replace(self.opts, prime_s=max(self.opts.prime_s, warm_s))
        self.site = site
        try:
            self.prime()
        finally:
            self.site, self.opts = self.home, home_opts

    def sites(self) -> list[Site]:
        return [self.home, *self.elsewhere.values()]  # measure_elsewhere gives each its own, never home

    def run(self, scenarios: list[Scenario], follow_up: FollowUp | None = None) -> ResultsDoc:
        """Reference and canaries interleaved, then every other scenario on its own, then the skipped,
        then the group `follow_up` gives once those are measured."""
        unshowable = {sc.id: why for sc in scenarios if (why := self._unshowable(sc))}
        planned = [sc for sc in reading_reference(order(scenarios)) if sc.id not in unshowable]
        group = interleaved_group(planned)
        rest = [sc for sc in planned if sc not in group]
        self._warn_about_storage()
        self._warn_about_load()
        faults.check_space(self.cluster.data_root(), disk_needed(self.opts, len(group)))
        try:
            self.prime()
            if group:
                self.progress.note(f"{', '.join(sc.id for sc in group)}: interleaved, {self.opts.repeats} rounds")
                self.measure_group(group, self.opts.repeats, settled(self.opts.repeats) if self.opts.settle else None)
            for index, sc in enumerate(rest, len(group) + 1):
                self.progress.scenario(index, len(planned), sc.id)
                self.measure_group([sc], self.opts.repeats)
            for sc in scenarios:
                if sc.id in unshowable:
                    self._record_skip(sc, unshowable[sc.id])
            if follow_up is not None:
                self._follow(follow_up())
            self.doc.status = RunStatus.COMPLETE
        except KeyboardInterrupt:
            self.doc.status = RunStatus.INTERRUPTED
            raise
        except BaseException:
            self.doc.status = RunStatus.FAILED
            raise
        finally:
            self.doc.environment["ended"] = environment.now()
            self.save()
            self.restore()
        return self.doc

    def save(self) -> None:
        save(self.doc, self.out)

    def _follow(self, group: Group | None) -> None:
        if group is None or not group.scenarios or self.abort:
            return
        self.progress.note(f"{', '.join(sc.id for sc in group.scenarios)}: interleaved, {group.rounds} rounds")
        suite_opts, self.opts = self.opts, dataclasses.replace(self.opts, run_s=group.run_s)
        try:
            self.measure_group(group.scenarios, group.rounds)
        finally:
            self.opts = suite_opts

    def _unshowable(self, sc: Scenario) -> str | None:
        """Why this cluster cannot show the canary's cliff (its round trip is known to be too short)."""
        rtt, needed = self.cluster.client_rtt_ms(), sc.cliff.min_client_rtt_ms if sc.cliff else 0.0
        if rtt is None or rtt >= needed:
            return None
        return (f"its cliff needs a producer-broker round trip of at least {needed:g} ms to show; "
                f"this cluster's is {rtt:g} ms (give --client-rtt-ms {needed:g} or more)")

    def _record_skip(self, sc: Scenario, reason: str) -> None:
        entry = _new_entry(sc)
        entry.status, entry.status_reason = Status.SKIPPED, reason
        _finish(entry, time.monotonic())
        self.doc.scenarios.append(entry)
        self.save()
        self.progress.note(f"{sc.id}: skipped: {reason}")

    def _warn_about_storage(self) -> None:
        env = self.doc.environment
        if environment.fsync_is_free(env):
            probe = env["storage"]
            self.progress.warn(f"an fsync in {probe['path']} ({probe['filesystem']}) takes "
                               f"{probe['fsync_us']:.0f} us, so it reaches no disk: fsync cliffs such as "
                               "log.flush.interval.messages=1 cannot show; put --workdir on a real disk")

    def _warn_about_load(self) -> None:
        busy = environment.load_warning(self.doc.environment)
        if busy:
            self.progress.warn(f"the machine is not quiet: {busy}")

    def prime(self) -> None:
        """Unmeasured runs on a throwaway topic for prime_s seconds (at least one): fresh brokers speed
        up over their first minute (JIT), and a reference measured on cold brokers made the canaries
        look healthy beside it (docs/measurements.md)."""
        topic = f"kcliff-prime-{uuid.uuid4().hex[:6]}"
        self.site.loaded_since = time.monotonic()
        self.progress.note(f"priming the brokers ({self.opts.prime_s:.0f}s of unmeasured load)")
        self.admin.create_topic(topic, 6, 3, {})
        began, figures = time.monotonic(), list[float]()
        try:
            while True:
                run = self.perf_run(self.cluster, topic, max(self.opts.warmup(), PRIME_RECORDS),
                                    dict(INVARIANTS["producer"]), time.monotonic() + self.opts.budget_s,
                                    self.logdir / f"prime-{len(figures) + 1}.log",
                                    watch=faults.FaultWatch(self.cluster).check)
                figures.append(round(run.mb_per_sec or 0.0, 2))
                if run.stop_kind is not None and run.stop_kind.is_fault:
                    raise ClusterError(f"while priming the brokers: {faults.unprefixed(run.stop_reason or '')}")
                if not run.complete or time.monotonic() - began >= self.opts.prime_s:
                    break
        finally:
            self.admin.delete_topic(topic)
        primed = {"seconds": round(time.monotonic() - began, 1), "mb_per_sec": figures}
        if self.site is self.home:
            self.doc.prime = primed
        else:  # beside the home cluster's figures: an upgrade check's second cluster
            self.doc.prime = {**(self.doc.prime or {}), f"kafka {self.site.kafka_version}": primed}

    def restore(self) -> None:
        """Put back the dynamic broker configs found at the start (also after measure_group)."""
        for site in self.sites():
            try:
                site.state.restore()
            except (ClusterError, KeyboardInterrupt):
                pass  # the cluster may already be gone; a local one is torn down anyway

    def reference_mb(self) -> float | None:
        """The reference's median MB/s so far; its warm-up's while it has no measured run yet."""
        ref = self.doc.reference()
        if ref is None:
            return None
        stat = (ref.summary or {}).get(THROUGHPUT.key)
        return (stat.median if stat else None) or (ref.warmup.mb_per_sec if ref.warmup else None)

    def measure_group(self, group: list[Scenario], rounds: int,
                      decided: Callable[[list[Entry]], bool] | None = None) -> list[Entry]:
        """Scenarios measured round by round, interleaved (a lone scenario is a group of one). A group hit
        by a fault (a broker died) is recorded as faulted, never as a regression or cliff; the cluster is
        healed and the group measured once more. Interleaved, the brokers' slow warming hits every side
        alike instead of flattering the side measured last."""
        entries = self.measure_interleaved(group, rounds, decided)
        if self.abort is None and any(e.status is Status.FAULTED for e in entries):
            reason = next(e.status_reason for e in entries if e.status is Status.FAULTED)
            self.progress.note(f"fault in {', '.join(sc.id for sc in group)}: {reason}; "
                               "healing the cluster and retrying once")
            try:
                self._heal()
            except ClusterError as exc:
                for entry in entries:
                    entry.status_reason = f"{entry.status_reason}; the cluster could not be healed: {exc}"
                self.save()
                raise ClusterError(f"{', '.join(sc.id for sc in group)}: {entries[0].status_reason}") from None
            for entry in entries:
                self.doc.scenarios.remove(entry)
            retry = self.measure_interleaved(group, rounds, decided)
            for again, entry in zip(retry, entries):
                again.faulted_attempt = entry
            self.save()
            entries = retry
        for entry in entries:
            if len(entries) > 1:
                self.progress.scenario(entries.index(entry) + 1, len(entries), entry.id)
            self.progress.scenario_done(entry, self.reference_mb())
        if self.abort is not None:
            raise ClusterError(self.abort)
        return entries

    def _heal(self) -> None:
        for site in self.sites():
            self.site = site
            try:
                self._heal_site()
            finally:
                self.site = self.home

    def _heal_site(self) -> None:
        managed = restartable(self.cluster)
        if managed is None or not managed.abilities.heal:
            raise ClusterError(f"the {self.cluster.backend} backend cannot start a broker again")
        managed.heal()
        self._reconnect()
        stale, self.site.stale_topics = self.site.stale_topics, []
        for topic in stale:
            self._delete_topic(topic)
        # measuring while the healed broker still catches up would measure the catching up
        self.admin.wait_in_sync(HEAL_SYNC_S)

    def _reconnect(self) -> None:
        self.site.admin = self.connect(self.cluster.admin_bootstrap)
        self.state.admin = self.site.admin

    def measure_interleaved(self, scenarios: list[Scenario], rounds: int,
                            decided: Callable[[list[Entry]], bool] | None = None) -> list[Entry]:
        """Each round measures every scenario once, in the order round_orders gives, so drift on a
        shared runner hits all sides alike. Each side has its own warm-up, and its own topic only where
        its topic differs (shared_topics); broker settings switch before each run.
        The entries are in the results file from the start and saved after every run."""
        entries = [_new_entry(sc) for sc in scenarios]
        for entry in entries:
            entry.kafka_version = self.elsewhere[entry.id].kafka_version if entry.id in self.elsewhere else None
        seed = random.SystemRandom().randrange(2**32)  # recorded, so the order can be drawn again
        orders = round_orders(len(scenarios), rounds, random.Random(seed))
        alone = len(scenarios) == 1
        for entry in entries:
            entry.status = Status.RUNNING
            if not alone:
                entry.interleaved_with = [e.id for e in entries if e is not entry]
                entry.order_seed = seed
        self.doc.scenarios.extend(entries)
        topics = shared_topics(scenarios)
        began = time.monotonic()
        budget = self.opts.budget_s * len(scenarios)
        deadline = began + budget
        created: list[tuple[Site, str]] = []
        try:
            for sc, topic, entry in zip(scenarios, topics, entries):
                self._switch_to(sc, entry)
                if (self.site, topic) not in created:
                    self._create_topic(sc, topic)
                    created.append((self.site, topic))
                warm = self._warm_up(sc, topic, deadline, entry)
                _check_fault(warm)
                if warm.stop_kind is StopKind.BUDGET:
                    raise _Stop(Status.TIMED_OUT, "warm-up did not finish in the time budget")
            sides = list(zip(scenarios, topics, entries))
            word = "run" if alone else "round"
            for i, round_order in enumerate(orders, start=1):
                # the same count for every side of a round, so their ratio is not also one of run lengths
                records = self.opts.records_for(*(e for e in entries if not on_its_cliff(e)))
                for position, (sc, topic, entry) in enumerate(sides[k] for k in round_order):
                    if on_its_cliff(entry):
                        continue  # on its cliff twice running: more rounds would only crawl
                    self._switch_to(sc, entry)
                    run = self._one(sc, topic, records, deadline, f"{word} {i}/{rounds}")
                    if not alone:
                        run.position = position
                    entry.runs.append(run)
                    entry.resummarise()
                    self.save()
                    self._check_run(run, i)
                    if run.stop_kind is StopKind.BUDGET:
                        raise _Stop(Status.TIMED_OUT, f"time budget of {budget:.0f}s exhausted in {word} {i}")
                    self._read_side(sc, topic, entry, records, f"{word} {i}/{rounds}", None if alone else position,
                                    deadline)
                if decided is not None and i < rounds and decided(entries):
                    what = "the canaries' verdicts" if any(e.is_canary for e in entries) else "verdict"
                    self.progress.note(f"{what} certain after {word} {i} of {rounds}: stopped measuring")
                    break
            for entry in entries:
                on_cliff = on_its_cliff(entry)
                entry.status = Status.CLIFF if on_cliff else Status.OK
                entry.status_reason = entry.runs[-1].stop_reason if on_cliff else None
        except (_Stop, ClusterError) as exc:
            self._record_failure(entries, exc)
        except KeyboardInterrupt:
            for entry in entries:
                entry.status, entry.status_reason = Status.INTERRUPTED, "interrupted mid-round"
            raise
        finally:
            for self.site, topic in created:
                self._delete_topic(topic)
            self.site = self.home
            for entry in entries:
                _finish(entry, began)
            self.save()
        return entries

    def _read_side(self, sc: Scenario, topic: str, entry: Entry, records: int, label: str, position: int | None,
                   deadline: float) -> None:
        """Right after a side's producer run, in the same round, its consumer and end-to-end runs, so
        a check's sequential stop ends both together. A side whose consumer was stopped at its cap
        twice running is on a read-side cliff: more reads would only crawl."""
        if not sc.reads() or on_its_cliff(entry) or reads_on_cliff(entry) or not _produced(entry):
            return
        for workload in (w for w in sc.workloads if w != PRODUCE):
            run = self._read(sc, topic, workload, entry, records, f"{workload} {label}", deadline)
            run.position = position
            entry.read_runs.append(run)
            entry.resummarise()
            self.save()
            if not run.complete:
                self._check_read(sc, run, f"{workload} {label}")

    def _check_read(self, sc: Scenario, run: ReadRun, label: str) -> None:
        """Raise for a read run a fault ended (a dead broker, a full disk: as for a producer run, so it is
        healed or ends the suite) or that failed; a cut or too-short read is fine."""
        _check_fault(run)
        found = faults.FaultWatch(self.cluster, every_s=0).check()
        if found is not None:
            kind, reason = found
            raise _Stop(Status.FAULTED, f"{reason} (in {sc.id}'s {label})", kind)
        if run.stop_kind is StopKind.FAILED:
            raise ClusterError(f"{sc.id}: {label} failed: {run.stop_reason}")

    def _read(self, sc: Scenario, topic: str, workload: str, entry: Entry, records: int, label: str,
              deadline: float) -> ReadRun:
        self.progress.run_started(label)
        log = self.logdir / f"{sc.id}-{label.split('/')[0].replace(' ', '')}.log"
        left = max(1.0, deadline - time.monotonic())
        watch = faults.FaultWatch(self.cluster).check
        if workload == CONSUME:
            count = min(max(records, READ_MIN_RECORDS), _produced(entry))  # from the start of the topic
            cap = left if sc.id == REFERENCE_ID else min(left, self._read_cap(count))
            return read_side.consume_run(self.cluster, topic, count, sc.consumer, cap, log, watch)
        return read_side.latency_run(self.cluster, topic, sc.as_applied()["producer"], sc.consumer,
                                     min(left, read_side.LATENCY_CAP_S), log.with_suffix(".properties"), log, watch)

    def _read_cap(self, records: int) -> float:
        """How long a consumer of `records` may read: the reference's consumer time for as many records
        over the cliff threshold (a consumer that much slower is on a cliff, like the producer's early
        stop); before the reference has read, the shortest cap: a cut run keeps the rate it had."""
        ref = self.doc.reference()
        done = [r for r in (ref.read_runs if ref else []) if r.workload == CONSUME and r.complete and r.records]
        if not self.opts.early_stop:
            return read_side.CONSUME_MAX_S
        if not done:
            return read_side.CONSUME_MIN_CAP_S
        per_record = statistics.median(r.elapsed_s / r.records for r in done)
        return min(read_side.CONSUME_MAX_S,
                   max(read_side.CONSUME_MIN_CAP_S, per_record * records / self.opts.cliff_threshold))

    def _switch_to(self, sc: Scenario, entry: Entry) -> None:
        self.site = self.elsewhere.get(sc.id, self.home)
        entry.restart_forced = self._restart_if_needed(sc) or entry.restart_forced
        self.state.apply(sc.dynamic_broker())

    def _record_failure(self, entries: list[Entry], exc: Exception) -> None:
        if isinstance(exc, _Stop):
            status, reason = exc.status, str(exc)
            if exc.kind is StopKind.DISK_FULL:
                self.abort = faults.unprefixed(reason)
        else:
            dead = self.cluster.dead_nodes()
            status = Status.FAULTED if dead else Status.FAILED
            reason = f"{exc}" + (f" (broker node(s) {dead} died)" if dead else "")
        for entry in entries:
            entry.status, entry.status_reason = status, reason

    def _delete_topic(self, topic: str) -> None:
        if self.cluster.dead_nodes():
            self.site.stale_topics.append(topic)
            return
        try:
            self.admin.delete_topic(topic)
        except ClusterError:
            pass

    def _check_run(self, run: Run, index: int) -> None:
        """Raise for a run that hit a fault or failed; a cliff stop, the budget or a complete run is fine."""
        _check_fault(run)
        if run.stop_kind is StopKind.FAILED:
            dead = self.cluster.dead_nodes()
            if dead:
                raise _Stop(Status.FAULTED, faults.died(dead, f"run {index}"), StopKind.FAULT)
            raise ClusterError(f"perf run {index} failed: {run.stop_reason}")

    def _create_topic(self, sc: Scenario, topic: str) -> None:
        """The scenario's topic exactly as applied: partitions, replication factor, topic configs."""
        applied = dict(sc.as_applied()["topic"])
        partitions, replication = applied.pop("partitions"), applied.pop("replication.factor")
        self.admin.create_topic(topic, partitions, replication, {k: as_kafka_value(v) for k, v in applied.items()})

    def _restart_if_needed(self, sc: Scenario) -> bool:
        wanted = sc.restart_overrides()
        if wanted == self.site.overrides:
            return False
        managed = restartable(self.cluster)
        if managed is None:
            raise _Stop(Status.SKIPPED, f"needs a broker restart for {sorted(wanted or self.site.overrides)}; "
                                        f"the {self.cluster.backend} backend cannot restart brokers")
        self.progress.note(f"restarting brokers with {wanted or 'default read-only settings'}")
        managed.restart(wanted)
        self.site.overrides = dict(wanted)
        self._reconnect()
        return True

    def _warm_up(self, sc: Scenario, topic: str, deadline: float, entry: Entry) -> Run:
        """The warm-up, and once more if it was stopped on a cliff: that second brief attempt decides.
        Stopped too, it is kept as the first (stopped) run; finished, it was a longer warm-up. Confirming
        on a warm-up, which keeps fewer records quiet than a measured run, decides a cliff sooner."""
        records = self.opts.warmup()
        # the reference's warm-up figure stands in for the reference until it has a run: kept as measured
        quiet = measure.steady_state_after(records) if sc.id == REFERENCE_ID else measure.warmup_quiet(records)
        quiet = quiet if self.steady_state() else 0
        warm = self._one(sc, topic, records, deadline, "warmup", quiet)
        entry.warmup = warm
        if warm.stop_kind is not StopKind.CLIFF:
            return warm
        again = self._one(sc, topic, records, deadline, "warmup 2", quiet)
        if again.stop_kind is StopKind.CLIFF:
            entry.runs.append(again)
        else:
            entry.warmup_stopped, entry.warmup = warm, again
        return again

    def _stop_rule(self, sc: Scenario, quiet: int) -> measure.StopRule | None:
        """A fresh early-stop rule for one run, against the reference's figure so far (none when
        early stop is off, for the reference itself, or before the reference has a figure)."""
        reference = self.reference_mb()
        if not self.opts.early_stop or sc.id == REFERENCE_ID or not reference:
            return None
        unreported = measure.unreported_records(quiet, sc.as_applied()["producer"])
        return measure.cliff_stop_rule(reference, self.opts.cliff_threshold, unreported, quiet_ticks=quiet > 0)

    def steady_state(self) -> bool:
        """Runs leave their first records out of their figures (the perf tool's --warmup-records, 4.2
        on) only where every cluster's tool can: an upgrade check from 3.x measures both sides alike,
        over whole runs (docs/measurements.md, "Kafka 3.x")."""
        return all(site.cluster.release.producer_warmup for site in self.sites())

    def _one(self, sc: Scenario, topic: str, records: int, deadline: float, label: str,
             quiet: int | None = None) -> Run:
        """One perf run; `quiet` records are left out of its figures (default: a measured run's fifth,
        none where a release's tool cannot, see steady_state)."""
        self.progress.run_started(label)
        log = self.logdir / f"{sc.id}-{label.split('/')[0].replace(' ', '')}.log"
        if quiet is None:
            quiet = measure.steady_state_after(records) if self.steady_state() else 0
        return self.perf_run(self.cluster, topic, records, sc.as_applied()["producer"], deadline, log,
                             self._stop_rule(sc, quiet), on_line=self.progress.live,
                             throughput=sc.throughput_limit, watch=faults.FaultWatch(self.cluster).check,
                             quiet=quiet)


def _new_entry(sc: Scenario) -> Entry:
    return Entry(id=sc.id, description=sc.description, source=sc.source, settings_hash=sc.settings_hash(),
                 applied=sc.as_applied(), cliff=CliffSpec(**vars(sc.cliff)) if sc.cliff else None,
                 workloads=list(sc.workloads) if sc.reads() else None, started=environment.now())


def on_its_cliff(entry: Entry) -> bool:
    """On its cliff: the last EARLY_STOP_AFTER runs, the warm-up counted, were all stopped on it.
    Two independent runs agreeing decides it as surely as more would, in the time a healthy
    scenario's warm-up and one run take."""
    recent = entry.attempts()[-EARLY_STOP_AFTER:]
    return len(recent) == EARLY_STOP_AFTER and all(r.stop_kind is StopKind.CLIFF for r in recent)


def settled(rounds: int) -> Callable[[list[Entry]], bool]:
    """The self-test's stop: every canary in the group has the verdict beside the reference that it
    will have after all `rounds` (model.canary_settled), whatever the rounds left measure."""
    def done(entries: list[Entry]) -> bool:
        reference = next((e for e in entries if e.id == REFERENCE_ID), None)
        canaries = [e for e in entries if e.is_canary]
        return reference is not None and bool(canaries) and all(
            canary_settled(c, reference, _left(c, c.cliff.metric, rounds), _left(reference, c.cliff.metric, rounds))
            for c in canaries if c.cliff is not None)
    return done


def _left(entry: Entry, metric: str, rounds: int) -> int:
    """Runs of `metric` this entry will still measure in `rounds` rounds: none once decided on a cliff."""
    if on_its_cliff(entry) or (METRICS[metric].workload == CONSUME and reads_on_cliff(entry)):
        return 0
    return max(rounds - len(entry.runs), 0)


def _produced(entry: Entry) -> int:
    """Records this side's finished producer runs left in its topic: what its consumer can read."""
    return sum(r.records for r in entry.attempts() if r.complete)


def reads_on_cliff(entry: Entry) -> bool:
    """A consumer stopped at its cap twice running, as on_its_cliff is for the producer."""
    recent = [r for r in entry.read_runs if r.workload == CONSUME][-EARLY_STOP_AFTER:]
    return len(recent) == EARLY_STOP_AFTER and all(r.stopped_early for r in recent)


def _latest_rate(entry: Entry) -> float | None:
    ran = entry.attempts()
    return ran[-1].records_per_sec if ran else None


def _topic_name(sc: Scenario) -> str:
    return f"kcliff-{sc.id}-{uuid.uuid4().hex[:6]}"


def shared_topics(scenarios: list[Scenario]) -> list[str]:
    """A topic name per scenario, one topic for all whose topics are the same (partitions, replication,
    configs): interleaved sides then differ only in what their settings change, not in which topic's
    leaders, segments and page cache they happened to get."""
    by_spec: dict[str, str] = {}
    return [by_spec.setdefault(json.dumps(sc.as_applied()["topic"], sort_keys=True, default=str), _topic_name(sc))
            for sc in scenarios]


def _finish(entry: Entry, began: float) -> None:
    """Timings (wall, inside measured runs, harness overhead) and the summary."""
    measured = sum(r.elapsed_s for r in entry.runs)
    warm = sum(r.elapsed_s for r in entry.attempts()) - measured
    entry.wall_s = round(time.monotonic() - began, 2)
    entry.measured_s = round(measured, 2)
    entry.overhead_s = round(entry.wall_s - measured - warm, 2)
    entry.ended = environment.now()
    entry.resummarise()


def _check_fault(run: ToolRun) -> None:
    if run.stop_kind is not None and run.stop_kind.is_fault:
        raise _Stop(Status.FAULTED, run.stop_reason or "", run.stop_kind)


class _Stop(Exception):
    """Ends a group's measurement with this status (skipped, timed out, faulted)."""

    def __init__(self, status: Status, reason: str, kind: StopKind | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.kind = kind


def disk_needed(opts: Options, topics_at_once: int) -> int:
    """Bytes the largest phase writes: every record on three replicas, all on this one disk."""
    records = opts.warmup() + opts.repeats * opts.records
    return 3 * RECORD_SIZE * records * max(topics_at_once, 1) + faults.DISK_SLACK
