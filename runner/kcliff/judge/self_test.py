"""A check's self-test: which canaries it measures beside the reference, how, and what it cannot vouch for.

The self-test proves the rig can still see a cliff on every workload the check judges (docs/gate.md);
through a fault only (a failure-only change) it measures no flat-out run, since no canary it holds is
judged on one.
"""

from __future__ import annotations

import dataclasses

from kcliff.errors import InputError
from kcliff.judge.family import Family
from kcliff.measure import rate_side
from kcliff.measure.options import Options
from kcliff.results.metrics import METRICS, Workload
from kcliff.results.model import ResultsDoc
from kcliff.scenario.suites import Scenario

DEFAULT_CANARIES = "batching-off,flush-1"


def self_test_options(opts: Options, self_test: list[Scenario]) -> Options:
    """The check's options for its self-test: short runs at rate, and the producer flat out only where a
    canary is judged on it (else its runs would fill a topic nobody reads: about 30 s of a failover check)."""
    cliffs = [METRICS[sc.cliff.metric].workload for sc in self_test if sc.cliff is not None]
    # no canary at all: the reference's flat-out figure is still the early stop's yardstick and the report's
    flat_out = not cliffs or any(w is not Workload.FAILOVER for w in cliffs)
    return dataclasses.replace(opts, rate_records=rate_side.SELF_TEST_RATE_RECORDS, flat_out_judged=flat_out)


def unvouched_canaries(canaries: list[Scenario], doc: ResultsDoc, asked_ms: float | None) -> list[str]:
    """One note naming the canaries whose cliff is made of fsync waits when the brokers synced on their
    own disk (`asked_ms`: the --fsync-delay-ms given), and why: the self-test cannot vouch for them."""
    env = doc.environment
    waiting = [c.id for c in canaries if c.waits_on_fsync()]
    if not waiting or env.get("emulated_fsync_ms"):
        return []
    why = {"external": "kcliff cannot emulate a slower disk in brokers it did not start",
           "compose": "the brokers' image cannot preload kcliff's fsync shim (its stand-in can)"}.get(
        str(env.get("backend")), "the disk was not emulated")
    if asked_ms == 0:
        why = "--fsync-delay-ms 0 left the brokers on their own disk"
    return [f"the self-test cannot vouch for {', '.join(waiting)} here: its cliff is made of the brokers' fsync "
            f"waits, and {why}; a disk that syncs in about a millisecond hides it, and then the check is "
            "inconclusive for that reason, not for the pull request"]


def self_test_canaries(asked: str | None, canaries: dict[str, Scenario], head: Scenario, family: Family) -> list[str]:
    """The canaries a check measures: --canaries as given, else the default ones the check needs
    (Family.needs_canary); and, either way, one for each workload the sides measure beyond the
    producer's, so the rig proves it can see a cliff there too; a durability canary only where the sides' fault
    can lose a record at all (two brokers at once); a canary that consumes as a service does only where the sides
    do (it proves the tool they read with can see a cliff). Unknown ids are an input error."""
    ids = [c.strip() for c in (asked if asked is not None else DEFAULT_CANARIES).split(",") if c.strip()]
    unknown = [c for c in ids if c not in canaries]
    if unknown:
        raise InputError(f"--canaries: unknown canary id(s) {', '.join(unknown)}")
    if asked is None:
        ids = [c for c in ids if (cliff := canaries[c].cliff) is None or family.needs_canary(METRICS[cliff.metric])]
    beyond = set(head.workloads) - {Workload.PRODUCE}
    return ids + [s.id for s in canaries.values() if s.cliff and s.id not in ids
                  and METRICS[s.cliff.metric].workload in beyond and (s.consuming is None or head.consuming is not None)
                  and (not METRICS[s.cliff.metric].exact or head.fault.takes_two_brokers)]
