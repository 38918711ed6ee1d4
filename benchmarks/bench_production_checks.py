"""What `kcliff check` shows for changes whose effect depends on what a service sends and how many
instances send it (issue #29), on copies of the example config repo, each check from a fresh cluster:

- compression.type none -> zstd and lz4 -> zstd, on kcliff's built-in JSON events (the default
  payload of a config repo) and on random letters (a samples file of them) beside, for contrast;
- batch.size 65536 -> 16384 with a samples file of 20 KiB JSON documents (one record per batch);
- instances 1 -> 4 (kcliff.yaml `producers:`) on a 24-partition topic;
- issue #42: compression lz4 -> gzip, and batch.size 16 -> 256 KiB with linger.ms 0 -> 20, with and
  without the service's latency budget (kcliff.yaml `latency:`); give --profile to read them where bytes bind.

    .venv/bin/python benchmarks/bench_production_checks.py [--cases zstd-from-none,...] [--save out.json]
        [--lock /tmp/kcliff-measure.lock] [extra kcliff check args]

Prints one line per check: verdict, each judged metric's ratio, each side's compression ratio and
MB/s, and the wall time; --save appends each check to a JSON file as it ends.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import string
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench_check_time import measuring_lock, revision  # the same lock and record of the commit
from kcliff.host import procs
from kcliff.scenario import json_events

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "config-repo"
PRODUCER = "producers/app-producer.properties"
TOPICS = "topics/topics.yaml"
DOCS = "samples/documents.jsonl"  # written by the case that needs it
LETTERS = "samples/letters.txt"


@dataclass(frozen=True)
class Case:
    """Edits to the base and the head copy: (file, old text, new text); files to add to both."""
    base: tuple[tuple[str, str, str], ...] = ()
    head: tuple[tuple[str, str, str], ...] = ()
    manifest: str | None = None  # kcliff.yaml for both sides (the head's edits may change it)
    samples: str | None = None  # which samples file to write into both copies


MANIFEST_DOCS = f"version: 1\nproducers:\n  {PRODUCER}:\n    samples: {DOCS}\n"
MANIFEST_LETTERS = f"version: 1\nproducers:\n  {PRODUCER}:\n    samples: {LETTERS}\n"
MANIFEST_BUDGET = f"version: 1\nproducers:\n  {PRODUCER}:\n    latency: {{p99: 50 ms}}\n"
MANIFEST_ONE = f"version: 1\nmeasure:\n  topic: orders\nproducers:\n  {PRODUCER}:\n    instances: 1\n"
TO_24 = (TOPICS, "partitions: 12", "partitions: 24")
CASES = {
    "zstd-from-none": Case(base=((PRODUCER, "compression.type=lz4", "compression.type=none"),),
                           head=((PRODUCER, "compression.type=lz4", "compression.type=zstd"),)),
    "zstd-from-lz4": Case(head=((PRODUCER, "compression.type=lz4", "compression.type=zstd"),)),
    "zstd-from-none-letters": Case(base=((PRODUCER, "compression.type=lz4", "compression.type=none"),),
                                   head=((PRODUCER, "compression.type=lz4", "compression.type=zstd"),),
                                   manifest=MANIFEST_LETTERS, samples=LETTERS),
    "batch-16k-at-20k-docs": Case(head=((PRODUCER, "batch.size=65536", "batch.size=16384"),),
                                  manifest=MANIFEST_DOCS, samples=DOCS),
    # issue #42: the studies' advice, read where bytes bind (give --profile, or none: both rigs)
    "gzip-from-lz4": Case(head=((PRODUCER, "compression.type=lz4", "compression.type=gzip"),)),
    "batch-256k-linger-20": Case(base=((PRODUCER, "batch.size=65536", "batch.size=16384"),
                                       (PRODUCER, "linger.ms=5", "linger.ms=0")),
                                 head=((PRODUCER, "batch.size=65536", "batch.size=262144"),
                                       (PRODUCER, "linger.ms=5", "linger.ms=20"))),
    # the same trade where the service states what latency it can spend at its rate (its p99 objective)
    "batch-256k-linger-20-budget": Case(base=((PRODUCER, "batch.size=65536", "batch.size=16384"),
                                              (PRODUCER, "linger.ms=5", "linger.ms=0")),
                                        head=((PRODUCER, "batch.size=65536", "batch.size=262144"),
                                              (PRODUCER, "linger.ms=5", "linger.ms=20")),
                                        manifest=MANIFEST_BUDGET),
    "four-instances-24p": Case(base=(TO_24,), head=(TO_24, ("kcliff.yaml", "instances: 1", "instances: 4")),
                               manifest=MANIFEST_ONE),
}


@dataclass(frozen=True)
class CaseResult:
    case: str
    seconds: float
    exit_code: int
    verdict: str
    decisions: dict[str, dict[str, Any]]
    sides: dict[str, dict[str, Any]] = field(default_factory=dict)  # side -> MB/s, compression, payload
    notes: list[str] = field(default_factory=list)
    revision: str | None = None


def _write_samples(repo: Path, which: str) -> None:
    """20 KiB JSON documents (kcliff's generator at that median), or lines of 1 KiB random letters."""
    path = repo / which
    path.parent.mkdir(parents=True, exist_ok=True)
    if which == DOCS:
        path.write_bytes(b"\n".join(json_events.generate(20_480, 200)) + b"\n")
    else:
        rng = random.Random(29)
        path.write_text("".join("".join(rng.choices(string.ascii_uppercase, k=1024)) + "\n" for _ in range(2000)))


def _edit(repo: Path, edits: tuple[tuple[str, str, str], ...]) -> None:
    for name, old, new in edits:
        text = (repo / name).read_text()
        assert old in text, (name, old)
        (repo / name).write_text(text.replace(old, new, 1))


def _side(doc: dict[str, Any], side: str) -> dict[str, Any]:
    entry = next((e for e in doc.get("scenarios", []) if e["id"] == side), None)
    if entry is None:
        return {}
    runs = [r for r in entry.get("runs", []) if r.get("mb_per_sec") is not None]
    mbps = sorted(r["mb_per_sec"] for r in runs)
    ratios = sorted(r["compression_ratio"] for r in runs if r.get("compression_ratio"))
    bounds = [r["bound"] for r in runs if r.get("bound")]  # issue #42: what held each run, at a profile's caps
    disk = sorted(b["disk_mb_s"] for b in bounds if b.get("disk_mb_s") is not None)
    return {"bound": Counter(b["resource"] for b in bounds).most_common(1)[0][0] if bounds else None,
            "disk_mb_s_median": disk[len(disk) // 2] if disk else None,
            "mb_per_sec_median": mbps[len(mbps) // 2] if mbps else None,
            "compression_ratio_median": ratios[len(ratios) // 2] if ratios else None,
            "payload": entry.get("applied", {}).get("payload"), "producers": entry.get("applied", {}).get("producers")}


def one_check(name: str, extra: list[str]) -> CaseResult:
    case = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        repos = {side: Path(tmp) / side for side in ("base", "head")}
        for side, repo in repos.items():
            shutil.copytree(EXAMPLE, repo)
            if case.manifest:
                (repo / "kcliff.yaml").write_text(case.manifest)
            if case.samples:
                _write_samples(repo, case.samples)
            _edit(repo, case.base if side == "base" else case.head)
        results, said = Path(tmp) / "results.json", Path(tmp) / "v.json"
        argv = [sys.executable, "-m", "kcliff.cli", "check", "--base", str(repos["base"]), "--head",
                str(repos["head"]), "--workdir", str(Path(tmp) / "w"), "--results", str(results), "--json", str(said),
                "--quiet", *extra]
        began = time.time()
        done = subprocess.run(argv, check=False, stdout=subprocess.DEVNULL)
        took = round(time.time() - began, 1)
        verdict = json.loads(said.read_text()) if said.exists() else {}
        doc = json.loads(results.read_text()) if results.exists() else {}
        second = next(Path(tmp).glob("results-*.json"), None)
        other = json.loads(second.read_text()) if second else {}
    # a check on two rigs (issue #42) names the second rig's scenarios head@<profile>
    decisions = {(d["metric"] if sv["id"] == "head" else f"{sv['id']}:{d['metric']}"):
                 {k: d.get(k) for k in ("outcome", "ratio", "low", "high", "n_pairs")}
                 for sv in verdict.get("scenarios", []) for d in sv["decisions"]}
    sides = {side: _side(doc, side) for side in ("base", "head")}
    sides |= {f"{side}@{second.stem[len('results-'):]}": _side(other, side) for side in ("base", "head")} if second else {}
    return CaseResult(name, took, done.returncode, verdict.get("verdict", "-"), decisions, sides,
                      verdict.get("notes", []) + verdict.get("reasons", []), revision())


def line(r: CaseResult) -> str:
    ratios = ", ".join(f"{m} {d['ratio']:.2f}x ({d['outcome']})" for m, d in r.decisions.items()
                       if d.get("ratio") is not None)
    sides = "; ".join(f"{s}: {v.get('mb_per_sec_median')} MB/s, compression {v.get('compression_ratio_median')}x"
                      + (f", bound {v['bound']} (log {v.get('disk_mb_s_median')} MB/s)" if v.get("bound") else "")
                      for s, v in r.sides.items())
    return f"{r.case}: exit {r.exit_code}, {r.verdict} in {r.seconds:.0f} s; {ratios}; {sides}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of: {', '.join(CASES)}")
    parser.add_argument("--save", type=Path, help="append each check's figures to this JSON file as it ends")
    parser.add_argument("--lock", type=Path, help="hold this file's lock (flock) during each check")
    args, extra = parser.parse_known_args()
    names = [c.strip() for c in args.cases.split(",") if c.strip()]
    if unknown := [c for c in names if c not in CASES]:
        parser.error(f"--cases: unknown {', '.join(unknown)}; valid: {', '.join(CASES)}")
    procs.install_handlers()
    kept = json.loads(args.save.read_text()) if args.save and args.save.exists() else []
    for name in names:
        with measuring_lock(args.lock):
            result = one_check(name, extra)
        print(line(result), flush=True)
        kept.append(asdict(result))
        if args.save:
            args.save.write_text(json.dumps(kept, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
