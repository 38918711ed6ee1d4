"""The emulated disk on the compose backend: the compose file mounts kcliff's fsync shim into the
brokers (never the producer) and the stand-in's entry point preloads it into the broker JVM alone;
an image that cannot preload it refuses an explicit --fsync-delay-ms and drops kcliff's default; and
(markers `docker`, `kafka`) a real compose cluster with the default delay shows flush-1's cliff.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest
from conftest import ROOT, make_run_fsync_ms
from kcliff.backends import compose_caps, compose_file, docker_cli, storage
from kcliff.errors import InputError

from tests.backends.test_compose import _config

RUN_SCRIPT = ROOT / "compose" / "image" / "docker" / "run"


def test_the_entry_point_preloads_only_the_broker_it_execs():
    """LD_PRELOAD is exported after the configuration JVM ran and right before the broker's exec, so
    nothing else the container runs (that JVM, `docker exec`, the healthcheck) loads the shim."""
    lines = RUN_SCRIPT.read_text().splitlines()
    setup = next(i for i, line in enumerate(lines) if "KafkaDockerWrapper" in line)
    preload = next(i for i, line in enumerate(lines) if "export LD_PRELOAD=" in line)
    launch = next(i for i, line in enumerate(lines) if line.startswith("exec ") and "kafka-server-start" in line)
    assert setup < preload < launch
    assert sum("LD_PRELOAD" in line for line in lines if not line.lstrip().startswith("#")) == 1


@pytest.fixture(scope="module")
def compose_base() -> list[str]:
    try:
        return docker_cli.compose_base_command()
    except InputError as exc:
        pytest.skip(f"SKIPPED, docker compose unavailable: {exc}")


def test_the_shim_is_mounted_into_the_brokers_only(compose_base, tmp_path):
    shim = tmp_path / storage.LIBRARY
    shim.write_bytes(b"")
    plain = _config(compose_base, {})
    emulated = _config(compose_base, {"KCLIFF_FSYNC_DELAY_LIB": str(shim), "KCLIFF_FSYNC_DELAY_MS": "20",
                                      "KCLIFF_BROKER_PRELOAD": compose_file.SHIM_IN_CONTAINER})
    for name in compose_file.BROKERS:
        env = emulated["services"][name]["environment"]
        assert env["KCLIFF_FSYNC_DELAY_MS"] == "20" and env["KCLIFF_BROKER_PRELOAD"] == compose_file.SHIM_IN_CONTAINER
        assert env["KCLIFF_FSYNC_DELAY_DIRS"] == env["KAFKA_LOG_DIRS"]
        assert env["KCLIFF_FSYNC_DELAY_EXCEPT"] == f"{env['KAFKA_LOG_DIRS']}/{storage.METADATA_LOG}"
        mounts = {v["target"]: v for v in emulated["services"][name]["volumes"]}
        assert mounts[compose_file.SHIM_IN_CONTAINER]["source"] == str(shim)
        assert mounts[compose_file.SHIM_IN_CONTAINER]["read_only"] is True
        # not emulated: nothing preloaded, /dev/null where the shim would be
        assert plain["services"][name]["environment"]["KCLIFF_BROKER_PRELOAD"] == ""
        assert {v["target"]: v["source"] for v in plain["services"][name]["volumes"]}[
            compose_file.SHIM_IN_CONTAINER] == "/dev/null"
    producer = emulated["services"]["producer"]
    assert not any("KCLIFF" in k for k in producer.get("environment", {}))
    assert compose_file.SHIM_IN_CONTAINER not in {v["target"] for v in producer.get("volumes", [])}


@pytest.mark.docker
def test_an_image_without_the_preload_hook_gets_the_musl_build_or_refuses_the_delay(docker_engine, tmp_path,
                                                                                    monkeypatch):
    """apache/kafka's entry point has no preload hook and its loader is Alpine's musl: any local image without
    kcliff's label stands in for it here (the stand-in base: scripts/setup-docker.sh builds it first), since
    no image can be pulled. It gets the musl build preloaded into every process of its containers; with no
    musl-gcc to build it an explicit --fsync-delay-ms or a disk cap is refused and kcliff's default dropped."""
    base = "kcliff/standin-base:bookworm-jre17"
    if not docker_cli.image_present(base):
        pytest.skip(f"{base} is not built (scripts/setup-docker.sh)")
    asked = compose_file.ComposeCaps(fsync_delay_ms=20.0, fsync_delay_given=True)
    assert compose_caps.emulation_caps(asked, base).shim_libc == storage.Libc.MUSL
    monkeypatch.setenv("KCLIFF_CACHE", str(tmp_path))  # nothing built yet, and no musl-gcc to build it
    real_which = storage.shutil.which
    monkeypatch.setattr(storage.shutil, "which", lambda name: None if name == "musl-gcc" else real_which(name))
    with pytest.raises(InputError, match="musl-tools"):
        compose_caps.emulation_caps(asked, base)
    default = dataclasses.replace(asked, fsync_delay_given=False)
    assert compose_caps.emulation_caps(default, base).fsync_delay_ms == 0.0
    with pytest.raises(InputError, match="disk-mb-s"):  # a disk cap is never dropped: the run would not be capped
        compose_caps.emulation_caps(dataclasses.replace(default, disk_mb_s=3.0), base)
    standin = f"{docker_cli.STANDIN_IMAGE}:4.2.0"
    if docker_cli.image_present(standin):
        assert compose_caps.emulation_caps(asked, standin) == asked


def test_the_musl_build_is_preloaded_into_every_process_of_an_image_without_the_hook(compose_base, tmp_path):
    shim = tmp_path / storage.LIBRARY
    shim.write_bytes(b"")
    emulated = _config(compose_base, {"KCLIFF_FSYNC_DELAY_LIB": str(shim), "KCLIFF_FSYNC_DELAY_MS": "20",
                                      "KCLIFF_LD_PRELOAD": compose_file.SHIM_IN_CONTAINER})
    for name in compose_file.BROKERS:
        env = emulated["services"][name]["environment"]
        assert env["LD_PRELOAD"] == compose_file.SHIM_IN_CONTAINER and env["KCLIFF_BROKER_PRELOAD"] == ""
    assert _config(compose_base, {})["services"]["kafka-1"]["environment"]["LD_PRELOAD"] == ""


# flush-1 on compose with the default 20 ms per fsync, 15,000 records, one run each after 10 s of
# priming: 0.14x, 0.11x and 0.10x of the reference in 3 runs here (54-55 s each), against its 0.65
# bound; the containers' own disk gave it 0.29x-0.71x in full runs (docs/compose.md).
@pytest.mark.docker
@pytest.mark.kafka
def test_the_emulated_disk_shows_flush_1_on_compose(docker_engine, tmp_path):
    out = tmp_path / "results.json"
    done = subprocess.run([sys.executable, "-m", "kcliff.cli", "run", "--backend", "compose", "--suite", "canaries",
                           "--only", "flush-1", "--records", "15000", "--repeats", "1", "--prime", "10",
                           "--no-baselines", "--workdir", str(tmp_path / "w"), "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert out.exists(), done.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert doc["environment"]["emulated_fsync_ms"] == make_run_fsync_ms()  # the default, as the check's
    by_id = {e["id"]: e for e in doc["scenarios"]}
    reference, canary = by_id["reference"], by_id["flush-1"]
    ratio = canary["summary"]["mb_per_sec"]["median"] / reference["summary"]["mb_per_sec"]["median"]
    print(f"compose, {make_run_fsync_ms():g} ms per fsync: flush-1 {ratio:.2f}x of the reference")
    assert ratio < canary["cliff"]["max_ratio"], done.stderr[-1500:]
    assert done.returncode == 0, done.stderr[-2000:]
