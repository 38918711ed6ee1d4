"""What earlier kcliff processes left running, found by the marker every process kcliff starts
carries (procs.MARK_VAR in its environment).

A run's processes are leftovers once the kcliff process that started them is gone: they are ended,
loudly. A `kcliff cluster up` cluster is meant to outlive its command: it is a leftover only when
its state file is gone too (`kcliff cluster down` removes it, a killed `cluster up` never wrote it).
Processes without a marker are never touched. What lives outside this machine's process table
(compose projects in dockerd) is the backends' to find; they judge it by `leftover` and say what
they removed through `record`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from kcliff.host import procs

# The file a `kcliff cluster up` cluster keeps in its work directory while it is meant to stay up
# (backends/local writes and removes it); its presence is what spares such a cluster.
STATE_FILE = "cluster.json"
_reaped: list[str] = []  # what this process ended, for the results' environment


@dataclass(frozen=True)
class Owner:
    kind: str  # "run": a kcliff process; "cluster": a `kcliff cluster up` cluster
    pid: int
    start: str
    workdir: str = ""

    @property
    def mark(self) -> str:
        """The marker text naming this owner, as procs.run_mark / procs.cluster_mark write it."""
        return f"{self.kind}:{self.pid}:{self.start}" + (f":{self.workdir}" if self.kind == "cluster" else "")

    def describe(self) -> str:
        if self.kind == "cluster":
            return f"the cluster `kcliff cluster up` started in {self.workdir}"
        return f"kcliff process {self.pid}"


def parse_mark(text: str) -> Owner | None:
    """The owner a marker names (procs.run_mark / procs.cluster_mark), None for anything else."""
    parts = text.split(":", 3)
    if len(parts) < 3 or parts[0] not in ("run", "cluster") or not parts[1].isdigit():
        return None
    if parts[0] == "cluster" and len(parts) != 4:
        return None
    return Owner(parts[0], int(parts[1]), parts[2], parts[3] if len(parts) == 4 else "")


def is_leftover(owner: Owner, owner_running: bool, state_file_present: bool) -> bool:
    """The one rule for what may be ended: a run's processes once their kcliff is gone; a cluster's
    once the command starting it is gone and no state file says it was left up on purpose."""
    if owner_running:
        return False
    return owner.kind == "run" or not state_file_present


def owner_running(owner: Owner) -> bool:
    return procs.process_start(owner.pid) == owner.start


def leftover(owner: Owner) -> bool:
    return is_leftover(owner, owner_running(owner), (Path(owner.workdir) / STATE_FILE).is_file())


def marked_processes() -> dict[int, str]:
    """pid -> marker of every process of this user that carries one."""
    found = {}
    prefix = f"{procs.MARK_VAR}=".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:  # gone, or another user's
            continue
        for item in environ:
            if item.startswith(prefix):
                found[int(entry.name)] = item[len(prefix):].decode(errors="replace")
                break
    return found


def carrying(mark: str) -> list[int]:
    return [pid for pid, found in marked_processes().items() if found == mark]


def by_owner() -> dict[Owner, list[int]]:
    owners: dict[Owner, list[int]] = {}
    for pid, mark in marked_processes().items():
        owner = parse_mark(mark)
        if owner is not None and pid != os.getpid():
            owners.setdefault(owner, []).append(pid)
    return owners


def of_cluster(workdir: Path) -> list[int]:
    """Processes of the `kcliff cluster up` cluster in `workdir`, found by their marker alone."""
    where = str(Path(workdir).resolve())
    return [pid for owner, pids in by_owner().items() if owner.kind == "cluster" and owner.workdir == where
            for pid in pids]


def command_of(pid: int) -> str:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    main = next((a for a in argv if a and not a.startswith(b"-") and b"." in a and b"/" not in a), None)
    return f"{Path(argv[0].decode(errors='replace')).name} {(main or b'').decode(errors='replace')}".strip()


def reap() -> list[str]:
    """End the processes dead kcliff processes left running; one sentence per owner, for a loud warning."""
    said = []
    for owner, pids in by_owner().items():
        if leftover(owner):
            commands = sorted({command_of(pid) for pid in pids})
            procs.stop_pids(pids)
            said.append(f"ended {len(pids)} process(es) left running by {owner.describe()}, which is gone: "
                        f"{', '.join(commands)}")
    record(said)
    return said


def record(said: list[str]) -> None:
    """Keep what was ended (here or by a backend) for reaped()."""
    _reaped.extend(said)


def reaped() -> list[str]:
    """Everything reap() ended in this process."""
    return list(_reaped)


def others(own_marks: set[str]) -> list[str]:
    """The other kcliff clusters and runs alive on this machine, one phrase each."""
    said = []
    for owner, pids in by_owner().items():
        if owner.mark in own_marks or leftover(owner):
            continue
        hint = f" (kcliff cluster down --workdir {Path(owner.workdir).parent})" if owner.kind == "cluster" else ""
        said.append(f"{len(pids)} process(es) of {owner.describe()}{hint}")
    return said
