"""Nothing kcliff starts outlives it: markers, the parent-death signal, the watchdog, the reaping of
what a dead kcliff left behind, and the rule for when the machine is too busy to measure quietly."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff, wait_for
from kcliff.backends import compose_projects
from kcliff.host import leftovers, load, procs

GONE_S = 30  # the kernel and the watchdog take well under a second; generous for a loaded machine


def _alive(pid: int) -> bool:
    return procs.pid_alive(pid)


def _spawner(tmp_path: Path, argv: list[str]) -> tuple[subprocess.Popen, int]:
    """A Python process that spawns `argv` through procs.spawn and then waits; returns it and the child's pid."""
    pid_file = tmp_path / "child.pid"
    code = ("import sys, time; from pathlib import Path; from kcliff.host import procs\n"
            f"p = procs.spawn({argv!r})\n"
            f"Path({str(pid_file)!r}).write_text(str(p.pid))\n"
            "time.sleep(600)\n")
    parent = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    child = int(wait_for(lambda: pid_file.exists() and pid_file.read_text(), 60, "the child's pid"))
    return parent, child


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_spawned_process_carries_the_marker_and_dies_with_its_parent(tmp_path):
    parent, child = _spawner(tmp_path, ["sleep", "600"])
    try:
        mark = leftovers.marked_processes()[child]
        owner = leftovers.parse_mark(mark)
        assert owner is not None and owner.kind == "run" and owner.pid == parent.pid
        parent.kill()
        parent.wait()
        wait_for(lambda: not _alive(child), GONE_S, "the child to die with its SIGKILLed parent")
    finally:
        _kill_all([parent.pid, child])


def test_the_watchdog_ends_a_grandchild_that_has_no_parent_death_signal(tmp_path):
    parent, child = _spawner(tmp_path, ["sh", "-c", "sleep 601 & echo $! > grandchild.pid; wait"])
    grandchild_file = ROOT / "grandchild.pid"
    try:
        grandchild = int(wait_for(lambda: grandchild_file.exists() and grandchild_file.read_text().strip(), 30,
                                  "the grandchild"))
        assert leftovers.marked_processes().get(grandchild) == leftovers.marked_processes()[child]
        parent.kill()
        parent.wait()
        wait_for(lambda: not _alive(grandchild) and not _alive(child), GONE_S, "the watchdog to end the grandchild")
    finally:
        grandchild_file.unlink(missing_ok=True)
        _kill_all([parent.pid, child])


def test_the_watchdog_runs_what_it_was_handed_once_its_kcliff_is_killed(tmp_path):
    """procs.on_death: the command (how the compose backend removes its project) runs after a
    SIGKILL, not before, and as an argv: a value with shell syntax stays one argument."""
    ready, out = tmp_path / "ready", tmp_path / "ran; touch oops"
    command = [sys.executable, "-c", "import sys; open(sys.argv[1], 'w').write('ran')", str(out)]
    code = ("import time; from pathlib import Path; from kcliff.host import procs\n"
            f"procs.on_death({command!r})\n"
            f"Path({str(ready)!r}).write_text('1')\n"
            "time.sleep(600)\n")
    owner = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    try:
        wait_for(ready.exists, 60, "the watchdog to be handed the command")
        assert not out.exists()
        owner.kill()
        owner.wait()
        wait_for(out.exists, GONE_S, "the watchdog to run the command")
        assert out.read_text() == "ran" and not (tmp_path / "oops").exists()
    finally:
        _kill_all([owner.pid])


def _marked(mark: str) -> subprocess.Popen:
    return subprocess.Popen(["sleep", "600"], env={**os.environ, procs.MARK_VAR: mark}, start_new_session=True)


def test_reap_ends_what_a_dead_kcliff_left_and_spares_live_owners(tmp_path):
    workdir = tmp_path / "cluster"
    workdir.mkdir()
    (workdir / "cluster.json").write_text("{}")
    orphan = _marked("run:999999999:1")  # no such process: its kcliff is gone
    live = _marked(procs.run_mark())      # this process owns it
    kept_up = _marked(f"cluster:999999999:1:{workdir.resolve()}")  # `cluster up` left it up on purpose
    unmarked = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        wait_for(lambda: {orphan.pid, live.pid, kept_up.pid} <= set(leftovers.marked_processes()), 30, "the markers")
        said = leftovers.reap()
        assert any("kcliff process 999999999, which is gone" in s and "sleep" in s for s in said), said
        orphan.wait(timeout=GONE_S)
        assert live.poll() is None and kept_up.poll() is None and unmarked.poll() is None
        assert leftovers.of_cluster(workdir) == [kept_up.pid]
        assert any(str(workdir.resolve()) in s for s in leftovers.others(set()))
        assert not any(str(workdir.resolve()) in s for s in leftovers.others({f"cluster:999999999:1:{workdir.resolve()}"}))
    finally:
        for proc in (orphan, live, kept_up, unmarked):
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("owner_running, state_file, expected", [
    (True, False, False), (False, False, True), (True, True, False), (False, True, True)])
def test_a_runs_processes_are_leftovers_once_its_kcliff_is_gone(owner_running, state_file, expected):
    owner = leftovers.parse_mark("run:42:1000")
    assert leftovers.is_leftover(owner, owner_running, state_file) is expected


@pytest.mark.parametrize("owner_running, state_file, expected", [
    (True, False, False), (False, False, True), (True, True, False), (False, True, False)])
def test_a_cluster_left_up_on_purpose_is_no_leftover(owner_running, state_file, expected):
    owner = leftovers.parse_mark("cluster:42:1000:/w/cluster")
    assert leftovers.is_leftover(owner, owner_running, state_file) is expected


def test_markers_round_trip_and_foreign_text_is_no_marker(tmp_path):
    assert leftovers.parse_mark(procs.run_mark()).mark == procs.run_mark()
    assert leftovers.parse_mark(procs.cluster_mark(tmp_path)).mark == procs.cluster_mark(tmp_path)
    assert leftovers.parse_mark(procs.cluster_mark(tmp_path)).workdir == str(tmp_path.resolve())
    for text in ("", "run", "run:x:1", "cluster:1:2", "job:1:2", "anything else"):
        assert leftovers.parse_mark(text) is None


def test_compose_projects_name_their_owner_and_others_are_left_alone():
    owner = compose_projects.project_owner(compose_projects.owned_project_name())
    assert owner is not None and leftovers.owner_running(owner)
    # names this kcliff did not make (tests, the previous format, other tools) are never reaped
    for name in ("kcliff-test-1a2b3c4d", f"kcliff-{os.getpid()}-1a2b3c", "kcliff", "other-1-2-abcdef"):
        assert compose_projects.project_owner(name) is None


@pytest.mark.parametrize("foreign, cores, others, warned", [
    (0.0, 2, [], False),     # this kcliff alone
    (0.05, 2, [], False),    # an idle machine's background
    (0.5, 2, [], False),     # at the limit, not beyond it
    (0.6, 2, [], True),      # another engineer's JVM on a 2-core machine
    (1.8, 2, [], True),
    (3.0, 16, [], False),    # three busy cores of sixteen leave the run its share
    (0.0, 2, ["3 process(es) of kcliff process 7"], True),  # a live kcliff elsewhere, even when idle now
])
def test_the_load_rule(foreign, cores, others, warned):
    text = load.warning(foreign, cores, others)
    assert (text is not None) is warned
    if foreign > load.BUSY_SHARE * cores:
        assert f"{foreign:.1f} of {cores} cores busy" in text
    for other in others:
        assert other in text


@pytest.mark.parametrize("busy, total, own, cores, expected", [
    (200, 200, 200, 2, 0.0),   # both cores busy, all of it this run's cluster starting up
    (200, 200, 0, 2, 2.0),     # both busy with someone else's work
    (150, 200, 50, 2, 1.0),
    (10, 200, 12, 2, 0.0),     # own ticks read a moment later than /proc/stat: never negative
])
def test_this_runs_own_cpu_time_is_no_other_load(busy, total, own, cores, expected):
    assert load.busy_cores(busy, total, own, cores) == expected


def test_the_machine_is_sampled_over_a_second():
    foreign = load.foreign_busy_cores({procs.run_mark()}, [], seconds=0.5)
    assert 0.0 <= foreign <= os.cpu_count()


def _of_owner(pid: int) -> dict[int, str]:
    """Processes whose marker names kcliff process `pid` (brokers, toxiproxy, the perf tool), with
    their command lines."""
    found = {}
    for child, mark in leftovers.marked_processes().items():
        owner = leftovers.parse_mark(mark)
        if owner is not None and owner.pid == pid:
            found[child] = leftovers.command_of(child) + " " + Path(f"/proc/{child}/cmdline").read_bytes().decode(
                errors="replace").replace("\0", " ")[-300:]
    return found


def _under(path: Path) -> list[int]:
    """Live processes whose command line mentions `path` (broker configs, toxiproxy's config)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and str(path).encode() in (entry / "cmdline").read_bytes() \
                    and procs.pid_alive(int(entry.name)):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _namespaces() -> str:
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout


@pytest.mark.kafka
def test_sigkill_of_kcliff_mid_run_leaves_nothing_running(tmp_path):
    """A CI runner's cancel ends with SIGKILL: kcliff's own teardown never runs, yet its brokers,
    toxiproxy and perf tool must end with it, and (as root) the network namespaces of its capped links
    (a cap far above what the brokers reach here, so nothing else changes)."""
    capped = ["--link-mbit", "1000"] if os.geteuid() == 0 else []
    with open(tmp_path / "kcliff.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "kcliff.cli", "run", "--only", "reference",
                                 "--records", "300000", "--repeats", "1", "--prime", "0", "--client-rtt-ms", "10",
                                 *capped, "--workdir", str(tmp_path / "w"), "--out", str(tmp_path / "r.json")],
                                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        measuring = wait_for(lambda: [c for c in _of_owner(proc.pid).values() if "ProducerPerformance" in c],
                             420, "the perf tool to start measuring")
        running = _of_owner(proc.pid)
        assert sum("kafka.Kafka" in c for c in running.values()) == 3, running
        assert any("toxiproxy" in c for c in running.values()), running
        assert measuring and _under(tmp_path)
        assert not capped or f"kcliff-{proc.pid}-" in _namespaces()
        proc.kill()
        proc.wait(timeout=30)
        wait_for(lambda: not _of_owner(proc.pid) and not _under(tmp_path), 60,
                 "every process of the killed kcliff to end")
        wait_for(lambda: f"kcliff-{proc.pid}-" not in _namespaces(), 30, "its network namespaces to be removed")
    finally:
        if proc.poll() is None:
            proc.kill()
        procs.stop_pids(list(_of_owner(proc.pid)) + _under(tmp_path))


@pytest.mark.kafka
def test_a_cluster_left_up_on_purpose_survives_runs_and_is_not_other_load(tmp_path):
    """`kcliff cluster up` outlives its command by design: a run measures on it without reaping it
    or counting it as someone else's load, and `kcliff cluster down` ends it."""
    work = tmp_path / "w"
    up = run_kcliff("cluster", "up", "--workdir", str(work), timeout=300)
    try:
        assert up.returncode == 0, up.stderr[-2000:]
        brokers = _under(work / "cluster")
        assert len(brokers) == 3
        done = run_kcliff("run", "--only", "reference", "--records", "3000", "--warmup-records", "1000",
                          "--repeats", "1", "--prime", "0", "--workdir", str(work), "--out", str(tmp_path / "r.json"),
                          timeout=600)
        assert done.returncode in (0, 1), done.stderr[-3000:]
        assert "which is gone" not in done.stderr and all(procs.pid_alive(pid) for pid in brokers)
        env_load = json.loads((tmp_path / "r.json").read_text())["environment"]["load"]
        assert not any(str(work) in other for other in env_load["other_kcliff"]), env_load
    finally:
        down = run_kcliff("cluster", "down", "--workdir", str(work), timeout=120)
    assert down.returncode == 0, down.stderr
    wait_for(lambda: not _under(work), 30, "the cluster's processes to end")


def _project_of(pid: int) -> str | None:
    return next((p for p in compose_projects.owned_projects() if compose_projects.project_owner(p).pid == pid), None)


def _docker_objects(project: str) -> list[str]:
    label = f"label=com.docker.compose.project={project}"
    found = []
    for listing in (["ps", "--all", "--quiet"], ["network", "ls", "--quiet"], ["volume", "ls", "--quiet"]):
        found += subprocess.run(["docker", *listing, "--filter", label], capture_output=True, text=True,
                                timeout=60).stdout.split()
    return found


@pytest.mark.docker
def test_sigkill_of_kcliff_mid_run_removes_its_compose_stack(tmp_path, docker_engine):
    """The compose stack lives in dockerd, out of reach of the parent-death signal: the watchdog
    removes it, the producer's one-off container included."""
    with open(tmp_path / "kcliff.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "kcliff.cli", "run", "--backend", "compose", "--only",
                                 "reference", "--records", "300000", "--repeats", "1", "--prime", "0",
                                 "--workdir", str(tmp_path / "w"), "--out", str(tmp_path / "r.json")],
                                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    project = None
    try:
        project = wait_for(lambda: _project_of(proc.pid), 300, "the compose project")
        wait_for(lambda: subprocess.run(["docker", "ps", "--quiet", "--filter", f"label=com.docker.compose.project={project}",
                                         "--filter", "label=com.docker.compose.oneoff=True"],
                                        capture_output=True, text=True).stdout.strip(), 600, "the producer container")
        proc.kill()
        proc.wait(timeout=30)
        wait_for(lambda: not _docker_objects(project), 240, f"compose project {project} to be removed")
        assert not _of_owner(proc.pid)
    finally:
        if proc.poll() is None:
            proc.kill()
        if project:
            compose_projects.remove_project(project)
