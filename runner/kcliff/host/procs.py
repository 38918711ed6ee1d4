"""Start child processes in their own process groups and make sure every one of them ends.

Every process kcliff starts for a run is registered here; `stop_all` ends them (SIGTERM to the
group, then SIGKILL) and runs at exit and on SIGTERM/SIGHUP, which are turned into
KeyboardInterrupt so the normal `finally` teardown paths run.

None of that runs when kcliff itself is SIGKILLed (a CI runner's cancel after its grace period), so
a marker and three layers make sure nothing outlives it:
- every process carries a marker, KCLIFF_OWNER=<owner> in its environment (inherited by its own
  children), naming the kcliff process (pid and start time) or the `kcliff cluster up` it belongs to;
- a process this one owns gets PR_SET_PDEATHSIG(SIGKILL): the kernel ends it the moment its parent
  dies, with no helper that could itself be killed;
- a watchdog (kcliff.host.watchdog) waits for EOF on a pipe only this process holds, then ends
  whatever still carries this process's marker and runs the commands handed to it by on_death
  (the compose backend's project removal: containers live in dockerd, out of PDEATHSIG's reach);
- the next kcliff run reaps what carries the marker of an owner that is gone (kcliff.host.leftovers;
  compose projects: kcliff.backends.compose_projects).
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any, Callable, Mapping

from kcliff.errors import ClusterError

MARK_VAR = "KCLIFF_OWNER"
_PR_SET_PDEATHSIG = 1
_live: set[subprocess.Popen[bytes]] = set()
_watchdog_pipe: int | None = None  # write end; the watchdog sees EOF when this process is gone
ON_DEATH = "run "  # the watchdog's pipe line "run <JSON argv>": a command to run once this process is gone
_prctl: Callable[..., object] | None
try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up here: the child after fork must not load anything
except (OSError, AttributeError):
    _prctl = None


def process_start(pid: int) -> str | None:
    """A process's start time in clock ticks since boot: with the pid it names one process, never a
    later one that reuses the pid."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def run_mark() -> str:
    """The marker of processes this kcliff process owns and ends."""
    return f"run:{os.getpid()}:{process_start(os.getpid())}"


def cluster_mark(workdir: Path) -> str:
    """The marker of a `kcliff cluster up` cluster's processes: owned by design while its state file
    in `workdir` exists, or while the command that starts it is still running."""
    return f"cluster:{os.getpid()}:{process_start(os.getpid())}:{Path(workdir).resolve()}"


def spawn(argv: list[str], log: Path | None = None, register: bool = True,
          stdout: int | IO[Any] | None = None, cwd: Path | None = None,
          mark: str | None = None, env: Mapping[str, str] | None = None,
          stderr: IO[Any] | None = None) -> subprocess.Popen[bytes]:
    """Start `argv` (a list, never a shell string) in a new session. Output goes to `log` or `stdout`
    (and `stderr`, given).
    `register=False` is a process meant to outlive this one (`kcliff cluster up`): it gets `mark`
    and no parent-death signal. `env` adds to this process's environment (a broker's fsync shim)."""
    logfile = open(log, "ab") if log is not None else None
    out = logfile if logfile is not None else stdout
    if register:
        start_watchdog()
    try:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT if log is not None else stderr,
                                stdin=subprocess.DEVNULL, start_new_session=True, cwd=cwd,
                                env={**os.environ, **(env or {}), MARK_VAR: mark or run_mark()},
                                preexec_fn=_die_with(os.getpid()) if register else None)
    finally:
        if logfile is not None:
            logfile.close()
    if register:
        _live.add(proc)
    return proc


def _pump_lines(stream: IO[bytes], lines: queue.Queue[str | None]) -> None:
    """A thread's body: a tool's output, line by line, into `lines`; None when the tool closes it."""
    for raw in iter(stream.readline, b""):
        lines.put(raw.decode("utf-8", errors="replace"))
    lines.put(None)


def shown_argv(argv: list[str]) -> list[str]:
    """argv as a log shows it: the long classpath left out."""
    return [("<classpath>" if i and argv[i - 1] == "-cp" else a) for i, a in enumerate(argv)]


def last_error(path: Path, most: int = 300) -> str | None:
    """The last line a tool wrote to its stderr file that is not a stack frame (a Java exception's message),
    cut to `most` characters; None where it wrote none."""
    try:
        lines = [line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return None
    said = [line for line in lines if not line.startswith(("at ", "... "))]
    return said[-1][:most] if said else None


def with_error(why: str, said: str | None) -> str:
    """`why` a tool failed, followed by what it said of it (its `last_error`, its stderr's tail) where it said any."""
    return f"{why}: {said}" if said else why


class FollowedTool:
    """A tool run whose output is read line by line as it comes (a perf tool's interim lines).
    Leaving the `with` block stops the tool, and writes its argv and every line read to `log_path`.
    Its stderr goes to `errors` beside it: a client's warnings through a leader move are not the user's
    terminal's, and a failure names the file's last line (`last_error`)."""

    def __init__(self, argv: list[str], log_path: Path) -> None:
        self.argv, self.log_path = argv, log_path
        self.errors = log_path.with_suffix(".stderr.log")
        self.seen: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        with open(self.errors, "ab") as err:
            self.proc = spawn(argv, stdout=subprocess.PIPE, stderr=err)
        self._reader = threading.Thread(target=_pump_lines, args=(self.proc.stdout, self._lines), daemon=True)
        self._reader.start()

    def next_line(self, timeout: float) -> str | None:
        """The next line, "" when none came within `timeout` seconds, None once the tool closed its output."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            return ""
        if line:
            self.seen.append(line)
        return line

    def __enter__(self) -> FollowedTool:
        return self

    def __exit__(self, *exc: object) -> None:
        stop(self.proc, grace_s=3.0)
        self._reader.join(timeout=5)
        if self.proc.stdout:
            self.proc.stdout.close()
        try:
            self.log_path.write_text("$ " + " ".join(shown_argv(self.argv)) + "\n" + "".join(self.seen))
        except OSError:
            pass  # a full disk must not hide the fault that filled it: the run's outcome is still recorded


def _die_with(parent: int) -> Callable[[], None] | None:
    """A preexec hook that has the kernel SIGKILL the child when this process dies. PDEATHSIG fires
    when the forking *thread* exits, so children started from other threads go without it (the
    watchdog still ends them)."""
    if _prctl is None or threading.current_thread() is not threading.main_thread():
        return None

    def hook() -> None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os.kill(os.getpid(), signal.SIGKILL)
    return hook


def start_watchdog() -> int:
    """Start this process's watchdog once (kcliff.host.watchdog): it ends what carries this process's
    marker after this process is gone, however it went. Returns the write end of its pipe."""
    global _watchdog_pipe
    if _watchdog_pipe is not None:
        return _watchdog_pipe
    read_end, write_end = os.pipe()  # both close-on-exec: no other child keeps the write end open
    try:
        starter = subprocess.Popen([sys.executable, "-m", "kcliff.host.watchdog", run_mark()], stdin=read_end,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                                   env={k: v for k, v in os.environ.items() if k != MARK_VAR})
        code = starter.wait(timeout=60)  # it forks the real watchdog and returns at once
    finally:
        os.close(read_end)
    if code != 0:
        os.close(write_end)
        raise ClusterError(f"could not start kcliff's watchdog ({sys.executable} -m kcliff.host.watchdog exit {code})")
    _watchdog_pipe = write_end
    return write_end


def on_death(argv: list[str]) -> None:
    """Have the watchdog run `argv` once this process is gone, however it went (after ending what
    carries its marker): for what lives outside this process tree, e.g. a compose project."""
    os.write(start_watchdog(), f"{ON_DEATH}{json.dumps(argv)}\n".encode())


def stop(proc: subprocess.Popen[bytes], grace_s: float = 10.0) -> None:
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


def crash(pid: int) -> None:
    """SIGKILL a process and its group, nothing first: a crash, no shutdown hook runs (a broker killed so)."""
    _signal_group(pid, signal.SIGKILL)
    _signal(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and pid_alive(pid):
        time.sleep(0.05)


def stop_pid(pid: int, grace_s: float = 10.0) -> None:
    """End a process group we started in an earlier kcliff invocation (e.g. `kcliff cluster down`)."""
    stop_pids([pid], grace_s)


def stop_pids(pids: list[int], grace_s: float = 5.0) -> None:
    """End these processes and their groups (kcliff starts each in its own; a marked grandchild may
    lead none): SIGTERM to all at once, up to `grace_s` to go, then SIGKILL."""
    for pid in pids:
        _signal_group(pid, signal.SIGTERM)
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(pid_alive(pid) for pid in pids):
        time.sleep(0.2)
    for pid in pids:
        _signal_group(pid, signal.SIGKILL)
        _signal(pid, signal.SIGKILL)


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


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
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
