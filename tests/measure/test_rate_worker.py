"""The Python side of the load generator's --serve protocol (kcliff.measure.at_rate.RateWorker): a
request line per run, the run's output lines, then {"type":"done","exit":N}. The served program here
replays a recorded real run (tests/data/loadgen/linger5-100rps.log) for each request, so what is
tested is the protocol's handling (one process for many runs, a run's lines apart from the next's, a
failed or vanished worker replaced), not Kafka; tests/measure/test_at_rate.py runs the real one."""

import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from kcliff.errors import InputError
from kcliff.host import procs
from kcliff.kafka import loadgen
from kcliff.measure import at_rate
from kcliff.results.model import StopKind

RECORDED = Path(__file__).parents[1] / "data" / "loadgen" / "linger5-100rps.log"

# Answers each request line by its topic: "ok" replays the recorded run, "unreachable" ends it with exit
# 1, "refused" with exit 2, "vanish" exits the program, "hang" never answers. Every start is counted.
SERVED = textwrap.dedent("""
    import sys
    recorded, starts = sys.argv[1], sys.argv[2]
    with open(starts, "a") as f:
        f.write("start\\n")
    lines = [l for l in open(recorded) if l.startswith("{")]
    for request in sys.stdin:
        topic = request.rstrip("\\n").split("\\t")[3]
        if topic == "vanish":
            sys.exit(0)
        if topic == "hang":
            sys.stdin.readline()
        if topic == "ok":
            sys.stdout.writelines(lines)
        code = {"ok": 0, "unreachable": 1, "refused": 2}[topic]
        print('{"type":"done","exit":%d}' % code, flush=True)
""")


@pytest.fixture
def worker(tmp_path, monkeypatch):
    script, starts = tmp_path / "served.py", tmp_path / "starts"
    script.write_text(SERVED)
    monkeypatch.setattr(loadgen, "ensure", lambda: ())
    cluster = SimpleNamespace(tool_bootstrap="127.0.0.1:9092",
                              tool_command=lambda main, args, files, jars: [sys.executable, str(script), str(RECORDED),
                                                                            str(starts), *args])
    made = at_rate.RateWorker(cluster, tmp_path)
    yield made, cluster, starts
    made.end()


def run(worker: at_rate.RateWorker, cluster, topic: str, tmp_path: Path, name: str, cap_s: float = 30.0):
    args, _ = at_rate.rate_args(cluster, topic, 100, 4, 2, tmp_path / "p.properties")
    return worker.run(args, tmp_path / f"{name}.log", cap_s, None)


def test_runs_one_after_another_are_served_by_one_process_each_with_its_own_lines(worker, tmp_path):
    made, cluster, starts = worker
    first = run(made, cluster, "ok", tmp_path, "first")
    second = run(made, cluster, "ok", tmp_path, "second")
    assert first.summary is not None and second.summary is not None
    assert first.summary == second.summary  # the same replayed run: nothing of the first leaks into the second
    assert len(first.progress) == len(second.progress) == 6
    assert starts.read_text().count("start") == 1
    log = (tmp_path / "second.log").read_text()
    assert log.startswith("$ ") and "--serve" in log and '"type":"done"' not in log


def test_a_failed_run_ends_the_worker_and_the_next_run_starts_another(worker, tmp_path):
    made, cluster, starts = worker
    failed = run(made, cluster, "unreachable", tmp_path, "failed")
    assert failed.summary is None and failed.stop_kind is StopKind.FAILED
    assert "could not reach the cluster" in (failed.failure or "")
    gone = run(made, cluster, "vanish", tmp_path, "gone")
    assert gone.summary is None and gone.stop_kind is StopKind.FAILED and gone.exit_code is None
    assert run(made, cluster, "ok", tmp_path, "after").summary is not None
    assert starts.read_text().count("start") == 3


def test_refused_arguments_are_bad_input(worker, tmp_path):
    made, cluster, _ = worker
    with pytest.raises(InputError, match="refused its arguments"):
        run(made, cluster, "refused", tmp_path, "refused")


def test_a_run_past_its_cap_is_cut_and_its_process_ended(worker, tmp_path):
    made, cluster, _ = worker
    run(made, cluster, "ok", tmp_path, "before")
    pid = made._tool.proc.pid if made._tool else None
    cut = run(made, cluster, "hang", tmp_path, "hang", cap_s=1.5)
    assert cut.stop_kind is StopKind.BUDGET and cut.summary is None
    assert made._tool is None and pid is not None and not procs.pid_alive(pid)
