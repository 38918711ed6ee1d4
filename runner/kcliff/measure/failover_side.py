"""A side's run through a fault, after its producer run on the same topic (measure/failover.py): the
scenario's producer at a fixed rate and a member of a consumer group with its consumer settings, a
broker killed meanwhile; the run's figures become a ReadRun of workload `failover`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from kcliff.backends.admin import Admin
from kcliff.backends.base import Cluster, faultable
from kcliff.measure import failover, member_kill
from kcliff.measure.failover import FailoverRun
from kcliff.measure.rate_output import FailoverFigures
from kcliff.results.metrics import CATCH_UP, METRICS, RECOVERY, STALL, UNAVAILABLE, Fault, Workload
from kcliff.results.model import ReadRun, StopKind
from kcliff.scenario import combinations, settings
from kcliff.scenario.rate import Rate
from kcliff.scenario.suites import Scenario

WARMUP_S = 2.0
# Each step of the fault (leaders elected elsewhere, the cluster whole, the consumer current) is waited
# for twice the broker's session timeout and this much more: a step still unfinished then is reported as
# longer than its bound, and the run is as long as the settings make the outage, not a fixed length.
BOUND_SLACK_S = 10.0


def bound_s(sc: Scenario, cap_s: float | None = None) -> float:
    """How long each step of the scenario's fault is waited for: what its settings make it last, twice;
    no longer than `cap_s` (Options.fault_bound_s) where one is given."""
    own = member_bound_s(sc) if sc.fault is Fault.MEMBER_KILL else broker_bound_s(sc)
    return own if cap_s is None else min(own, cap_s)


def broker_bound_s(sc: Scenario) -> float:
    """A broker's fault: twice the session after which the controller fences a broker it no longer hears."""
    session_ms = int(sc.broker.get("broker.session.timeout.ms",
                                   settings.require("broker", "broker.session.timeout.ms").default))
    return 2 * session_ms / 1000 + BOUND_SLACK_S


def head_apart(sides: Sequence[Scenario], through_faults: bool, backend: str) -> bool:
    """Whether a check measures its head on a local cluster of its own: through a fault alone (`through_faults`),
    where the sides restart with different read-only settings. Each restart between the sides cost 20-27 s,
    two a round; a second cluster starts, takes the head's settings and is primed once (docs/failover.md)."""
    base, head = sides
    return through_faults and backend == "local" and base.restart_overrides() != head.restart_overrides()


def canary_apart(sc: Scenario, backend: str) -> bool:
    """Whether a check's self-test measures canary `sc` on a local cluster of its own, interleaved with the
    reference: a canary judged through a fault whose read-only settings would restart the home cluster twice
    (to its settings and back, 30-40 s) and keep it from pairing with the reference's runs, which then all ran
    before it (docs/failover.md, "Check time"). An outage is set by timeouts, not by JIT warmth."""
    return (backend == "local" and sc.cliff is not None and METRICS[sc.cliff.metric].workload is Workload.FAILOVER
            and bool(sc.restart_overrides()))


def shared_bound_s(sides: Sequence[Scenario]) -> float:
    """The bound both sides of a check wait for: the shorter side's. A longer outage is cut there and
    reported as longer than the bound (censored), which shows it as a regression at least that large, so a
    check takes about the outage of the side it compares against, not the one it gates."""
    return min(bound_s(sc) for sc in sides)


def member_bound_s(sc: Scenario) -> float:
    """How long each step of a member kill is waited for: twice the session that makes the group notice (with
    group.protocol=consumer the brokers' group.consumer.session.timeout.ms, else the member's own)."""
    if combinations.consumer_protocol(sc.consumer):
        name = "group.consumer.session.timeout.ms"
        session_ms = int(sc.broker.get(name, settings.require("broker", name).default))
    else:
        session_ms = int(sc.consumer.get("session.timeout.ms",
                                          settings.require("consumer", "session.timeout.ms").default))
    return 2 * session_ms / 1000 + BOUND_SLACK_S


# A run through a fault takes its steps' time and this much beside: the JVM and the group join, the
# warm-up, three seconds before the fault, the tail, the drain and the log read back (30-50 s measured).
RUN_OVERHEAD_S = 25.0
# A group's time budget grows by this many of its runs through a fault, whatever its rounds: a check's
# sequential stop decides a failover metric in about three rounds, and a run cut by the budget tells nothing.
BUDGETED_RUNS = 4


def budget_s(sc: Scenario, rounds: int, cap_s: float | None = None) -> float:
    """What a scenario's runs through a fault add to its group's time budget (0 when it measures none)."""
    if Workload.FAILOVER not in sc.workloads:
        return 0.0
    return min(rounds, BUDGETED_RUNS) * (RUN_OVERHEAD_S + bound_s(sc, cap_s) / 2)


def unmakeable(fault: Fault, cluster: Cluster) -> str | None:
    """Why `cluster` cannot be put through `fault` (None: it can): the one rule the plan skips a scenario by,
    and a run refuses by."""
    if fault is Fault.MEMBER_KILL:  # the member is kcliff's own (a JVM, or a container): no broker is touched
        return None
    own = faultable(cluster)
    if own is None:
        return (f"the {cluster.backend} backend cannot kill and start a broker: kcliff never touches a broker it did "
                "not start unless told how (--broker-control FILE: the commands that kill, stop and start each "
                "broker), so runs through a broker's fault need that file or a cluster kcliff starts (local or compose)")
    if (lacking := own.missing_for(fault)) is not None:
        return lacking
    if fault.takes_two_brokers and not cluster.controller_apart():
        return (f"the {fault.value} fault takes two brokers at once, and this cluster's controller quorum runs in its "
                "brokers: the local backend starts one with its controller apart for it (docs/failover.md)")
    return None


def failover_run(cluster: Cluster, sc: Scenario, topic: str, rate: Rate, log_path: Path,
                 cap_s: float | None = None) -> ReadRun:
    """One run of `sc` at `rate` through its fault (a broker killed and started again, every broker
    restarted in turn, or a group's member killed), each step waited for at most bound_s(sc, cap_s)."""
    why = unmakeable(sc.fault, cluster)
    if why is not None:
        return ReadRun(workload=Workload.FAILOVER, records=0, complete=False, stop_kind=StopKind.FAILED, stop_reason=why)
    target = rate.records_per_s(sc.bytes_per_record())
    consumer: dict[str, Any] = dict(sc.consumer)
    ran = failover.failover_run(cluster, Admin(cluster.admin_bootstrap), topic, target, sc.as_applied()["producer"],
                                consumer, log_path, bound_s(sc, cap_s), WARMUP_S, fault=sc.fault,
                                record_size=sc.record_size)
    return to_read_run(ran, target)


def to_read_run(ran: FailoverRun, target: float) -> ReadRun:
    """The run as the results document keeps it; a step unfinished at its bound is named in fo_censored."""
    summary, timeline = ran.run.summary, ran.timeline
    base = {"workload": Workload.FAILOVER, "elapsed_s": ran.run.elapsed_s, "exit_code": ran.run.exit_code,
            "fo_fault": ran.fault.value, "fo_bound_s": ran.bound_s, "fo_target_per_s": round(target, 1)}
    if summary is None or summary.failover is None or timeline is None:
        why = ran.run.failure or "the run ended before the fault was made"
        return ReadRun(records=0, complete=False, stop_kind=ran.run.stop_kind or StopKind.FAILED, stop_reason=why,
                       **base)
    got = summary.failover
    fault_at = ran.at_s(timeline.fault_ms) or 0.0
    late = got.last_late_read_s
    catch_up = 0.0 if late is None else round(max(0.0, late - fault_at), 3)
    censored = [UNAVAILABLE.key] if got.produce_gap.open else []
    base |= {"records": summary.acked, "fo_fault_at_s": fault_at,
             "fo_unavailable_s": round(got.produce_gap.ms / 1000, 3), "fo_p999_ms": summary.produce.p999_ms,
             "fo_failed": summary.errors, "fo_lost": got.lost, "fo_lost_seqs": got.lost_seqs,
             "fo_log_duplicates": got.log_duplicates, "fo_verified": got.verified}
    if ran.member is not None:
        return _member_read_run(ran, got, catch_up, censored, base)
    reads = got.consume_gap  # None: no consumer read, so nothing stalled or caught up
    censored += [STALL.key, CATCH_UP.key] if reads is not None and reads.open else []
    whole_at = ran.at_s(timeline.whole_ms)
    if whole_at is None:  # not whole by its bound: as long as it was waited for, at least
        censored.append(RECOVERY.key)
        whole_at = ran.at_s(timeline.healed_ms) or fault_at
        whole_at += ran.bound_s
    return ReadRun(fo_victim=timeline.victim, fo_stall_s=None if reads is None else round(reads.ms / 1000, 3),
                   fo_catch_up_s=None if reads is None else catch_up, fo_recovery_s=round(whole_at - fault_at, 3),
                   fo_censored=censored, fo_read_twice=got.read_twice, **base)


def _member_read_run(ran: FailoverRun, got: FailoverFigures, catch_up: float, censored: list[str],
                     base: dict[str, Any]) -> ReadRun:
    """A member kill's figures: the stall from both members' reads (member_kill.figures), the catch-up as a
    broker kill's, the records the survivor read again after the dead member (expected, never lost); no
    broker was killed, so there is no recovery to measure."""
    assert ran.member is not None
    found = member_kill.figures(ran.member, got.t0_wall_ms, got.partitions, ran.bound_s)
    assert found is not None  # a timeline means the member was killed
    if found.censored:  # a partition never read again: the consumer caught up no sooner than its stall ended
        censored += [STALL.key, CATCH_UP.key]
        catch_up = max(catch_up, found.stall_s)
    return ReadRun(fo_stall_s=found.stall_s, fo_catch_up_s=catch_up, fo_censored=censored,
                   fo_read_twice=(got.read_twice or 0) + found.read_twice, **base)
