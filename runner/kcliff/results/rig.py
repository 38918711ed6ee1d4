"""The rig a run was measured on: the profile it was measured at, the caps that profile set on this
rig (a results document's `environment.rig`, written by measure/rig_capacity.py), and the runner class
that carries the profile (`<class>@<profile>`), which keys baselines, the history's series and the
report's. The one place that reads either: a baseline, a series and a trend belong to one profile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict, ValidationError

from kcliff.errors import InputError
from kcliff.results.model import first_error

CPU_BOUND = "cpu-bound"  # the name of no profile: the rig uncapped, where CPU binds
PROFILE_MARK = "@"


class Rig(BaseModel):
    """`environment.rig`: the profile, and for a profile of production's shape the caps it set on each
    broker (scenario/profile.py RigCaps as recorded). Files written before profiles have none: CPU-bound."""

    model_config = ConfigDict(extra="allow")

    profile: str = CPU_BOUND
    link_mbit: float | None = None  # each broker's link, each way
    disk_mb_s: float | None = None  # each broker's disk writes
    binds: str | None = None  # the resource the profile's shape runs out of first
    rig_cpu_mb_s: float | None = None  # the rig's CPU-bound capacity the caps were scaled to
    replication_rtt_ms: int = 0  # followers' round trip to their leaders (0 where none was recorded)

    @classmethod
    def of(cls, environment: Mapping[str, Any], where: str | None = None) -> Rig:
        try:
            return cls.model_validate(environment.get("rig") or {})
        except ValidationError as exc:
            raise InputError(f"environment.rig: {first_error(exc)}", where) from None

    def caps(self) -> str:
        """The caps in words: "each broker's link 22.2 Mbit/s, disk 2.33 MB/s; disk meant to bind"."""
        if not (self.link_mbit or self.disk_mb_s):
            return "no caps: CPU binds"
        parts = ([f"link {self.link_mbit:g} Mbit/s"] if self.link_mbit else []) + (
            [f"disk {self.disk_mb_s:g} MB/s"] if self.disk_mb_s else [])
        return f"each broker's {', '.join(parts)}" + (f"; {self.binds} meant to bind" if self.binds else "")

    def describe(self) -> str:
        return f"{self.profile} ({self.caps()})"


@dataclass(frozen=True)
class RunnerClass:
    """A runner class as baselines and the history key it: the host's class (`local-2c-24g`, or the
    KCLIFF_RUNNER_CLASS given) and the rig profile, written `<host>@<profile>` unless CPU-bound."""

    host: str
    profile: str = CPU_BOUND

    @classmethod
    def parse(cls, text: str) -> RunnerClass:
        host, mark, profile = text.partition(PROFILE_MARK)
        return cls(host, profile if mark and profile else CPU_BOUND)

    def __str__(self) -> str:
        return self.host if self.profile == CPU_BOUND else f"{self.host}{PROFILE_MARK}{self.profile}"


def profile_of(runner_class: str) -> str:
    """The rig profile a runner class was measured at."""
    return RunnerClass.parse(runner_class).profile
