"""A real cluster behind capped links and disks (issue #42): its brokers run in network namespaces of
their own, a run held by a 2 MB/s disk says the disk bound it, at its cap, with CPU left over, and
the run table says so. Its own cluster: the caps are set when the brokers start."""

import json
import os
import subprocess

import pytest
from conftest import run_kcliff

DISK_MB_S = 2.0
# Measured here: 2.00-2.01 MB/s of log growth against a 2.0 MB/s cap, CPU 20-35% busy; and a 3 MB/s cap
# at 3.00-3.01 (docs/profiles.md). The bar: within 10% of the cap.
WITHIN = 0.10


@pytest.mark.kafka
@pytest.mark.skipif(os.geteuid() != 0, reason="capped links need root (network namespaces)")
def test_a_disk_capped_run_is_bound_by_its_disk_at_the_cap_with_cpu_left_over(tmp_path):
    out = tmp_path / "r.json"
    done = run_kcliff("run", "--only", "reference", "--records", "20000", "--warmup-records", "5000", "--repeats", "2",
                      "--prime", "0", "--link-mbit", "200", "--disk-mb-s", f"{DISK_MB_S:g}", "--no-baselines",
                      "--workdir", str(tmp_path / "w"), "--out", str(out), timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    doc = json.loads(out.read_text())
    runs = [r for r in doc["scenarios"][0]["runs"] if r["complete"]]
    assert runs and all(r["bound"]["resource"] == "disk" for r in runs), [r["bound"] for r in runs]
    for run in runs:
        assert abs(run["bound"]["disk_mb_s"] / DISK_MB_S - 1) <= WITHIN, run["bound"]
        assert run["bound"]["cpu_busy"] < 0.9, run["bound"]  # what is left over when bytes bind
    assert "reference: bound by disk" in done.stdout
    # caps given by hand are a rig of their own, never the CPU-bound rig's baselines and series
    named = f"link-200mbit-disk-{DISK_MB_S:g}mbs"
    assert doc["environment"]["rig"]["profile"] == named and doc["environment"]["runner_class"].endswith("@" + named)
    assert f"rig: {named} (each broker's link 200 Mbit/s, disk {DISK_MB_S:g} MB/s; disk meant to bind)" in done.stdout
    assert "kcliff-" not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
