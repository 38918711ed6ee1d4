"""`kcliff export RESULTS --out-dir DIR`: github-action-benchmark custom JSON (throughput, p99)."""

from __future__ import annotations

import argparse
from pathlib import Path

from kcliff.report import export


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("export", help="write github-action-benchmark JSON from a results file")
    parser.add_argument("results", type=Path, help="a results file written by `kcliff run`")
    parser.add_argument("--out-dir", type=Path, required=True, help="where throughput.json, p99.json and failover.json go")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for path in export.export(args.results, args.out_dir):
        print(path)
    return 0
