"""`kcliff` entry point: one module per command under kcliff.commands; exit codes are the CI contract.

Exit codes: 0 success / pass; 1 a finding (cliff, regression, failed canary); 2 bad input or an
unusable environment; 3 inconclusive (check, compare: the rig could not tell); 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .errors import ClusterError, InputError

# Each module defines register(subparsers) and sets `func` on its parser(s).
COMMANDS = (
    "kafka",
    "lint",
    "baseline",
    "compare",
    "cluster",
    "run",
    "check",
    "results",
    "history",
    "export",
    "report",
    "nightly",
    "scenarios",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kcliff", description="Performance regression testing for Kafka configs")
    parser.add_argument("--version", action="version", version=f"kcliff {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f".commands.{name}", __package__).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        for problem in exc.problems:
            print(f"kcliff: error: {problem}", file=sys.stderr)
        return 2
    except ClusterError as exc:
        print(f"kcliff: cluster error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kcliff: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
