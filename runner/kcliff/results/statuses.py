"""What became of a scenario, of a whole run and of a tool run that ended before its summary: enums,
so nothing compares their strings."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """What became of one scenario."""

    OK = "ok"
    CLIFF = "cliff"  # stopped early: its runs stayed below the cliff threshold, twice running
    TIMED_OUT = "timed_out"
    FAULTED = "faulted"  # a broker died or stalled: never a regression or a cliff
    FAILED = "failed"
    SKIPPED = "skipped"  # this cluster cannot run or show it (no restart, too short a round trip)
    RUNNING = "running"  # a scenario (a group of one) or an interleaved group not finished yet
    INTERRUPTED = "interrupted"

    @property
    def counts(self) -> bool:
        """Its runs are measurements: compared, kept in baselines and history, shown in tiers."""
        return self in (Status.OK, Status.CLIFF)

    @property
    def unfinished(self) -> bool:
        """Cut short before it finished: `kcliff run --resume` measures it again."""
        return self in (Status.RUNNING, Status.INTERRUPTED)

    @property
    def fails_run(self) -> bool:
        """`kcliff run` exits 1 on it: neither measured nor skipped for a stated reason."""
        return not self.counts and self is not Status.SKIPPED


class RunStatus(StrEnum):
    """What became of a whole run (a results document)."""

    RUNNING = "running"
    COMPLETE = "complete"
    INTERRUPTED = "interrupted"
    FAILED = "failed"
    INCOMPLETE = "incomplete"  # shards merged while one of them had not completed


class StopKind(StrEnum):
    """Why a perf run ended before its summary line."""

    CLIFF = "cliff"  # the early-stop rule: the live rate stayed below the cliff threshold
    BUDGET = "budget"  # the scenario's time budget ran out
    FAULT = "fault"  # a broker died, or nothing was acknowledged for too long
    DISK_FULL = "disk_full"  # the brokers' disk is full: no retry can mend it, the suite ends
    FAILED = "failed"  # the tool exited without a summary

    @property
    def is_fault(self) -> bool:
        return self in (StopKind.FAULT, StopKind.DISK_FULL)
