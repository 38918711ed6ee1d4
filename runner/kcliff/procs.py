"""Start child processes in their own process groups and make sure every one of them ends.

Every process kcliff starts for a run is registered here; `stop_all` ends them (SIGTERM to the
group, then SIGKILL) and runs at exit and on SIGTERM/SIGHUP, which are turned into
KeyboardInterrupt so the normal `finally` teardown paths run.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import IO

_live: set[subprocess.Popen] = set()


def spawn(argv: list[str], log: Path | None = None, register: bool = True,
          stdout: int | IO | None = None, cwd: Path | None = None) -> subprocess.Popen:
    """Start `argv` (a list, never a shell string) in a new session. Output goes to `log` or `stdout`."""
    out: int | IO | None = stdout
    if log is not None:
        out = open(log, "ab")
    try:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT if log is not None else None,
                                stdin=subprocess.DEVNULL, start_new_session=True, cwd=cwd)
    finally:
        if log is not None:
            out.close()
    if register:
        _live.add(proc)
    return proc


def stop(proc: subprocess.Popen, grace_s: float = 10.0) -> None:
    """End `proc` and its process group: SIGTERM, wait up to `grace_s`, then SIGKILL."""
    _live.discard(proc)
    if proc.poll() is None:
        _signal_group(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            _signal_group(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    _signal_group(proc.pid, signal.SIGKILL)  # anything left in the group (children of the child)


def stop_pid(pid: int, grace_s: float = 10.0) -> None:
    """End a process group we started in an earlier kcliff invocation (e.g. `kcliff cluster down`)."""
    _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and pid_alive(pid):
        time.sleep(0.2)
    _signal_group(pid, signal.SIGKILL)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _is_zombie(pid)


def started_with(pid: int, arg: Path) -> bool:
    """Whether `pid` runs with `arg` as one of its arguments: a guard against a recycled pid before
    stopping a process an earlier kcliff invocation started."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return str(arg).encode() in argv


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return False


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop_all() -> None:
    for proc in list(_live):
        stop(proc, grace_s=5.0)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def install_handlers() -> None:
    """SIGTERM/SIGHUP behave like Ctrl-C; whatever still runs at exit is ended."""
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _interrupt)
    atexit.register(stop_all)
