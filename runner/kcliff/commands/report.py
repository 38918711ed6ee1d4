"""`kcliff report [--history DIR] [--results FILE] --out DIR`: build the static report site."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("report", help="build the static report site from history and/or a results file")
    parser.add_argument("--history", type=Path, help="history directory (see `kcliff history add`)")
    parser.add_argument("--results", type=Path, help="a results file; the latest run when given")
    parser.add_argument("--out", type=Path, required=True, help="output directory for the site")
    parser.add_argument("--p99-bound-ms", type=float, metavar="MS",
                        help="the factor page's bounded prediction keeps predicted p99 under MS "
                             "(default: the reference's p99)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kcliff.report.site import build_site

    index = build_site(args.history, args.out, results=args.results, p99_bound_ms=args.p99_bound_ms)
    print(index)
    return 0
