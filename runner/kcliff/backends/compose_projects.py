"""Compose projects kcliff owns: named after the kcliff process that started them, found again on the
Docker engine and removed once that process is gone.

Compose stacks live in dockerd, out of reach of kcliff's parent-death signal. A project named by
owned_project_name carries its owner (this process's pid and start time), so a later kcliff can tell
a stack whose kcliff died (host.leftovers' rule) from one still in use. Two paths remove such a
stack: this process's watchdog, handed removal_argv when the stack starts, and the next kcliff's reap.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import sys

from kcliff.backends.docker_cli import docker
from kcliff.errors import ClusterError, InputError
from kcliff.host import leftovers, procs
from kcliff.host.leftovers import Owner

_OWNED_PROJECT = re.compile(r"^kcliff-(\d+)-(\d+)-[0-9a-f]{6}$")


def owned_project_name() -> str:
    return f"kcliff-{os.getpid()}-{procs.process_start(os.getpid())}-{secrets.token_hex(3)}"


def project_owner(project: str) -> Owner | None:
    """The kcliff process that started `project`, None for projects not named so."""
    match = _OWNED_PROJECT.match(project)
    return Owner("run", int(match[1]), match[2]) if match else None


def owned_projects() -> list[str]:
    """Compose projects on this Docker engine named by owned_project_name; none without Docker."""
    if shutil.which("docker") is None:
        return []
    try:
        done = docker("ps", "--all", "--filter", "label=com.docker.compose.project",
                      "--format", '{{.Label "com.docker.compose.project"}}', timeout=20, check=False)
    except ClusterError:
        return []
    return sorted({p for p in done.stdout.split() if _OWNED_PROJECT.match(p)})


def remove_project(project: str) -> bool:
    """Remove every container (one-off producer runs included), network and volume of `project`
    without the compose file, whose env files may be gone with the run. True if anything was there."""
    label = f"label=com.docker.compose.project={project}"
    found = False
    for kind, listing, removal in (("container", ["ps", "--all", "--quiet"], ["rm", "--force", "--volumes"]),
                                   ("network", ["network", "ls", "--quiet"], ["network", "rm"]),
                                   ("volume", ["volume", "ls", "--quiet"], ["volume", "rm", "--force"])):
        try:
            ids = docker(*listing, "--filter", label, timeout=60, check=False).stdout.split()
            if ids:
                found = True
                docker(*removal, *ids, timeout=180, check=False)
        except (ClusterError, InputError):
            return found
    return found


def removal_argv(project: str) -> list[str]:
    """The command that removes `project` (this module run as a program), for the watchdog to run
    once this process is gone (procs.on_death): the watchdog knows nothing of compose."""
    return [sys.executable, "-m", "kcliff.backends.compose_projects", project]


def reap() -> list[str]:
    """Remove the compose projects of kcliff processes that are gone; one sentence per project."""
    said = []
    for project in owned_projects():
        owner = project_owner(project)
        if owner is not None and leftovers.leftover(owner) and remove_project(project):
            said.append(f"removed compose project {project} left running by {owner.describe()}, which is gone")
    leftovers.record(said)
    return said


if __name__ == "__main__":  # removal_argv
    for name in sys.argv[1:]:
        remove_project(name)
