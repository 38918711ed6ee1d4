"""Time `kcliff report` on 100 runs of history.

BENCHMARK INPUT, NOT MEASUREMENTS: the 100 runs are made by perturbing one real results file
(default benchmarks/data/results-canaries-local-2c.json, a short `kcliff run --suite canaries` on this
2-core machine). Each run gets its own date, run id and revision; every repeat's figures are scaled
by seeded noise; the file's scenarios are cloned (with suffixed ids and scaled throughput) up to
--scenarios so the history is as wide as a pairwise suite; one clone gets a 35% step at run 70 so
there is a change point to find and draw.

Prints the wall time of the real CLI (a fresh process, as CI runs it) and where the time goes.
Usage: .venv/bin/python benchmarks/bench_report.py [--runs 100] [--scenarios 31] [--from RESULTS]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from kcliff.judge import changepoint, regressions
from kcliff.report.site import build_site
from kcliff.results import history, model
from kcliff.results.model import ResultsDoc, Run

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_INPUT = ROOT / "benchmarks" / "data" / "results-canaries-local-2c.json"
PERCENTILES = ("avg_ms", "max_ms", "p50_ms", "p95_ms", "p99_ms", "p999_ms")


def _scale(run: Run, factor: float) -> None:
    """Throughput times `factor`, latencies divided by it."""
    for key in ("mb_per_sec", "records_per_sec"):
        if getattr(run, key) is not None:
            setattr(run, key, getattr(run, key) * factor)
    for key in PERCENTILES:
        if getattr(run, key) is not None:
            setattr(run, key, getattr(run, key) / factor)


def widen(doc: ResultsDoc, scenarios: int, rng: random.Random) -> None:
    """Clone the file's scenarios (ids suffixed -cN, throughput scaled) until there are `scenarios`."""
    originals = list(doc.scenarios)
    n = 0
    while len(doc.scenarios) < scenarios:
        n += 1
        sc = originals[(n - 1) % len(originals)].model_copy(deep=True, update={"cliff": None})
        sc.id = f"{sc.id}-c{n}"
        scale = rng.uniform(0.05, 1.5)
        for run in sc.runs:
            _scale(run, scale)
        doc.scenarios.append(sc)


def perturbed(base: ResultsDoc, k: int, rng: random.Random, step_id: str) -> ResultsDoc:
    doc = base.model_copy(deep=True)
    started = datetime.fromisoformat(base.environment["started"].replace("Z", "+00:00")) + timedelta(days=k)
    doc.run_id = f"{started:%Y%m%dT%H%M%SZ}-bench{k:03d}"
    doc.environment["started"] = f"{started:%Y-%m-%dT%H:%M:%SZ}"
    doc.environment["ended"] = f"{started + timedelta(minutes=9):%Y-%m-%dT%H:%M:%SZ}"
    doc.environment["kcliff_revision"] = f"bench{k // 10:03d}"
    for sc in doc.scenarios:
        step = 0.65 if sc.id == step_id and k >= 70 else 1.0
        for run in sc.runs:
            _scale(run, step * rng.lognormvariate(0, 0.04))
        sc.resummarise()
    return doc


def make_history(source: Path, runs: int, scenarios: int, where: Path) -> Path:
    rng = random.Random(42)
    base = history.read_results(source)
    widen(base, scenarios, rng)
    step_id = base.scenarios[-1].id
    hist = where / "history"
    for k in range(runs):
        path = where / "results" / f"{k:03d}.json"
        model.save(perturbed(base, k, rng, step_id), path)
        history.add(path, hist)
    return hist


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--scenarios", type=int, default=31, help="reference + 2 canaries + 28, like the pairwise study")
    parser.add_argument("--from", dest="source", type=Path, default=DEFAULT_INPUT, help="the real results file to perturb")
    parser.add_argument("--keep", type=Path, help="copy the built site here to look at it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        where = Path(tmp)
        hist = make_history(args.source, args.runs, args.scenarios, where)
        load = os.getloadavg()[0]
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "kcliff.cli", "report", "--history", str(hist),
                               "--out", str(where / "site")], capture_output=True, text=True, check=False)
        cli_s = time.perf_counter() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cli_cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 1
        t0 = time.perf_counter()
        runs = history.load(hist)
        load_s = time.perf_counter() - t0
        series = regressions.build_series(runs)
        t0 = time.perf_counter()
        found = changepoint.detect_all(series)
        detect_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        build_site(hist, where / "site2")
        build_s = time.perf_counter() - t0
        size = sum(p.stat().st_size for p in (where / "site").glob("*.html"))
        if args.keep:
            shutil.copytree(where / "site", args.keep, dirs_exist_ok=True)
    changes = sum(len(c) for c in found.values())
    print(f"kcliff report, {args.runs} runs x {args.scenarios} scenarios ({len(series)} series, "
          f"{changes} change points): {cli_s:.2f} s wall (CLI, fresh process), {cli_cpu:.2f} s CPU "
          f"on {os.cpu_count()} cores, load average {load:.1f} at the start")
    print(f"  in-process build_site {build_s:.2f} s = history load {load_s:.2f} s + change points "
          f"{detect_s:.2f} s + the rest (charts, tables, pages, raw copies)")
    print(f"  HTML pages: {size / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
