"""Start-up failures end with one clear sentence, exit 2, and leave no process behind."""

import os
import shutil
import sys
from pathlib import Path

import pytest

from conftest import run_kcliff
from test_local_cluster import jvms_under


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


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mount") is None, reason="needs root to mount a tmpfs")
@pytest.mark.kafka
def test_disk_full_during_a_run_keeps_what_was_measured(tmp_path):
    import subprocess
    small = tmp_path / "small"
    small.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(small)], check=True)
    try:
        out = tmp_path / "results.json"
        # The brokers stay up with their only log dir offline, so the run ends on its time budget.
        done = run_kcliff("run", "--records", "200000", "--repeats", "1", "--budget", "60", "--prime", "0", "--workdir", str(small),
                          "--out", str(out),
                          timeout=600)
        assert done.returncode in (1, 2), done.stderr
        assert "Traceback" not in done.stderr
        assert jvms_under(tmp_path) == []
    finally:
        subprocess.run(["umount", "-l", str(small)], check=False)


def test_compose_backend_without_docker_is_one_sentence(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("java", "mvn"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    done = run_kcliff("run", "--backend", "compose", "--workdir", str(tmp_path / "w"),
                      env={"PATH": str(bin_dir), "HOME": str(tmp_path), "KCLIFF_DOCKER_COMPOSE": ""}, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "not found: run scripts/setup-docker.sh" in done.stderr and "Traceback" not in done.stderr
