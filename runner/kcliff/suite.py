"""Run a list of scenarios on a cluster: apply each, warm up, measure N runs, record, clean up.

The results document is rewritten atomically after every scenario, so nothing measured is lost
when a later scenario fails or the run is interrupted.
"""

from __future__ import annotations

import json
import random
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import environment, measure, results
from .admin import Admin
from .apply import BrokerState
from .backends.base import Cluster, restartable
from .errors import ClusterError
from .progress import Progress
from .scenario import REFERENCE_ID, Scenario
from .settings import INVARIANTS, as_kafka_value

CLIFF_THRESHOLD = 0.5  # a scenario below half the reference's MB/s is on a cliff
EARLY_STOP_AFTER = 2     # runs in a row (the warm-up counts) stopped on a cliff decide a scenario
PRIME_S = 45.0           # of unmeasured load before the first measurement (see SuiteRunner.prime)
PRIME_RECORDS = 30_000   # per priming run, so JVM start-ups do not eat the priming time
HEAL_SYNC_S = 180.0      # for a healed broker to catch up with every partition it replicates


@dataclass
class Options:
    records: int = 100_000
    warmup_records: int | None = None
    repeats: int = 3
    budget_s: float = 600.0
    early_stop: bool = True
    cliff_threshold: float = CLIFF_THRESHOLD
    prime_s: float = PRIME_S
    run_s: float | None = None  # stretch measured runs to about this long (see records_for)

    def records_for(self, *entries: dict[str, Any]) -> int:
        """Records per measured run: --records, or more where the latest runs (the warm-ups before the
        first) show that would take under run_s seconds at their mean rate. At 30 MB/s, 20,000 records
        last 0.6 s and runs scattered by +-30%; a short warm-up alone underestimated the rate 2-3x
        (JVM start). Given the entries of one interleaved round, every side of it runs the same count."""
        rates = [r for r in (_latest_rate(e) for e in entries) if r]
        if self.run_s is None or not rates:
            return self.records
        return max(self.records, min(int(sum(rates) / len(rates) * self.run_s), 20 * self.records))

    def warmup(self) -> int:
        return self.warmup_records if self.warmup_records is not None else max(self.records // 2, 1000)


def order(scenarios: list[Scenario]) -> list[Scenario]:
    """Reference first, then scenarios grouped by the read-only broker overrides they need, so the
    brokers restart once per distinct set (default set first), file order kept inside a group."""
    def key(item: tuple[int, Scenario]) -> tuple:
        index, sc = item
        overrides = tuple(sorted(sc.restart_overrides().items()))
        return (sc.id != REFERENCE_ID, overrides != (), overrides, index)
    return [sc for _, sc in sorted(enumerate(scenarios), key=key)]


def round_orders(sides: int, rounds: int, rng: random.Random) -> list[list[int]]:
    """The order of the sides in each interleaved round: the rotations of one random order, so every
    side runs in every position equally often (drift within a round cancels), in shuffled rounds.
    A fixed A B, B A alternation let a slowdown that came and went every few runs side with one side
    for minutes (an A/A check of 18 rounds measured 1.13x where its rounds said +-4%); in random order
    it falls on either side by chance, and the rounds' spread counts it."""
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


def new_document(cluster: Cluster, opts: Options, suites: list[str], kafka_version: str) -> dict[str, Any]:
    run_id = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + uuid.uuid4().hex[:4]
    return {
        "schema": results.SCHEMA, "schema_version": results.SCHEMA_VERSION, "run_id": run_id, "status": "running",
        "environment": environment.collect(cluster, kafka_version),
        "parameters": {"records": opts.records, "warmup_records": opts.warmup(), "repeats": opts.repeats,
                       "record_size": 1024, "budget_s": opts.budget_s, "suites": suites,
                       "early_stop": opts.early_stop, "cliff_threshold": opts.cliff_threshold,
                       "prime_s": opts.prime_s, "run_s": opts.run_s},
        "scenarios": [],
    }


class SuiteRunner:
    def __init__(self, cluster: Cluster, opts: Options, doc: dict[str, Any], out: Path, logdir: Path,
                 progress: Progress | None = None) -> None:
        self.cluster = cluster
        self.opts = opts
        self.doc = doc
        self.out = out
        self.logdir = logdir
        self.progress = progress or Progress()
        self.logdir.mkdir(parents=True, exist_ok=True)
        self.admin = Admin(cluster.admin_bootstrap)
        self.state = BrokerState(self.admin, self.admin.broker_ids())
        self.overrides: dict[str, Any] = {}
        self.stale_topics: list[str] = []  # not deleted while a broker was down
        self.abort: str | None = None  # a fault no retry can mend (a full disk): ends the suite

    def run(self, scenarios: list[Scenario]) -> dict[str, Any]:
        unshowable = {sc.id: why for sc in scenarios if (why := self._unshowable(sc))}
        planned = [sc for sc in order(scenarios) if sc.id not in unshowable]
        group = interleaved_group(planned)
        rest = [sc for sc in planned if sc not in group]
        self._warn_about_storage()
        self._warn_about_load()
        self._check_space(len(group))
        try:
            self.prime()
            if group:
                self.measure_group(group)
            for index, sc in enumerate(rest, len(group) + 1):
                self.progress.scenario(index, len(planned), sc.id)
                entry = self.measure_with_retry(sc)
                self.doc["scenarios"].append(entry)
                results.save(self.doc, self.out)
                self.progress.scenario_done(entry, self.reference_mb())
                self._stop_if_unmendable()
            for sc in scenarios:
                if sc.id in unshowable:
                    self._record_skip(sc, unshowable[sc.id])
            self.doc["status"] = "complete"
        except KeyboardInterrupt:
            self.doc["status"] = "interrupted"
            raise
        except BaseException:
            self.doc["status"] = "failed"
            raise
        finally:
            self.doc["environment"]["ended"] = environment.now()
            results.save(self.doc, self.out)
            self.restore()
        return self.doc

    def _unshowable(self, sc: Scenario) -> str | None:
        """Why this cluster cannot show the canary's cliff (its round trip is known to be too short)."""
        rtt, needed = self.cluster.client_rtt_ms(), sc.cliff.min_client_rtt_ms if sc.cliff else 0.0
        if rtt is None or rtt >= needed:
            return None
        return (f"its cliff needs a producer-broker round trip of at least {needed:g} ms to show; "
                f"this cluster's is {rtt:g} ms (give --client-rtt-ms {needed:g} or more)")

    def _record_skip(self, sc: Scenario, reason: str) -> None:
        entry = _new_entry(sc)
        entry["status"], entry["status_reason"] = "skipped", reason
        _finish(entry, time.monotonic())
        self.doc["scenarios"].append(entry)
        results.save(self.doc, self.out)
        self.progress.note(f"{sc.id}: skipped: {reason}")

    def _check_space(self, topics_at_once: int) -> None:
        root = self.cluster.data_root()
        if root is None:
            return
        needed, free = disk_needed(self.opts, topics_at_once), shutil.disk_usage(root).free
        if free < needed:
            raise ClusterError(f"not enough disk space for this run in {root}: {free / 2 ** 20:.0f} MB free, "
                               f"about {needed / 2 ** 20:.0f} MB needed (every record on three replicas); "
                               "free space, give --workdir on a larger disk, or lower --records/--repeats")

    def _warn_about_storage(self) -> None:
        env = self.doc["environment"]
        if environment.fsync_is_free(env):
            probe = env["storage"]
            self.progress.warn(f"an fsync in {probe['path']} ({probe['filesystem']}) takes "
                               f"{probe['fsync_us']:.0f} us, so it reaches no disk: fsync cliffs such as "
                               "log.flush.interval.messages=1 cannot show; put --workdir on a real disk")

    def _warn_about_load(self) -> None:
        busy = environment.load_warning(self.doc["environment"])
        if busy:
            self.progress.warn(f"the machine is not quiet: {busy}")

    def prime(self) -> None:
        """Unmeasured runs on a throwaway topic for prime_s seconds (at least one). Measured on the
        2-core machine, ten back-to-back 30K-record runs on a fresh cluster went 3.3 -> 8-9 MB/s over
        the first ~45 s (the brokers' JIT): a reference measured straight away came out slowest of all
        and made the canaries look healthy beside it."""
        topic = f"kcliff-prime-{uuid.uuid4().hex[:6]}"
        self.progress.note(f"priming the brokers ({self.opts.prime_s:.0f}s of unmeasured load)")
        self.admin.create_topic(topic, 6, 3, {})
        began, figures = time.monotonic(), []
        try:
            while True:
                run = measure.perf_run(self.cluster, topic, max(self.opts.warmup(), PRIME_RECORDS),
                                       dict(INVARIANTS["producer"]), time.monotonic() + self.opts.budget_s,
                                       self.logdir / f"prime-{len(figures) + 1}.log",
                                       watch=_FaultWatch(self.cluster).check)
                figures.append(round(run.mb_per_sec or 0.0, 2))
                if run.stop_reason and run.stop_reason.startswith(FAULT):
                    raise ClusterError(f"while priming the brokers: {run.stop_reason.removeprefix(FAULT).strip()}")
                if not run.complete or time.monotonic() - began >= self.opts.prime_s:
                    break
        finally:
            self.admin.delete_topic(topic)
        self.doc["prime"] = {"seconds": round(time.monotonic() - began, 1), "mb_per_sec": figures}

    def restore(self) -> None:
        """Put back the dynamic broker configs found at the start (also after measure_interleaved)."""
        try:
            self.state.restore()
        except (ClusterError, KeyboardInterrupt):
            pass  # the cluster may already be gone; a local one is torn down anyway

    def reference_mb(self) -> float | None:
        """The reference's median MB/s so far; its warm-up's while it has no measured run yet."""
        ref = results.scenario_entry(self.doc, REFERENCE_ID)
        if not ref:
            return None
        return results.median(ref, "mb_per_sec") or (ref.get("warmup") or {}).get("mb_per_sec")

    def measure_group(self, group: list[Scenario]) -> list[dict[str, Any]]:
        """The reference and the canaries, interleaved round by round: measured one after the other,
        the brokers' slow warming (the reference went 11.6 -> 21 MB/s over four rounds here) made a
        canary measured last look healthy beside a reference measured first."""
        self.progress.note(f"{', '.join(sc.id for sc in group)}: interleaved, {self.opts.repeats} rounds")
        entries = self.measure_interleaved(group, self.opts.repeats)
        self._stop_if_unmendable()
        if any(e["status"] == "faulted" for e in entries):
            self.progress.note(f"fault: {entries[0]['status_reason']}; healing the cluster and retrying once")
            try:
                self._heal()
            except ClusterError as exc:
                raise ClusterError(f"{entries[0]['status_reason']}; the cluster could not be healed: {exc}") from None
            for entry in entries:
                self.doc["scenarios"].remove(entry)
            retry = self.measure_interleaved(group, self.opts.repeats)
            for again, entry in zip(retry, entries):
                again["faulted_attempt"] = entry
            results.save(self.doc, self.out)
            entries = retry
        for index, entry in enumerate(entries, 1):
            self.progress.scenario(index, len(entries), entry["id"])
            self.progress.scenario_done(entry, self.reference_mb())
        return entries

    def measure_with_retry(self, sc: Scenario) -> dict[str, Any]:
        """A scenario hit by a fault (a broker died) is recorded as faulted, never as a regression
        or cliff; the cluster is healed and the scenario measured once more."""
        entry = self.measure_scenario(sc)
        if entry["status"] != "faulted" or self.abort:
            return entry
        self.progress.note(f"fault in {sc.id}: {entry['status_reason']}; healing the cluster and retrying once")
        try:
            self._heal()
        except ClusterError as exc:
            entry["status_reason"] += f"; the cluster could not be healed: {exc}"
            raise ClusterError(f"{sc.id}: {entry['status_reason']}") from None
        retry = self.measure_scenario(sc)
        retry["faulted_attempt"] = entry
        return retry

    def _heal(self) -> None:
        managed = restartable(self.cluster)
        if managed is None or not managed.abilities.heal:
            raise ClusterError(f"the {self.cluster.backend} backend cannot restart a broker")
        managed.heal()
        self.admin = Admin(self.cluster.admin_bootstrap)
        self.state.admin = self.admin
        for topic in self.stale_topics:
            self._delete_topic(topic)
        self.stale_topics = []
        # measuring while the healed broker still catches up would measure the catching up
        self.admin.wait_in_sync(HEAL_SYNC_S)

    def measure_scenario(self, sc: Scenario) -> dict[str, Any]:
        entry = _new_entry(sc)
        began = time.monotonic()
        topic = _topic_name(sc)
        created = False
        try:
            self._switch_to(sc, entry)
            self._create_topic(sc, topic)
            created = True
            self._measure_runs(sc, topic, began + self.opts.budget_s, entry)
        except (_Skip, _Fault, ClusterError) as exc:
            self._record_failure([entry], exc)
        finally:
            if created:
                self._delete_topic(topic)
            _finish(entry, began)
        return entry

    def measure_interleaved(self, scenarios: list[Scenario], rounds: int) -> list[dict[str, Any]]:
        """Each round measures every scenario once, in the order round_orders gives, so drift on a
        shared runner hits all sides alike. Each side has its own warm-up, and its own topic only where
        its topic differs (shared_topics); broker settings switch before each run.
        The entries are in the results file from the start and saved after every run."""
        entries = [_new_entry(sc) for sc in scenarios]
        seed = random.SystemRandom().randrange(2**32)  # recorded, so the order can be drawn again
        orders = round_orders(len(scenarios), rounds, random.Random(seed))
        for entry in entries:
            entry["status"] = "running"
            entry["interleaved_with"] = [e["id"] for e in entries if e is not entry]
            entry["order_seed"] = seed
        self.doc["scenarios"].extend(entries)
        topics = shared_topics(scenarios)
        began = time.monotonic()
        deadline = began + self.opts.budget_s * len(scenarios)
        created: list[str] = []
        try:
            for sc, topic, entry in zip(scenarios, topics, entries):
                self._switch_to(sc, entry)
                if topic not in created:
                    self._create_topic(sc, topic)
                    created.append(topic)
                self._warm_up(sc, topic, deadline, entry)
            sides = list(zip(scenarios, topics, entries))
            for i, round_order in enumerate(orders, start=1):
                # the same count for every side of a round, so their ratio is not also one of run lengths
                records = self.opts.records_for(*(e for e in entries if not _decided(e)))
                for position, (sc, topic, entry) in enumerate(sides[k] for k in round_order):
                    if _decided(entry):
                        continue  # on its cliff twice running: more rounds would only crawl
                    self._switch_to(sc, entry)
                    run = self._one(sc, topic, records, deadline, f"round {i}/{rounds}")
                    entry["runs"].append({**run.as_dict(), "position": position})
                    entry["summary"] = results.summarise(entry["runs"])
                    results.save(self.doc, self.out)
                    self._check_run(run, i)
                    if _timed_out(run):
                        raise _OutOfTime(f"time budget of {self.opts.budget_s * len(scenarios):.0f}s "
                                         f"exhausted in round {i}")
            for entry in entries:
                on_cliff = _decided(entry)
                entry["status"] = "cliff" if on_cliff else "ok"
                entry["status_reason"] = entry["runs"][-1]["stop_reason"] if on_cliff else None
        except (_Skip, _Fault, _OutOfTime, ClusterError) as exc:
            self._record_failure(entries, exc)
        except KeyboardInterrupt:
            for entry in entries:
                entry["status"], entry["status_reason"] = "interrupted", "interrupted mid-round"
            raise
        finally:
            for topic in created:
                self._delete_topic(topic)
            for entry in entries:
                _finish(entry, began)
            results.save(self.doc, self.out)
        return entries

    def _switch_to(self, sc: Scenario, entry: dict[str, Any]) -> None:
        entry["restart_forced"] = self._restart_if_needed(sc) or entry["restart_forced"]
        self.state.apply(sc.dynamic_broker())

    def _stop_if_unmendable(self) -> None:
        if self.abort:
            raise ClusterError(self.abort)

    def _record_failure(self, entries: list[dict[str, Any]], exc: Exception) -> None:
        if isinstance(exc, _Skip):
            status, reason = "skipped", str(exc)
        elif isinstance(exc, _OutOfTime):
            status, reason = "timed_out", str(exc)
        elif isinstance(exc, _Fault):
            status, reason = "faulted", str(exc)
        else:
            dead = self.cluster.dead_nodes()
            status = "faulted" if dead else "failed"
            reason = f"{exc}" + (f" (broker node(s) {dead} died)" if dead else "")
        for entry in entries:
            entry["status"], entry["status_reason"] = status, reason
        if DISK_FULL in reason:
            self.abort = reason.split(DISK_FULL, 1)[1].strip()

    def _delete_topic(self, topic: str) -> None:
        if self.cluster.dead_nodes():
            self.stale_topics.append(topic)
            return
        try:
            self.admin.delete_topic(topic)
        except ClusterError:
            pass

    def _check_run(self, run: measure.Run, index: int) -> None:
        """Raise for a run that hit a fault or failed; a cliff stop or a complete run is fine."""
        if run.stop_reason and run.stop_reason.startswith(FAULT):
            raise _Fault(run.stop_reason)
        if not run.complete and not run.stopped_early and not _timed_out(run):
            dead = self.cluster.dead_nodes()
            if dead:
                raise _Fault(f"{FAULT} broker node(s) {dead} died during run {index}")
            raise ClusterError(f"perf run {index} failed: {run.stop_reason}")

    def _create_topic(self, sc: Scenario, topic: str) -> None:
        """The scenario's topic exactly as applied: partitions, replication factor, topic configs."""
        applied = dict(sc.as_applied()["topic"])
        partitions, replication = applied.pop("partitions"), applied.pop("replication.factor")
        self.admin.create_topic(topic, partitions, replication, {k: as_kafka_value(v) for k, v in applied.items()})

    def _restart_if_needed(self, sc: Scenario) -> bool:
        wanted = sc.restart_overrides()
        if wanted == self.overrides:
            return False
        managed = restartable(self.cluster)
        if managed is None:
            raise _Skip(f"needs a broker restart for {sorted(wanted or self.overrides)}; "
                        f"the {self.cluster.backend} backend cannot restart brokers")
        self.progress.note(f"restarting brokers with {wanted or 'default read-only settings'}")
        managed.restart(wanted)
        self.overrides = dict(wanted)
        self.admin = Admin(self.cluster.admin_bootstrap)
        self.state.admin = self.admin
        return True

    def _warm_up(self, sc: Scenario, topic: str, deadline: float, entry: dict[str, Any]) -> measure.Run:
        """The warm-up, and once more if it was stopped on a cliff: that second brief attempt decides.
        Stopped too, it is kept as the first (stopped) run; finished, it was a longer warm-up. A
        measured run keeps a fifth of its records quiet, which at a cliff's 3.5 MB/s drained for 6 s
        before its first line: confirming on it took inflight-1 19.6 s against 14.6 s for the median
        healthy scenario's warm-up and three runs."""
        records = self.opts.warmup()
        # the reference's warm-up figure stands in for the reference until it has a run: kept as measured
        quiet = measure.steady_state_after(records) if sc.id == REFERENCE_ID else measure.warmup_quiet(records)
        warm = self._one(sc, topic, records, deadline, "warmup", quiet)
        entry["warmup"] = warm.as_dict()
        if not warm.stopped_early:
            return warm
        again = self._one(sc, topic, records, deadline, "warmup 2", quiet)
        if again.stopped_early:
            entry["runs"].append(again.as_dict())
        else:
            entry["warmup_stopped"], entry["warmup"] = entry["warmup"], again.as_dict()
        return again

    def _measure_runs(self, sc: Scenario, topic: str, deadline: float, entry: dict[str, Any]) -> None:
        warm = self._warm_up(sc, topic, deadline, entry)
        if warm.stop_reason and warm.stop_reason.startswith(FAULT):
            raise _Fault(warm.stop_reason)
        if _timed_out(warm):
            entry["status"], entry["status_reason"] = "timed_out", "warm-up did not finish in the time budget"
            return
        if _decided(entry):
            entry["status"], entry["status_reason"] = "cliff", warm.stop_reason
            return
        for i in range(1, self.opts.repeats + 1):
            run = self._one(sc, topic, self.opts.records_for(entry), deadline, f"run {i}/{self.opts.repeats}")
            entry["runs"].append(run.as_dict())
            self._check_run(run, i)
            if _timed_out(run):
                entry["status"] = "timed_out"
                entry["status_reason"] = f"time budget of {self.opts.budget_s:.0f}s exhausted in run {i}"
                return
            if _decided(entry):
                entry["status"], entry["status_reason"] = "cliff", run.stop_reason
                return

    def _stop_rule(self, sc: Scenario, quiet: int) -> measure.StopRule | None:
        """A fresh early-stop rule for one run, against the reference's figure so far (none when
        early stop is off, for the reference itself, or before the reference has a figure)."""
        reference = self.reference_mb()
        if not self.opts.early_stop or sc.id == REFERENCE_ID or not reference:
            return None
        unreported = measure.unreported_records(quiet, sc.as_applied()["producer"])
        return measure.cliff_stop_rule(reference, self.opts.cliff_threshold, unreported)

    def _one(self, sc: Scenario, topic: str, records: int, deadline: float, label: str,
             quiet: int | None = None) -> measure.Run:
        """One perf run; `quiet` records are left out of its figures (default: a measured run's fifth)."""
        self.progress.run_started(label)
        log = self.logdir / f"{sc.id}-{label.split('/')[0].replace(' ', '')}.log"
        quiet = measure.steady_state_after(records) if quiet is None else quiet
        return measure.perf_run(self.cluster, topic, records, sc.as_applied()["producer"], deadline, log,
                                self._stop_rule(sc, quiet), on_line=self.progress.live,
                                throughput=sc.throughput_limit, watch=_FaultWatch(self.cluster).check, quiet=quiet)


def _new_entry(sc: Scenario) -> dict[str, Any]:
    return {"id": sc.id, "description": sc.description, "source": sc.source, "settings_hash": sc.settings_hash(),
            "applied": sc.as_applied(), "cliff": vars(sc.cliff) if sc.cliff else None, "status": "ok",
            "status_reason": None, "restart_forced": False, "started": environment.now(), "warmup": None,
            "runs": [], "summary": None}


def attempts(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """Every perf run of a scenario in the order they ran: a stopped first warm-up, the warm-up, the runs."""
    return [r for r in (entry.get("warmup_stopped"), entry["warmup"], *entry["runs"]) if r]


def _decided(entry: dict[str, Any]) -> bool:
    """On its cliff: the last EARLY_STOP_AFTER runs, the warm-up counted, were all stopped on it.
    Two independent runs agreeing decides it as surely as more would, in the time a healthy
    scenario's warm-up and one run take."""
    recent = attempts(entry)[-EARLY_STOP_AFTER:]
    return len(recent) == EARLY_STOP_AFTER and all(r["stopped_early"] for r in recent)


def _latest_rate(entry: dict[str, Any]) -> float | None:
    ran = attempts(entry)
    return ran[-1].get("records_per_sec") if ran else None


def _topic_name(sc: Scenario) -> str:
    return f"kcliff-{sc.id}-{uuid.uuid4().hex[:6]}"


def shared_topics(scenarios: list[Scenario]) -> list[str]:
    """A topic name per scenario, one topic for all whose topics are the same (partitions, replication,
    configs): interleaved sides then differ only in what their settings change, not in which topic's
    leaders, segments and page cache they happened to get."""
    by_spec: dict[str, str] = {}
    return [by_spec.setdefault(json.dumps(sc.as_applied()["topic"], sort_keys=True, default=str), _topic_name(sc))
            for sc in scenarios]


def _finish(entry: dict[str, Any], began: float) -> None:
    """Timings (wall, inside measured runs, harness overhead) and the summary."""
    measured = sum(r["elapsed_s"] for r in entry["runs"])
    warm = sum(r["elapsed_s"] for r in attempts(entry)) - measured
    entry["wall_s"] = round(time.monotonic() - began, 2)
    entry["measured_s"] = round(measured, 2)
    entry["overhead_s"] = round(entry["wall_s"] - measured - warm, 2)
    entry["ended"] = environment.now()
    entry["summary"] = results.summarise(entry["runs"])


class _Skip(Exception):
    pass


class _Fault(Exception):
    pass


class _OutOfTime(Exception):
    pass


FAULT = "fault:"
DISK_FULL = "disk full:"
DISK_FREE_MIN = 16 * 2 ** 20
DISK_SLACK = 128 * 2 ** 20  # metadata log, index files, broker logs


class _FaultWatch:
    """Looks for dead brokers and a full data disk at most every `every_s` seconds (docker inspect is
    not free)."""

    def __init__(self, cluster: Cluster, every_s: float = 2.0) -> None:
        self.cluster = cluster
        self.every_s = every_s
        self.last = 0.0

    def check(self) -> str | None:
        if time.monotonic() - self.last < self.every_s:
            return None
        self.last = time.monotonic()
        dead = self.cluster.dead_nodes()
        if dead:
            return f"{FAULT} broker node(s) {dead} died"
        return disk_full(self.cluster.data_root())


def disk_full(root: Path | None) -> str | None:
    """A reason when the brokers' disk is full: Kafka then takes the log dir offline and the brokers
    stay up accepting nothing, which no retry can mend."""
    if root is None:
        return None
    free = shutil.disk_usage(root).free
    if free >= DISK_FREE_MIN:
        return None
    return (f"{FAULT} {DISK_FULL} the disk holding {root} has {free / 2 ** 20:.0f} MB free, so the brokers "
            "cannot write their logs; free space there or give --workdir on a larger disk")


def disk_needed(opts: Options, topics_at_once: int) -> int:
    """Bytes the largest phase writes: every record on three replicas, all on this one disk."""
    records = opts.warmup() + opts.repeats * opts.records
    return 3 * 1024 * records * max(topics_at_once, 1) + DISK_SLACK


def _timed_out(run: measure.Run) -> bool:
    return run.stop_reason == "time budget exhausted"
