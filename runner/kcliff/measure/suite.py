"""Run a list of scenarios on a cluster: apply each, warm up, measure N runs, record, clean up.

The parts: plan.py (what is measured, in which order), rounds.py and read_round.py (a group measured
round by round), sites.py (the clusters and what mends them), priming.py, document.py (the results
document). This module puts them in sequence and retries a group once after healing a fault.
The results document is rewritten atomically after every scenario, so nothing measured is lost
when a later scenario fails or the run is interrupted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from pathlib import Path
from typing import Callable, ContextManager, Iterator

from kcliff.backends.admin import Admin
from kcliff.backends.base import Cluster
from kcliff.errors import ClusterError
from kcliff.measure import environment, faults, priming
from kcliff.measure import producer as measure
from kcliff.measure.apply import BrokerState
from kcliff.measure.document import skipped
from kcliff.measure.options import Options, disk_needed
from kcliff.measure.plan import Decided, FollowUp, Group, plan
from kcliff.measure.progress import Progress
from kcliff.measure.rig import Measure, Rig
from kcliff.measure.rounds import Rounds
from kcliff.measure.sites import Connect, Site
from kcliff.results.model import Entry, ResultsDoc, RunStatus, Status
from kcliff.scenario.suites import Scenario


class SuiteRunner:
    """Measures scenarios on `cluster` through `admin` (a new one from `connect` after a restart or a
    heal), runs made by `perf_run`, and writes everything into `doc`, saved to `out` as it goes."""

    def __init__(self, cluster: Cluster, admin: Admin, opts: Options, doc: ResultsDoc, out: Path, logdir: Path,
                 progress: Progress | None = None, perf_run: Measure = measure.perf_run,
                 connect: Connect = Admin) -> None:
        self.opts = opts
        logdir.mkdir(parents=True, exist_ok=True)
        self.rig = Rig(Site.open(cluster, admin, connect), doc, out, logdir, progress or Progress(), perf_run)

    @property
    def doc(self) -> ResultsDoc:
        return self.rig.doc

    @property
    def progress(self) -> Progress:
        return self.rig.progress

    @property
    def cluster(self) -> Cluster:
        return self.rig.home.cluster

    @property
    def admin(self) -> Admin:
        return self.rig.home.admin

    @property
    def state(self) -> BrokerState:
        return self.rig.home.state

    def measure_elsewhere(self, sc: Scenario, cluster: Cluster, admin: Admin, kafka_version: str,
                          matched_warmth: bool = True) -> None:
        """Measure `sc` on `cluster`, of `kafka_version`, from now on (the head of an upgrade check, or of a
        check through a fault alone whose sides restart differently: failover_side.head_apart). Its fresh
        brokers take `sc`'s read-only settings first, then are primed for as long as the home cluster has
        carried load (its priming and the self-test), so neither side is measured on colder brokers; without
        `matched_warmth` for the priming asked only (an outage's figures are timeouts, not JIT)."""
        home = self.rig.home
        site = Site.open(cluster, admin, home.connect, kafka_version)
        self.rig.elsewhere[sc.id] = site
        site.restart_for(sc, self.progress)
        warm_s = time.monotonic() - home.loaded_since if home.loaded_since is not None and matched_warmth else 0.0
        priming.prime(self.rig, site, self.opts, max(self.opts.prime_s, warm_s))

    @contextlib.contextmanager
    def apart(self, scenarios: list[Scenario], start: Callable[[str], ContextManager[Cluster]],
              kafka_version: str) -> Iterator[None]:
        """Within the block, each of `scenarios` is measured on a cluster `start` gives it (named after it, stopped
        when the block ends), its read-only settings taken and primed at once: a self-test's canary apart
        (failover_side.canary_apart), which run() then interleaves with the reference."""
        with contextlib.ExitStack() as clusters:
            try:
                for sc in scenarios:
                    cluster = clusters.enter_context(start(f"cluster-{sc.id}"))
                    self.measure_elsewhere(sc, cluster, self.rig.home.connect(cluster.admin_bootstrap),
                                           kafka_version, False)
                yield
            finally:
                for sc in scenarios:  # its cluster stops with the block: nothing may restore or heal it after
                    self.rig.elsewhere.pop(sc.id, None)

    def run(self, scenarios: list[Scenario], follow_up: FollowUp | None = None,
            settled: Decided | None = None, read_baseline: bool = True) -> ResultsDoc:
        """Reference and canaries interleaved (ended early once `settled` says their outcome is
        certain), then every other scenario on its own, then the skipped, then the group `follow_up`
        gives once those are measured. `read_baseline`: see suites.reading_reference."""
        planned = plan(scenarios, self.cluster, read_baseline, frozenset(self.rig.elsewhere))
        self._warn_about_host()
        faults.check_space(self.cluster.data_root(), disk_needed(self.opts, len(planned.interleaved)))
        try:
            self.prime()
            if planned.interleaved:
                self.progress.note(f"{', '.join(sc.id for sc in planned.interleaved)}: interleaved, "
                                   f"{self.opts.repeats} rounds")
                self.measure_group(planned.interleaved, self.opts.repeats, settled)
            for index, sc in enumerate(planned.alone, len(planned.interleaved) + 1):
                self.progress.scenario(index, planned.measured, sc.id)
                self.measure_group([sc], self.opts.repeats, self._beside_reference(sc, settled))
            for sc in scenarios:
                if sc.id in planned.unshowable:
                    self._record_skip(sc, planned.unshowable[sc.id])
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
        self.rig.save()

    def prime(self) -> None:
        """The home cluster's priming (priming.prime), for opts.prime_s seconds."""
        priming.prime(self.rig, self.rig.home, self.opts, self.opts.prime_s)

    def restore(self) -> None:
        """Put back the dynamic broker configs found at the start (also after measure_group)."""
        for site in self.rig.sites():
            site.restore()

    def steady_state(self) -> bool:
        return self.rig.steady_state()

    def reference_mb(self) -> float | None:
        return self.rig.reference_mb()

    def measure_interleaved(self, scenarios: list[Scenario], rounds: int, decided: Decided | None = None,
                            opts: Options | None = None) -> list[Entry]:
        """One group, round by round (rounds.Rounds), with the suite's options unless given others."""
        return Rounds(self.rig, opts or self.opts).measure(scenarios, rounds, decided)

    def _beside_reference(self, sc: Scenario, settled: Decided | None) -> Decided | None:
        """A canary measured on its own (it needs a broker restart) stops as the interleaved ones do, by
        `settled`, beside the reference's runs measured before it."""
        reference = self.doc.reference()
        if settled is None or reference is None or sc.cliff is None:
            return None
        return lambda entries: settled([reference, *entries])

    def measure_group(self, group: list[Scenario], rounds: int, decided: Decided | None = None,
                      opts: Options | None = None) -> list[Entry]:
        """Scenarios measured round by round, interleaved (a lone scenario is a group of one). A group hit
        by a fault (a broker died) is recorded as faulted, never as a regression or cliff; the cluster is
        healed and the group measured once more. Interleaved, the brokers' slow warming hits every side
        alike instead of flattering the side measured last."""
        entries = self.measure_interleaved(group, rounds, decided, opts)
        if self.rig.abort is None and any(e.status is Status.FAULTED for e in entries):
            reason = next(e.status_reason for e in entries if e.status is Status.FAULTED)
            self.progress.note(f"fault in {', '.join(sc.id for sc in group)}: {reason}; "
                               "healing the cluster and retrying once")
            try:
                for site in self.rig.sites():
                    site.heal()
            except ClusterError as exc:
                for entry in entries:
                    entry.status_reason = f"{entry.status_reason}; the cluster could not be healed: {exc}"
                self.save()
                raise ClusterError(f"{', '.join(sc.id for sc in group)}: {entries[0].status_reason}") from None
            for entry in entries:
                self.doc.scenarios.remove(entry)
            retry = self.measure_interleaved(group, rounds, decided, opts)
            for again, entry in zip(retry, entries):
                again.faulted_attempt = entry
            self.save()
            entries = retry
        for entry in entries:
            if len(entries) > 1:
                self.progress.scenario(entries.index(entry) + 1, len(entries), entry.id)
            self.progress.scenario_done(entry, self.reference_mb())
        if self.rig.abort is not None:
            raise ClusterError(self.rig.abort)
        return entries

    def _follow(self, group: Group | None) -> None:
        if group is None or not group.scenarios or self.rig.abort:
            return
        self.progress.note(f"{', '.join(sc.id for sc in group.scenarios)}: interleaved, {group.rounds} rounds")
        self.measure_group(group.scenarios, group.rounds, opts=dataclasses.replace(self.opts, run_s=group.run_s))

    def _record_skip(self, sc: Scenario, reason: str) -> None:
        self.doc.scenarios.append(skipped(sc, reason))
        self.save()
        self.progress.note(f"{sc.id}: skipped: {reason}")

    def _warn_about_host(self) -> None:
        """Said before measuring: what this machine does to the figures (free fsyncs, other load)."""
        env = self.doc.environment
        if environment.fsync_is_free(env):
            probe = env["storage"]
            self.progress.warn(f"an fsync in {probe['path']} ({probe['filesystem']}) takes "
                               f"{probe['fsync_us']:.0f} us, so it reaches no disk: fsync cliffs such as "
                               "log.flush.interval.messages=1 cannot show; put --workdir on a real disk")
        busy = environment.load_warning(env)
        if busy:
            self.progress.warn(f"the machine is not quiet: {busy}")
