"""An external cluster whose operator lets kcliff crash and start its brokers: `--broker-control FILE` names,
for each broker id, the commands that do it (each a list of arguments, run without a shell):

    brokers:
      1:
        kill: [ssh, kafka-1, sudo, systemctl, kill, --signal=KILL, kafka]   # a crash: no controlled shutdown
        start: [ssh, kafka-1, sudo, systemctl, start, kafka]                # must be harmless on a running broker
        stop: [ssh, kafka-1, sudo, systemctl, stop, kafka]                  # optional: rolling restarts
        pause: [...]                                                       # optional, with resume
        resume: [...]

Without the file kcliff never touches a broker it did not start. With it, every fault is undone as on a
cluster kcliff started: the broker is started again when the run ends, fails or is interrupted, and, should
kcliff itself be killed, by its watchdog (host/procs.on_death), so a start command must be idempotent.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.backends.admin import Admin
from kcliff.backends.base import Faultable
from kcliff.backends.external import ExternalCluster
from kcliff.errors import ClusterError, InputError, raise_all
from kcliff.host import procs
from kcliff.results.metrics import Fault

COMMAND_TIMEOUT_S = 120.0  # one command's longest run beyond a stop's own grace
READY_TIMEOUT_S = 180.0  # for a started broker to register again and the cluster to take writes


class Action(StrEnum):
    KILL = "kill"
    START = "start"
    STOP = "stop"
    PAUSE = "pause"
    RESUME = "resume"


REQUIRED = (Action.KILL, Action.START)
NEEDED = {Fault.ROLLING_RESTART: Action.STOP, Fault.FOLLOWER_BEHIND: Action.PAUSE}  # beyond kill and start


@dataclass(frozen=True)
class BrokerControl:
    """The commands of a --broker-control file: broker id -> action -> argv."""

    path: Path
    brokers: dict[int, dict[Action, tuple[str, ...]]]

    @classmethod
    def load(cls, path: Path) -> BrokerControl:
        """Read and check the file: every problem in it at once, each on its line (InputError, exit 2)."""
        raw = yamlio.load(path)
        where = str(path)
        brokers = raw.get("brokers") if hasattr(raw, "get") else None
        if not hasattr(brokers, "items") or not brokers:
            raise InputError("expected a mapping `brokers:` of broker ids, each with its kill and start commands "
                             "(lists of arguments)", where, yamlio.key_line(raw, "brokers") if hasattr(raw, "get") else None)
        problems: list[InputError] = []
        found: dict[int, dict[Action, tuple[str, ...]]] = {}
        for key, actions in brokers.items():
            line = yamlio.key_line(brokers, key)
            if not isinstance(key, int) or isinstance(key, bool) or key < 0:
                problems.append(InputError(f"broker id {key!r} is not a broker's node.id (a whole number)", where, line))
                continue
            found[key] = _actions(actions, key, where, line, problems)
        raise_all(problems)
        return cls(path, found)

    def missing(self, action: Action) -> list[int]:
        """The brokers with no command for `action`."""
        return sorted(b for b, actions in self.brokers.items() if action not in actions)


def _actions(raw: Any, broker: int, where: str, line: int | None, problems: list[InputError]
             ) -> dict[Action, tuple[str, ...]]:
    if not hasattr(raw, "items"):
        problems.append(InputError(f"broker {broker}: expected a mapping of its commands ({', '.join(Action)})",
                                   where, line))
        return {}
    out: dict[Action, tuple[str, ...]] = {}
    bad: set[str] = set()
    for name, argv in raw.items():
        at = yamlio.key_line(raw, name) or line
        if name not in set(Action):
            problems.append(InputError(f"broker {broker}: unknown command {name!r}; expected one of "
                                       f"{', '.join(Action)}", where, at))
        elif (not isinstance(argv, list) or not argv
              or not all(isinstance(a, (str, int, float)) and not isinstance(a, bool) for a in argv)):
            bad.add(name)
            problems.append(InputError(f"broker {broker}: {name} must be a non-empty list of arguments, run without "
                                       f"a shell, e.g. [systemctl, {name}, kafka]", where, at))
        else:
            out[Action(name)] = tuple(str(a) for a in argv)
    for action in REQUIRED:
        if action not in out and action not in bad:
            problems.append(InputError(f"broker {broker}: no {action} command; kill and start are required",
                                       where, line))
    if (Action.PAUSE in out) != (Action.RESUME in out):
        problems.append(InputError(f"broker {broker}: pause and resume come together", where, line))
    return out


@dataclass
class ControlledCluster(ExternalCluster, Faultable):
    """An external cluster with its operator's commands: kcliff crashes, stops, pauses and starts its brokers
    only through them, and knows a broker is down only when it took it down (it never watches their hosts)."""

    control: BrokerControl | None = None
    down_nodes: set[int] = field(default_factory=set)
    undone_on_death: set[tuple[int, Action]] = field(default_factory=set)

    def dead_nodes(self) -> list[int]:
        return sorted(self.down_nodes)

    def kill_broker(self, node_id: int) -> None:
        self._undo_on_death(node_id, Action.START)
        self.down_nodes.add(node_id)
        self._run(node_id, Action.KILL)

    def stop_broker(self, node_id: int, grace_s: float) -> None:
        self._undo_on_death(node_id, Action.START)
        self.down_nodes.add(node_id)
        self._run(node_id, Action.STOP, grace_s)

    def pause_broker(self, node_id: int) -> None:
        self._undo_on_death(node_id, Action.RESUME)
        self._run(node_id, Action.PAUSE)

    def resume_broker(self, node_id: int) -> None:
        self._run(node_id, Action.RESUME)

    def heal(self) -> None:
        """Start every broker kcliff took down, then wait until all are registered and the cluster takes writes."""
        for node_id in sorted(self.down_nodes):
            self._run(node_id, Action.START)
            self.down_nodes.discard(node_id)
        admin, deadline = Admin(self.bootstrap), time.monotonic() + READY_TIMEOUT_S
        wanted = set(self._commands())
        while not wanted <= set(admin.broker_ids(timeout=5)):
            if time.monotonic() > deadline:
                raise ClusterError(f"brokers {sorted(wanted)} not all registered {READY_TIMEOUT_S:.0f} s after their "
                                   f"start commands ({self._path()})")
            time.sleep(0.5)
        admin.prove_writable(max(deadline - time.monotonic(), 10.0))

    def missing_for(self, fault: Fault) -> str | None:
        needed = NEEDED.get(fault)
        lacking = self.control.missing(needed) if self.control and needed else []
        if not lacking:
            return None
        return f"{self._path()} gives no {needed} command for broker(s) {lacking}, which the {fault.value} fault needs"

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "broker_control": self._path()}

    def _commands(self) -> dict[int, dict[Action, tuple[str, ...]]]:
        return self.control.brokers if self.control else {}

    def _path(self) -> str:
        return str(self.control.path) if self.control else "--broker-control"

    def _undo_on_death(self, node_id: int, action: Action) -> None:
        """Have the watchdog run the undoing command should kcliff die before it does (once per broker)."""
        if (node_id, action) not in self.undone_on_death:
            procs.on_death(list(self._argv(node_id, action)))
            self.undone_on_death.add((node_id, action))

    def _argv(self, node_id: int, action: Action) -> tuple[str, ...]:
        argv = self._commands().get(node_id, {}).get(action)
        if argv is None:
            raise ClusterError(f"{self._path()}: no {action} command for broker {node_id}")
        return argv

    def _run(self, node_id: int, action: Action, grace_s: float = 0.0) -> None:
        argv = self._argv(node_id, action)
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, check=False,
                                  timeout=grace_s + COMMAND_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ClusterError(f"{self._path()}: broker {node_id}'s {action} command {argv[0]!r} failed: {exc}") from None
        if done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip()[-400:]
            raise ClusterError(procs.with_error(f"{self._path()}: broker {node_id}'s {action} command {argv[0]!r} "
                                                f"exited {done.returncode}", said))


def controlled(cluster: ExternalCluster, control: BrokerControl) -> ControlledCluster:
    """The connected cluster with its commands, once the file names exactly the brokers that answer."""
    answering = sorted(Admin(cluster.bootstrap).broker_ids(timeout=15))
    if sorted(control.brokers) != answering:
        raise InputError(f"the file names brokers {sorted(control.brokers)}, and brokers {answering} answer at "
                         f"{cluster.bootstrap}: give the commands of exactly those", str(control.path))
    return ControlledCluster(cluster.bootstrap, cluster.libs, cluster.producer_heap_mb, cluster.producer_cpus,
                             control=control)
