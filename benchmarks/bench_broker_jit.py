"""How much a scenario's producer throughput scatters run to run on a local cluster, by the JIT of
the brokers and of the client tools: `tiered` (the JVM's default, C2 at the top, as kcliff started
brokers before November 28), `c1` (the brokers at -XX:TieredStopAtLevel=1, as kcliff starts them
now), `c1-tools` (the client tools too). C1 compiles sooner and stops there: steadier, if slower at
its peak, and a check's rounds go as the square of the scatter. Kinds alternate, each a fresh cluster
with the default emulated disk, measured by `kcliff run` (45 s priming, 30,000 records a run).

    .venv/bin/python benchmarks/bench_broker_jit.py [trials of each kind] [--runs N] [--kinds a,b]
        [--suite YAML --only ID] [--prime SECONDS] [--save FILE.json]

Per trial it prints every run's MB/s (the last scenario's: --only's, else the reference's), the CV
of all runs, the CV of the second half (after the drift of a still-warming broker) and the scatter of
successive runs' log-ratio (what an interleaved A/A pair sees). benchmarks/app-producer.yaml is
examples/config-repo's producer (lz4, 64 KiB batches, linger 5 ms), as a default check measures it."""

import argparse
import json
import math
import statistics
import tempfile
from pathlib import Path

from kcliff import cli
from kcliff.backends import local
from kcliff.kafka import dist as kafka_dist

C1 = ["-XX:TieredStopAtLevel=1"]
KINDS = {"tiered": ([], []), "c1": (C1, []), "c1-tools": (C1, C1)}  # (brokers', tools' options)
_java_command = kafka_dist.java_command


def with_flags(brokers: list[str], tools: list[str]):  # type: ignore[no-untyped-def]
    def command(*args, **kwargs):  # type: ignore[no-untyped-def]
        argv = [a for a in _java_command(*args, **kwargs) if a not in kafka_dist.BROKER_JVM_OPTIONS]
        flags = brokers if args[1] == local.BROKER_CLASS else tools
        at = argv.index("java") + 1
        return argv[:at] + flags + argv[at:]
    return command


def cv(values: list[float]) -> float:
    return statistics.stdev(values) / statistics.mean(values)


def trial(kind: str, runs: int, suite: list[str], prime: str) -> dict[str, object]:
    kafka_dist.java_command = with_flags(*KINDS[kind])
    with tempfile.TemporaryDirectory(prefix="kcliff-jit-") as tmp:
        out = Path(tmp) / "results.json"
        code = cli.main(["run", *suite, "--repeats", str(runs), "--records", "30000", "--prime", prime,
                         "--no-baselines", "--quiet", "--workdir", str(Path(tmp) / "w"), "--out", str(out)])
        doc = json.loads(out.read_text())
    mbps = [r["mb_per_sec"] for r in doc["scenarios"][-1]["runs"]]
    steps = [math.log(b / a) for a, b in zip(mbps, mbps[1:])]
    return {"kind": kind, "prime_s": float(prime), "exit": code, "mb_per_sec": mbps, "cv": round(cv(mbps), 3),
            "cv_second_half": round(cv(mbps[len(mbps) // 2:]), 3),
            "step_sd": round(statistics.stdev(steps), 3), "median": round(statistics.median(mbps), 2)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trials", type=int, nargs="?", default=2)
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--kinds", default="tiered,c1")
    parser.add_argument("--suite", default="reference", help="a suite name or YAML path")
    parser.add_argument("--only", help="the scenario measured (the reference runs too)")
    parser.add_argument("--prime", default="45", help="seconds of priming before the first run")
    parser.add_argument("--save", type=Path)
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    suite = ["--suite", args.suite, *(["--only", args.only] if args.only else [])]
    found = []
    for i in range(args.trials):
        for kind in (kinds if i % 2 == 0 else kinds[::-1]):
            found.append(trial(kind, args.runs, suite, args.prime))
            print(json.dumps(found[-1]), flush=True)
    for kind in kinds:
        mine = [f for f in found if f["kind"] == kind]
        print(f"{kind}: cv {[f['cv'] for f in mine]}, second half {[f['cv_second_half'] for f in mine]}, "
              f"step sd {[f['step_sd'] for f in mine]}, median MB/s {[f['median'] for f in mine]}")
    if args.save:
        args.save.write_text(json.dumps(found, indent=1) + "\n")


if __name__ == "__main__":
    main()
