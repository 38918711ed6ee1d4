"""`python -m kcliff.host.watchdog MARK`: ends what a kcliff process started once that process is gone.

kcliff starts it with the read end of a pipe whose write end only kcliff holds; EOF means kcliff
exited, normally or by SIGKILL. It then ends every process still carrying MARK and removes the
compose projects kcliff named on the pipe. After a normal exit kcliff has done that itself, so it
finds nothing. It forks once and lets kcliff reap the parent: not being kcliff's descendant, it
survives a runner that kills kcliff's whole process tree.
"""

from __future__ import annotations

import os
import signal
import sys


def main(argv: list[str]) -> int:
    mark = argv[0]
    if os.fork() > 0:
        return 0
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    projects = [line.split(None, 1)[1].strip() for line in sys.stdin if line.startswith("compose ")]
    from kcliff.host import leftovers, procs
    procs.stop_pids(leftovers.carrying(mark))
    for project in projects:
        leftovers.remove_compose_project(project)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
