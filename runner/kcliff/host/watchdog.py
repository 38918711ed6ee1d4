"""`python -m kcliff.host.watchdog MARK`: ends what a kcliff process started once that process is gone.

kcliff starts it with the read end of a pipe whose write end only kcliff holds; EOF means kcliff
exited, normally or by SIGKILL. It then ends every process still carrying MARK and runs the
commands kcliff handed it on the pipe (procs.on_death: e.g. removing a compose project, which lives
in dockerd); it knows nothing of what they do. After a normal exit kcliff has done all that itself,
so they find nothing. It forks once and lets kcliff reap the parent: not being kcliff's descendant, it
survives a runner that kills kcliff's whole process tree.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys


def main(argv: list[str]) -> int:
    mark = argv[0]
    if os.fork() > 0:
        return 0
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    from kcliff.host import leftovers, procs
    commands = [json.loads(line[len(procs.ON_DEATH):]) for line in sys.stdin if line.startswith(procs.ON_DEATH)]
    procs.stop_pids(leftovers.carrying(mark))
    for command in commands:
        try:  # an argv, never a shell; what it prints has nowhere to go
            subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
