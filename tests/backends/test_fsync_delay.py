"""Storage emulation (--fsync-delay-ms) without Kafka: the shim builds from our source, holds every
fsync and fdatasync of a file under the delayed directory (and only there) to at least N ms, in a
Python process and in a JVM alike; the option is validated and recorded in the results."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff.backends import storage
from kcliff.errors import ClusterError
from kcliff.measure import environment

DELAY_MS = 100  # every delayed call must take at least this long
# A real fsync on the 2-core development VM took a median of 0.7-1.2 ms and up to 9 ms while
# another run kept both cores busy: a quarter of the delay leaves a wide margin for the spared ones.
SPARED_MEDIAN_MS = DELAY_MS / 4
CALLS = 5

TIMER = textwrap.dedent("""
    import json, os, sys, time
    def timed(path, call):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        took = []
        for _ in range(int(sys.argv[1])):
            os.write(fd, b"x" * 4096)
            began = time.perf_counter()
            call(fd)
            took.append((time.perf_counter() - began) * 1e3)
        os.close(fd)
        return sorted(took)
    print(json.dumps({f"{path}:{name}": timed(path, getattr(os, name))
                      for path in sys.argv[2:] for name in ("fsync", "fdatasync")}))
""")


@pytest.fixture(scope="module")
def library() -> Path:
    done = subprocess.run([str(ROOT / "scripts" / "setup-fsync-delay.sh")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return storage.find_library()


def preloaded_env(library: Path, data: Path) -> dict[str, str]:
    return {**os.environ, **storage.broker_env(DELAY_MS, data, library)}


def test_only_fsyncs_under_the_data_dir_and_outside_the_metadata_log_are_delayed(library, tmp_path):
    data, elsewhere = tmp_path / "data", tmp_path / "elsewhere"
    metadata = data / storage.METADATA_LOG
    for directory in (data, elsewhere, metadata):
        directory.mkdir(parents=True)
    files = [data / "00000.log", elsewhere / "x.log", metadata / "00000.log", tmp_path / "data-not"]
    done = subprocess.run([sys.executable, "-c", TIMER, str(CALLS), *map(str, files)], capture_output=True,
                          text=True, env=preloaded_env(library, data), timeout=60)
    assert done.returncode == 0, done.stderr
    took = json.loads(done.stdout)
    for name in ("fsync", "fdatasync"):
        assert took[f"{files[0]}:{name}"][0] >= DELAY_MS, took
        for spared in files[1:]:  # outside, the metadata log, a sibling sharing the name's prefix
            assert took[f"{spared}:{name}"][CALLS // 2] < SPARED_MEDIAN_MS, (spared, took)


def test_a_jvms_file_channel_force_goes_through_the_shim(library, tmp_path):
    """Kafka flushes a segment with FileChannel.force, which the JVM makes an fsync (force(true)) or
    an fdatasync (force(false)) through libc."""
    if not shutil.which("java"):
        pytest.skip("no java on PATH")
    source = tmp_path / "Force.java"
    source.write_text(textwrap.dedent("""
        import java.nio.ByteBuffer;
        import java.nio.channels.FileChannel;
        import java.nio.file.Path;
        import java.nio.file.StandardOpenOption;
        public class Force {
            public static void main(String[] args) throws Exception {
                try (FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE,
                                                       StandardOpenOption.WRITE)) {
                    for (boolean metadata : new boolean[] {true, false}) {
                        ch.write(ByteBuffer.wrap(new byte[4096]));
                        long began = System.nanoTime();
                        ch.force(metadata);
                        System.out.println((System.nanoTime() - began) / 1e6);
                    }
                }
            }
        }
    """))
    data = tmp_path / "data"
    data.mkdir()
    done = subprocess.run(["java", str(source), str(data / "segment.log")], capture_output=True, text=True,
                          env=preloaded_env(library, data), timeout=120)
    assert done.returncode == 0, done.stderr
    assert all(float(ms) >= DELAY_MS for ms in done.stdout.split()), done.stdout


def test_the_shim_is_built_on_first_use_under_its_sources_hash(tmp_path, monkeypatch):
    """An installed kcliff has no setup script: the first run builds the shim into the cache."""
    monkeypatch.setenv("KCLIFF_CACHE", str(tmp_path))
    monkeypatch.setenv("CC", "no-such-compiler")
    with pytest.raises(ClusterError, match="no C compiler"):
        storage.find_library()
    assert not any(tmp_path.rglob("*.so*"))
    monkeypatch.delenv("CC")
    built = storage.find_library()
    assert built == storage.library_path() and built.parent.parent == tmp_path
    assert built.name == storage.LIBRARY and [p.name for p in built.parent.iterdir()] == [built.name]


def test_broker_env_names_resolved_paths_and_keeps_another_preload(tmp_path, monkeypatch):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.setenv("LD_PRELOAD", "/other.so")
    env = storage.broker_env(2.5, tmp_path / "link", Path("/shim.so"))
    real = (tmp_path / "real").resolve()
    assert env == {"LD_PRELOAD": "/shim.so /other.so", "KCLIFF_FSYNC_DELAY_MS": "2.5",
                   "KCLIFF_FSYNC_DELAY_DIRS": str(real),
                   "KCLIFF_FSYNC_DELAY_EXCEPT": str(real / "__cluster_metadata-0")}


@pytest.mark.parametrize("value, words", [
    ("-5", "expected milliseconds between 0 and 1000, got '-5'"),
    ("fast", "expected milliseconds between 0 and 1000, got 'fast'"),
    ("nan", "expected milliseconds between 0 and 1000"),
    ("1001", "expected milliseconds between 0 and 1000"),
])
def test_a_bad_delay_is_refused_with_exit_2(value, words, tmp_path):
    done = run_kcliff("run", "--fsync-delay-ms", value, "--workdir", str(tmp_path / "w"), timeout=60)
    assert done.returncode == 2 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "w").exists()


def test_the_delay_is_refused_on_the_external_backend(tmp_path):
    """kcliff cannot reach into brokers it did not start; compose's brokers it starts take the delay."""
    for side, linger in (("base", 5), ("head", 50)):  # a measured change, so check reaches for a cluster
        (tmp_path / side).mkdir()
        (tmp_path / side / "producer.properties").write_text(f"linger.ms={linger}\n")
    for command in (["run"], ["check", "--base", str(tmp_path / "base"), "--head", str(tmp_path / "head")]):
        done = run_kcliff(*command, "--bootstrap-servers", "127.0.0.1:1", "--fsync-delay-ms", "5",
                          "--workdir", str(tmp_path / "w"), timeout=60)
        assert done.returncode == 2, done.stderr
        assert "--fsync-delay-ms is for the local and compose backends, not external" in done.stderr
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize("argv, backend, delay, given", [
    ([], "local", storage.DEFAULT_FSYNC_DELAY_MS, False),
    (["--backend", "compose"], "compose", storage.DEFAULT_FSYNC_DELAY_MS, False),
    (["--bootstrap-servers", "127.0.0.1:9092"], "external", 0.0, False),
    (["--fsync-delay-ms", "0"], "local", 0.0, True),  # the disk's own, asked for
    (["--backend", "compose", "--fsync-delay-ms", "5"], "compose", 5.0, True),
])
def test_check_and_run_measure_on_the_emulated_disk_by_default(argv, backend, delay, given):
    """One default for every command that starts brokers, the one make run uses; an external
    cluster's disk is its own."""
    from kcliff.cli import build_parser
    from kcliff.commands import options
    for command in (["check", "--base", "b", "--head", "h"], ["run"]):
        config = options.cluster_config(build_parser().parse_args([*command, *argv]))
        assert (config.backend, config.caps.fsync_delay_ms, config.caps.fsync_delay_given) == (backend, delay, given)


def test_make_run_leaves_the_default_to_kcliff():
    """The Makefile names no delay of its own unless FSYNC_MS is set, so make run and check agree."""
    done = subprocess.run(["make", "-n", "run"], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "FSYNC_MS": ""})
    assert done.returncode == 0, done.stderr
    assert "kcliff run" in done.stdout and "--fsync-delay-ms" not in done.stdout
    done = subprocess.run(["make", "-n", "run"], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "FSYNC_MS": "0"})
    assert "--fsync-delay-ms 0" in done.stdout


def test_cluster_up_takes_the_delay_as_a_cap():
    from kcliff.cli import build_parser
    from kcliff.commands import options
    args = build_parser().parse_args(["cluster", "up", "--fsync-delay-ms", "10"])
    assert options.caps(args).fsync_delay_ms == 10
    assert options.caps(build_parser().parse_args(["cluster", "up"])).fsync_delay_ms == storage.DEFAULT_FSYNC_DELAY_MS


def test_the_environment_records_the_delay_and_the_storage_warning_yields_to_it(tmp_path):
    shm = Path("/dev/shm")
    if environment.filesystem_of(shm) != "tmpfs":
        pytest.skip("no tmpfs at /dev/shm on this machine")
    directory = shm / f"kcliff-probe-{tmp_path.name}"
    try:
        bare, emulated = environment.storage(directory), environment.storage(directory, 20.0)
    finally:
        directory.rmdir()
    assert bare is not None and bare["emulated_fsync_ms"] == 0.0 and environment.fsync_is_free({"storage": bare})
    assert emulated is not None and emulated["emulated_fsync_ms"] == 20.0
    assert not environment.fsync_is_free({"storage": emulated})
    older = {k: v for k, v in bare.items() if k != "emulated_fsync_ms"}  # a file written before the emulation
    assert environment.fsync_is_free({"storage": older})


@pytest.mark.parametrize("environment, asked, says", [
    ({"backend": "external", "emulated_fsync_ms": 0.0}, None, "kcliff cannot emulate a slower disk in brokers it did not start"),
    ({"backend": "compose", "emulated_fsync_ms": 0.0}, None, "the brokers' image cannot preload kcliff's fsync shim"),
    ({"backend": "local", "emulated_fsync_ms": 0.0}, 0.0, "--fsync-delay-ms 0 left the brokers on their own disk"),
    ({"backend": "local", "emulated_fsync_ms": 20.0}, None, None),
    ({"backend": "compose", "emulated_fsync_ms": 20.0}, None, None),
])
def test_a_check_names_the_canaries_it_cannot_vouch_for_once(environment, asked, says):
    from types import SimpleNamespace

    from kcliff.judge.self_test import DEFAULT_CANARIES, unvouched_canaries
    from kcliff.scenario.suites import load_suites
    canaries = [s for s in load_suites(["canaries"]) if s.id in DEFAULT_CANARIES.split(",")]
    notes = unvouched_canaries(canaries, SimpleNamespace(environment=environment), asked)
    if says is None:
        assert notes == []
    else:
        assert len(notes) == 1 and says in notes[0]
        assert "flush-1" in notes[0] and "batching-off" not in notes[0]
