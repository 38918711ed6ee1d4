"""How long a local cluster takes to start (format, three brokers, registered, a topic writable), with
the brokers and the storage formatter started from class archives (as kcliff starts them) and without,
alternating, each start on a fresh workdir with the default emulated disk.

    .venv/bin/python benchmarks/bench_cluster_start.py [starts of each kind] [--save FILE.json]

The first start with archives on a machine lists the classes and the next one builds the archive (about
3 s, once), so a warm-up start of that kind comes first and is not counted. Measured November 28
(benchmarks/data/cluster-start-local-2c.json; docs/measurements.md, "Tool start-up")."""

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from kcliff.backends import local
from kcliff.backends.local import Caps, start_local_cluster
from kcliff.backends.storage import DEFAULT_FSYNC_DELAY_MS
from kcliff.host import procs
from kcliff.kafka import dist as kafka_dist

KINDS = ("archived", "plain")
_java_command = kafka_dist.java_command


def plain(*args, **kwargs):  # type: ignore[no-untyped-def]
    """java_command as it was before November 28: only the client tools from archives."""
    if args[1] in (local.BROKER_CLASS, local.STORAGE_CLASS):
        kwargs["archived"] = False
    return _java_command(*args, **kwargs)


def start_once(kind: str) -> float:
    kafka_dist.java_command = plain if kind == "plain" else _java_command
    with tempfile.TemporaryDirectory(prefix="kcliff-start-") as tmp:
        began = time.monotonic()
        cluster = start_local_cluster(Path(tmp) / "c", kafka_dist.DEFAULT_VERSION,
                                      Caps(fsync_delay_ms=DEFAULT_FSYNC_DELAY_MS))
        took = time.monotonic() - began
        cluster.down()
    return round(took, 2)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("starts", type=int, nargs="?", default=5)
    parser.add_argument("--save", type=Path)
    args = parser.parse_args()
    procs.install_handlers()
    print("warm-up (lists and builds the archive):", start_once("archived"), start_once("archived"), flush=True)
    out: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for i in range(args.starts):
        for kind in (KINDS if i % 2 else KINDS[::-1]):
            out[kind].append(start_once(kind))
            print(i, kind, out[kind][-1], flush=True)
    for kind, took in out.items():
        print(f"{kind}: start s median {statistics.median(took):.1f} ({min(took):.1f}-{max(took):.1f})")
    if args.save:
        args.save.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
