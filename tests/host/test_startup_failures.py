"""Start-up failures end with one clear sentence, exit 2, and leave no process behind."""

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from conftest import KCLIFF, ROOT, run_kcliff, wait_for

from tests.backends.test_local_cluster import jvms_under


def test_no_java_is_one_sentence(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    done = run_kcliff("run", "--workdir", str(tmp_path / "w"), env={"PATH": str(bin_dir)}, timeout=60)
    assert done.returncode == 2
    assert "java not found on PATH: Kafka 4 needs Java 17 or newer" in done.stderr
    assert "Traceback" not in done.stderr


def test_kafka_jars_that_cannot_be_fetched(tmp_path):
    done = run_kcliff("run", "--kafka-version", "9.9.9", "--workdir", str(tmp_path / "w"),
                      env={"KCLIFF_CACHE": str(tmp_path / "cache")}, timeout=300)
    assert done.returncode == 2
    assert "could not fetch Kafka 9.9.9 jars from Maven Central" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "cache" / "kafka-9.9.9" / "libs").exists()


def test_kafka_home_without_a_distribution(tmp_path):
    done = run_kcliff("run", "--kafka-home", str(tmp_path), "--workdir", str(tmp_path / "w"), timeout=60)
    assert done.returncode == 2 and "no Kafka distribution at" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.kafka
def test_brokers_that_cannot_start_are_cleaned_up(tmp_path):
    # A heap larger than the machine: every broker JVM exits at once.
    done = run_kcliff("run", "--broker-heap-mb", "99999999", "--workdir", str(tmp_path / "w"), timeout=300)
    assert done.returncode == 2, done.stderr
    assert "exited during start-up" in done.stderr and "broker.log" in done.stderr
    assert "Traceback" not in done.stderr
    assert jvms_under(tmp_path) == []


needs_mount = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mount") is None,
                                 reason="needs root to mount a tmpfs")


@contextlib.contextmanager
def small_disk(where: Path, size_mb: int) -> Iterator[Path]:
    where.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@needs_mount
@pytest.mark.kafka
def test_too_little_disk_for_the_run_is_one_sentence(tmp_path):
    with small_disk(tmp_path / "small", 48) as small:
        done = run_kcliff("run", "--workdir", str(small), "--out", str(tmp_path / "r.json"), timeout=300)
        assert done.returncode == 2, done.stderr
        assert "not enough disk space for this run in" in done.stderr and "MB needed" in done.stderr
        assert "Traceback" not in done.stderr
        assert jvms_under(tmp_path) == []


@needs_mount
@pytest.mark.kafka
def test_disk_filling_up_mid_run_ends_it_and_keeps_what_was_measured(tmp_path):
    """Another process fills the disk after the reference's first run: the brokers take their log dir
    offline and stay up; kcliff must say so in one sentence, not wait out its budget."""
    out = tmp_path / "results.json"
    # room for the run's start-up check (the canaries' five topics need about 500 MB), filled below
    with small_disk(tmp_path / "small", 640) as small:
        proc = subprocess.Popen([*KCLIFF, "run", "--records", "10000", "--repeats", "2", "--prime", "0",
                                 "--workdir", str(small), "--out", str(out)],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            def first_run() -> list:
                assert proc.poll() is None, f"kcliff ended before its first run: {proc.communicate()[1][-2000:]}"
                # the reference's: a canary decided on its cliff in its warm-ups has a run before any round
                return out.exists() and [e for e in json.loads(out.read_text())["scenarios"]
                                         if e["id"] == "reference" and e["runs"]]
            wait_for(first_run, 600, "the reference's first run")
            with open(small / "filler", "wb") as filler:
                os.posix_fallocate(filler.fileno(), 0, shutil.disk_usage(small).free - 2 ** 20)
            _, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 2, err[-2000:]
        assert "MB free, so the brokers cannot write their logs" in err and "Traceback" not in err
        doc = json.loads(out.read_text())
        assert doc["status"] == "failed"
        assert doc["scenarios"][0]["id"] == "reference" and doc["scenarios"][0]["runs"]
        assert jvms_under(tmp_path) == []


def test_compose_backend_without_docker_is_one_sentence(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("java", "mvn"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    done = run_kcliff("run", "--backend", "compose", "--workdir", str(tmp_path / "w"),
                      env={"PATH": str(bin_dir), "HOME": str(tmp_path), "KCLIFF_DOCKER_COMPOSE": ""}, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "not found: install Docker Engine" in done.stderr and "scripts/setup-docker.sh" in done.stderr
    assert "Traceback" not in done.stderr
