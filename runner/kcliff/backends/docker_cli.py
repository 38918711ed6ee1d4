"""The docker and docker compose binaries: finding compose v2, running docker with clear errors, and
which Kafka image a stack runs (apache/kafka, or the stand-in scripts/setup-docker.sh builds)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from kcliff.errors import ClusterError, InputError

DEFAULT_IMAGE = "apache/kafka"
STANDIN_IMAGE = "kcliff/kafka-standin"  # built by scripts/setup-docker.sh where no registry is reachable
DOCKER_HINT = "install Docker Engine with the compose v2 plugin (in a kcliff checkout: scripts/setup-docker.sh)"


def compose_base_command() -> list[str]:
    """The compose v2 binary itself when it can be found (a signal to it reaches the container of a
    `run`; through the docker CLI's plugin shim it does not), else `docker compose`."""
    candidates = [os.environ.get("KCLIFF_DOCKER_COMPOSE"), shutil.which("docker-compose"),
                  str(Path.home() / ".docker/cli-plugins/docker-compose"),
                  "/usr/local/lib/docker/cli-plugins/docker-compose", "/usr/libexec/docker/cli-plugins/docker-compose",
                  "/usr/lib/docker/cli-plugins/docker-compose"]
    for path in candidates:
        if path and os.access(path, os.X_OK) and _is_compose_v2([path]):
            return [path]
    if shutil.which("docker") and _is_compose_v2(["docker", "compose"]):
        return ["docker", "compose"]
    raise InputError(f"docker compose v2 not found: {DOCKER_HINT}")


def _is_compose_v2(base: list[str]) -> bool:
    try:
        done = subprocess.run(base + ["version", "--short"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and done.stdout.strip().lstrip("v").startswith("2.")


def docker(*args: str, timeout: float = 60.0, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise InputError(f"docker not found: {DOCKER_HINT}") from None
    except subprocess.TimeoutExpired:
        raise ClusterError(f"docker {' '.join(args[:2])} took over {timeout:.0f}s") from None
    if check and done.returncode != 0:
        raise ClusterError(f"docker {' '.join(args[:2])} failed: {tail(done.stderr or done.stdout)}")
    return done


def tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def image_present(image: str) -> bool:
    return docker("image", "inspect", "-f", "{{.Id}}", image, check=False).returncode == 0


def choose_image(kafka_version: str, image: str | None = None) -> tuple[str, str]:
    """(repository, pull policy). An explicit image (argument or KCLIFF_KAFKA_IMAGE) wins; otherwise
    apache/kafka when it is present locally, else the stand-in when it is, else apache/kafka pulled
    on first use (GitHub's runners can pull; this machine cannot)."""
    chosen = image or os.environ.get("KCLIFF_KAFKA_IMAGE")
    if not chosen:
        if image_present(f"{DEFAULT_IMAGE}:{kafka_version}"):
            chosen = DEFAULT_IMAGE
        elif image_present(f"{STANDIN_IMAGE}:{kafka_version}"):
            chosen = STANDIN_IMAGE
        else:
            chosen = DEFAULT_IMAGE
    if ":" in chosen.rsplit("/", 1)[-1]:
        raise InputError(f"give the image without a tag ({chosen!r}): the tag is the Kafka version")
    present = image_present(f"{chosen}:{kafka_version}")
    if not present and chosen == STANDIN_IMAGE:
        raise InputError(f"{STANDIN_IMAGE}:{kafka_version} is not built: run scripts/setup-docker.sh")
    return chosen, "never" if present else "missing"
