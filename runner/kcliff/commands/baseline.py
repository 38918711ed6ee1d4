"""`kcliff baseline update RESULTS`: add a complete run's distributions to its baseline file.

The file is baselines/<kafka_version>/<runner_class>.json (or --file). Refused, with nothing
written: results from another runner class than the file's (unless --runner-class names the file's
class on purpose), another Kafka version, a truncated / foreign / newer-schema results or baseline
file, or a run that was not complete (exit 2); a run whose canary did not show its cliff (exit 1).
Exit 0 when the baseline was updated (or already held that run).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kcliff.judge import baseline_verdict
from kcliff.results import baseline as baselines


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("baseline", help="manage per-runner-class baselines of past runs")
    verbs = parser.add_subparsers(dest="verb", required=True)
    upd = verbs.add_parser("update", help="add a complete run's per-scenario distributions to its baseline")
    upd.add_argument("results", metavar="RESULTS", help="a kcliff results JSON file")
    upd.add_argument("--dir", default=baselines.DEFAULT_DIR,
                     help="baselines directory (default: baselines); the file is DIR/<kafka>/<runner class>.json")
    upd.add_argument("--file", help="the baseline file to update, instead of the one --dir selects")
    upd.add_argument("--runner-class", help="record the results under this runner class (must match the file's)")
    upd.add_argument("--window", type=int, default=None,
                     help=f"runs kept per scenario (default: the file's, else {baselines.DEFAULT_WINDOW})")
    upd.set_defaults(func=run_update)


def run_update(args: argparse.Namespace) -> int:
    results = baselines.load_results(args.results)
    env = results.environment
    claimed = args.runner_class or env["runner_class"]
    path = Path(args.file) if args.file else baselines.baseline_path(args.dir, env["kafka_version"], claimed)
    if path.exists():
        current = baselines.load_baseline(path)
    else:
        current = baselines.new_baseline(env["kafka_version"], claimed, args.window or baselines.DEFAULT_WINDOW)
    try:
        baselines.check_compatible(results, current, args.runner_class)
        updated, notes = baseline_verdict.admit(current, results, args.window)
    except baselines.Refused as exc:
        print(f"kcliff: baseline not updated: {exc}", file=sys.stderr)
        return exc.code
    if claimed != env["runner_class"]:
        notes.insert(0, f"results from runner class '{env['runner_class']}' recorded as '{claimed}' (--runner-class)")
    for note in notes:
        print(f"note: {note}")
    if updated.sources != current.sources:
        baselines.save(updated, path)
        counts = ", ".join(f"{sid} {len(s.runs)}" for sid, s in sorted(updated.scenarios.items()))
        print(f"baseline {path}: run {results.run_id} added; runs per scenario: {counts}")
    return 0
