#!/usr/bin/env python3
"""Build runner/kcliff/data/librdkafka-configs.json: librdkafka's properties of several releases, read out
of the librdkafka each confluent-kafka wheel bundles (docs/librdkafka.md).

For each confluent-kafka release in WHEELS it downloads the manylinux x86_64 wheel once (pip download
--no-deps, into ~/.cache/kcliff/librdkafka-wheels), takes the bundled librdkafka shared library out of it,
and runs kcliff.kafka.librdkafka_dump on it in a process of its own (each library is loaded into a fresh
interpreter, so releases never share one). The per-release tables are merged as data/kafka-configs.json is:
one variant per distinct definition of a property, with the releases that hold it. A rerun writes a
byte-identical file.

    scripts/build-librdkafka-configs.py                       # every release in WHEELS -> the committed file
    scripts/build-librdkafka-configs.py --wheel 2.16.1 --out -   # one release's merged document, to stdout
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "runner" / "kcliff" / "data" / "librdkafka-configs.json"
CACHE = Path.home() / ".cache" / "kcliff" / "librdkafka-wheels"
# The newest confluent-kafka of each 2.x minor, which bundles the newest librdkafka of that minor (2.16.1
# bundles 2.16.0, 2.12.2 bundles 2.12.1, 2.8.2 bundles 2.8.0). 2.7.0 and 2.9.0 are left out: they bundle
# the librdkafka of the minor before (2.6.1, 2.8.0). Add a newer one here and rerun.
WHEELS = ("2.0.2", "2.1.1", "2.2.0", "2.3.0", "2.4.0", "2.5.3", "2.6.1", "2.8.2", "2.10.1", "2.11.1", "2.12.2",
          "2.13.2", "2.14.2", "2.15.1", "2.16.1")
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux2010_x86_64")
PYTHONS = ("311", "310", "39", "38")  # the library inside does not depend on Python: any wheel of the release
SCHEMA, VERSION = "kcliff.librdkafka-configs", 1


def _pip() -> list[str]:
    if importlib.util.find_spec("pip") is not None:
        return [sys.executable, "-m", "pip"]
    return [shutil.which("pip3") or shutil.which("pip") or "pip"]


def wheel(release: str) -> Path:
    """The release's manylinux wheel, downloaded once."""
    target = CACHE / release
    found = sorted(target.glob("confluent_kafka-*.whl"))
    for python in PYTHONS if not found else ():
        platforms = [arg for p in PLATFORMS for arg in ("--platform", p)]
        done = subprocess.run([*_pip(), "download", "--quiet", "--no-deps", "--only-binary=:all:", *platforms,
                               "--python-version", python, "--implementation", "cp", "-d", str(target),
                               f"confluent-kafka=={release}"], capture_output=True, text=True)
        found = sorted(target.glob("confluent_kafka-*.whl"))
        if done.returncode == 0 and found:
            break
    if not found:
        raise SystemExit(f"no manylinux x86_64 wheel of confluent-kafka {release} could be downloaded")
    return found[0]


def library(release: str) -> Path:
    """The librdkafka shared library the release's wheel bundles, unpacked beside it."""
    whl = wheel(release)
    with zipfile.ZipFile(whl) as archive:
        names = [n for n in archive.namelist() if "/librdkafka" in n and ".so" in n]
        if len(names) != 1:
            raise SystemExit(f"{whl.name}: expected one bundled librdkafka, found {names}")
        out = CACHE / release / Path(names[0]).name
        if not out.exists():
            out.write_bytes(archive.read(names[0]))
    return out


def dump(path: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "kcliff.kafka.librdkafka_dump", str(path)], capture_output=True,
                          text=True, check=True, env={"PYTHONPATH": str(ROOT / "runner"), "PATH": "/usr/bin:/bin"})
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def _release_key(release: str) -> tuple[int, ...]:
    return tuple(int(p) for p in release.split("."))


def span(held: list[str], releases: list[str]) -> str:
    """'2.0.2..2.3.0,2.5.0': the contiguous runs of `releases` that `held` covers."""
    runs: list[list[str]] = []
    previous = -2
    for index, release in enumerate(releases):
        if release in held:
            if index == previous + 1:
                runs[-1].append(release)
            else:
                runs.append([release])
            previous = index
    return ",".join(run[0] if len(run) == 1 else f"{run[0]}..{run[-1]}" for run in runs)


def merge(dumps: list[dict[str, Any]]) -> dict[str, Any]:
    """The per-release tables as one document: per scope and property, one variant per distinct
    definition, ordered by the first release holding it."""
    dumps = sorted(dumps, key=lambda d: _release_key(d["release"]))
    releases = [d["release"] for d in dumps]
    if len(set(releases)) != len(releases):
        raise SystemExit(f"two wheels bundle the same librdkafka: {releases}")
    scopes: dict[str, dict[str, list[dict[str, Any]]]] = {"global": {}, "topic": {}}
    for scope, properties in scopes.items():
        names = sorted({n for d in dumps for n in d["properties"][scope]})
        for name in names:
            held: dict[str, list[str]] = {}  # definition as JSON -> releases holding it
            for d in dumps:
                prop = d["properties"][scope].get(name)
                if prop is not None:
                    held.setdefault(json.dumps(prop, sort_keys=True), []).append(d["release"])
            properties[name] = [{"releases": span(rs, releases), **json.loads(text)} for text, rs in held.items()]
    return {"schema": SCHEMA, "version": VERSION,
            "source": "rd_kafka_conf_properties_show() of the librdkafka bundled in confluent-kafka's manylinux "
                      "wheels (scripts/build-librdkafka-configs.py)",
            "releases": releases, "scopes": scopes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wheel", action="append", help="a confluent-kafka release (repeatable; default: WHEELS)")
    parser.add_argument("--out", default=str(OUT), help="where to write ('-': stdout)")
    args = parser.parse_args()
    dumps = []
    for release in args.wheel or WHEELS:
        path = library(release)
        dumps.append(dump(path))
        print(f"confluent-kafka {release}: librdkafka {dumps[-1]['release']}", file=sys.stderr)
    text = json.dumps(merge(dumps), indent=1, sort_keys=True) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
