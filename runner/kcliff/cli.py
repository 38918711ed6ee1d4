"""`kcliff` entry point: one module per command under kcliff.commands; exit codes are the CI contract.

Exit codes: 0 success / pass; 1 a finding (cliff, regression, failed canary); 2 bad input or an
unusable environment; 3 inconclusive (check, compare: the rig could not tell); 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from kcliff import __version__
from kcliff.errors import ClusterError, InputError

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


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of `command` alone when it names one: registering a command imports
    its module, and some pull in pandas, scipy or confluent_kafka, which `kcliff lint` must not wait for."""
    parser = argparse.ArgumentParser(prog="kcliff", description="Performance regression testing for Kafka configs")
    parser.add_argument("--version", action="version", version=f"kcliff {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in (command,) if command in COMMANDS else COMMANDS:
        importlib.import_module(f".commands.{name}", __package__).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # kcliff's own options take no value, so the first other word names the command; --help, a typo or
    # no command at all get the parser of every command, which lists them
    parser = build_parser(next((word for word in argv if not word.startswith("-")), None))
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
