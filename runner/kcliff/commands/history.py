"""`kcliff history add|list|regressions`: the append-only run history and its change points.

`regressions` is a CI gate: exit 1 when the newest run starts a regression, i.e. some scenario x
metric series has a change point at that run going the bad way by at least --min-change. Series are
one runner class's, and a runner class carries its rig profile: --profile picks the newest run measured
at that profile, so its series are judged and no other profile's runs are mixed in.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kcliff.judge import changepoint, regressions
from kcliff.results import history
from kcliff.results.rig import CPU_BOUND

MIN_CHANGE = changepoint.MIN_MAGNITUDE


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("history", help="keep the history of suite results and find change points in it")
    verbs = parser.add_subparsers(dest="verb", required=True)

    add = verbs.add_parser("add", help="file a results file in the history (never overwrites)")
    add.add_argument("results", type=Path)
    add.add_argument("--allow-running", action="store_true", help="accept a run whose status is still 'running'")
    add.set_defaults(func=run_add)

    listing = verbs.add_parser("list", help="list the runs in the history, oldest first")
    listing.set_defaults(func=run_list)

    regress = verbs.add_parser("regressions", help="exit 1 when the newest run starts a regression")
    regress.add_argument("--min-change", type=float, default=MIN_CHANGE,
                         help=f"smallest relative change that counts (default {MIN_CHANGE})")
    regress.add_argument("--runner-class", help="check this runner class (default: the newest run's)")
    regress.set_defaults(func=run_regressions)

    for verb in (add, listing, regress):
        verb.add_argument("--dir", type=Path, default=history.DEFAULT_DIR, help="history directory (default history/)")
    for verb in (listing, regress):
        verb.add_argument("--profile", metavar="NAME",
                          help=f"only the runs measured at this rig profile ({CPU_BOUND}: with no caps); a "
                               "profile's runs are a runner class of their own, <class>@<profile>")


def run_add(args: argparse.Namespace) -> int:
    path, new = history.add(args.results, args.dir, allow_running=args.allow_running)
    print(f"{'added' if new else 'already there'}: {path}")
    return 0


def _selected(args: argparse.Namespace) -> list[history.HistoryRun]:
    runs = history.load(args.dir)
    return history.at_profile(runs, args.profile) if args.profile else runs


def run_list(args: argparse.Namespace) -> int:
    runs = _selected(args)
    width = max([len("runner class"), *(len(r.key.runner_class) for r in runs)])
    print(f"{'started':<16} {'run id':<26} {'revision':<12} {'kafka':<8} {'runner class':<{width}} {'status':<11} "
          "scenarios")
    for run in runs:
        k = run.key
        print(f"{k.started:%Y-%m-%d %H:%M} {k.run_id:<26} {k.revision[:12]:<12} {k.kafka_version:<8} "
              f"{k.runner_class:<{width}} {run.status:<11} {len(run.doc.scenarios)}")
    print(f"{len(runs)} runs in {args.dir}" + (f" at profile {args.profile}" if args.profile else ""))
    return 0


def run_regressions(args: argparse.Namespace) -> int:
    runs = _selected(args)
    if args.runner_class:
        runs = [r for r in runs if r.key.runner_class == args.runner_class]
    if not runs:
        which = [f"runner class {args.runner_class}" if args.runner_class else "",
                 f"profile {args.profile}" if args.profile else ""]
        print(f"no runs in {args.dir}" + (f" for {' at '.join(w for w in which if w)}" if any(which) else ""))
        return 0
    newest = runs[-1].key
    found = regressions.newest(runs, args.min_change)
    print(f"{len(runs)} runs ({newest.runner_class}); newest run {newest.run_id}")
    for line in found:
        print(f"REGRESSION {line}")
    if not found:
        print("no regression starts at the newest run")
    return 1 if found else 0
