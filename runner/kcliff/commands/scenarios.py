"""`kcliff scenarios generate|check|show`: build the pairwise suite, prove its coverage, print it.

    kcliff scenarios generate [--space scenarios/space.yaml] [--strength 2|3] [--seed N] [--out FILE|-]
    kcliff scenarios check FILE [--space ...] [--strength 2|3]    exit 1 listing missing tuples
    kcliff scenarios show [FILE] [--format table|markdown]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path
from typing import TextIO

from kcliff.commands import options
from kcliff.errors import InputError
from kcliff.pairwise import covering
from kcliff.pairwise import suite_file as pairwise
from kcliff.scenario import coverage, space
from kcliff.scenario import suites as scenario

DEFAULT_SEED = 1
DEFAULT_OUT = {2: "pairwise.yaml", 3: "pairwise-3way.yaml"}
_DIGEST = re.compile(r"^# From: .*\(sha256 ([0-9a-f]{12})\)", re.MULTILINE)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("scenarios", help="generate, check and show the pairwise suite")
    verbs = parser.add_subparsers(dest="verb", required=True)

    gen = verbs.add_parser("generate", help="build the suite covering every pair (or triple) of the space")
    _space_arg(gen)
    _strength_arg(gen)
    gen.add_argument("--seed", type=int, default=DEFAULT_SEED, help="search seed (same seed, same suite)")
    gen.add_argument("--out", help="file to write, or - for stdout (default: scenarios/pairwise.yaml, "
                                   "scenarios/pairwise-3way.yaml for --strength 3)")
    gen.add_argument("--max-steps", type=options.positive_int, default=covering.DEFAULT_MAX_STEPS,
                     help="search budget in steps (default %(default)s)")
    gen.add_argument("--stall-steps", type=options.positive_int, default=covering.DEFAULT_STALL_STEPS,
                     help="stop after this many steps without a smaller suite (default %(default)s)")
    gen.set_defaults(func=run_generate)

    check = verbs.add_parser("check", help="verify a suite covers every allowed pair (or triple) of the space")
    check.add_argument("file")
    _space_arg(check)
    _strength_arg(check)
    check.set_defaults(func=run_check)

    show = verbs.add_parser("show", help="print a suite as a table")
    show.add_argument("file", nargs="?", help="suite file (default: scenarios/pairwise.yaml)")
    show.add_argument("--format", choices=("table", "markdown"), default="table")
    show.add_argument("--space", help="space file for short column labels (default: scenarios/space.yaml if present)")
    show.set_defaults(func=run_show)



def _space_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--space", help="settings space file (default: scenarios/space.yaml)")


def _strength_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strength", type=int, choices=(2, 3), default=2,
                        help="2: every pair of levels (the fixed suite); 3: every triple (campaigns)")


def _display(path: Path) -> str:
    """Paths inside the working directory are shown relative, so generated headers do not depend on
    where the repository was cloned."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def _load_space(arg: str | None) -> space.Space:
    path = Path(arg) if arg else scenario.scenarios_dir() / "space.yaml"
    return space.load(_display(path))


def run_generate(args: argparse.Namespace) -> int:
    the_space = _load_space(args.space)
    started = time.monotonic()
    gen = pairwise.generate(the_space, args.strength, args.seed, args.max_steps, args.stall_steps)
    elapsed = time.monotonic() - started
    pairwise.validate_rows(gen)
    command = ["kcliff scenarios generate"]
    if args.space:
        command.append(f"--space {the_space.path}")
    if args.strength != 2:
        command.append(f"--strength {args.strength}")
    if args.seed != DEFAULT_SEED:
        command.append(f"--seed {args.seed}")
    if args.max_steps != covering.DEFAULT_MAX_STEPS:
        command.append(f"--max-steps {args.max_steps}")
    if args.stall_steps != covering.DEFAULT_STALL_STEPS:
        command.append(f"--stall-steps {args.stall_steps}")
    out = args.out or _display(scenario.scenarios_dir() / DEFAULT_OUT[args.strength])
    if args.out and args.out != "-":
        command.append(f"--out {_display(Path(args.out))}")
    text = pairwise.render(gen, " ".join(command))

    # The generator is never trusted alone: the independent checker must pass before anything is written.
    rows = [(f"row {i + 1}", {(s.scope, s.name): s.levels[v].value for s, v in zip(the_space.settings, row)})
            for i, row in enumerate(gen.rows)]
    report = coverage.check_rows(the_space, rows, args.strength)
    if not report.ok:
        _print_report(report, "generated suite", the_space, sys.stderr)
        print("kcliff: the generator produced a suite the checker rejects (a bug): nothing written", file=sys.stderr)
        return 1
    if out == "-":
        sys.stdout.write(text)
    else:
        _write_atomically(Path(out), text)
    what = "pairs" if args.strength == 2 else "triples"
    start = gen.result.allpairspy_rows if gen.result.allpairspy_rows is not None else gen.result.start_rows
    print(f"{'stdout' if out == '-' else out}: {len(gen.rows)} scenarios cover all {report.required} {what} "
          f"(start {start} rows, lower bound "
          f"{covering.lower_bound([len(s.levels) for s in the_space.settings], args.strength)}; "
          f"{gen.result.steps} search steps in {elapsed:.1f} s); independent check passed",
          file=sys.stderr if out == "-" else sys.stdout)
    return 0


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write the suite: {exc.strerror}", str(path)) from None


def run_check(args: argparse.Namespace) -> int:
    the_space = _load_space(args.space)
    report = coverage.check_file(the_space, args.file, args.strength)
    what = "pairs" if args.strength == 2 else "triples"
    if report.ok:
        print(f"{args.file}: {report.rows} scenarios cover all {report.required} allowed {what} of "
              f"{the_space.path}; no constraint broken, every value a level")
    else:
        _print_report(report, args.file, the_space, sys.stdout)
    note = _stale_note(args.file, the_space)
    if note:
        print(note, file=sys.stderr)
    return 0 if report.ok else 1


def _print_report(report: coverage.Report, name: str, the_space: space.Space, stream: TextIO) -> None:
    what = "pairs" if report.strength == 2 else "triples"
    print(f"{name}: FAILED against {the_space.path}: {len(report.missing)} of {report.required} allowed {what} "
          f"missing, {len(report.broken)} constraint violations, {len(report.invalid)} invalid values", file=stream)
    for cells in report.missing:
        print(f"  missing: {coverage.format_tuple(cells)}", file=stream)
    for line in report.broken:
        print(f"  constraint: {line}", file=stream)
    for line in report.invalid:
        print(f"  invalid: {line}", file=stream)


def _stale_note(path: str, the_space: space.Space) -> str | None:
    try:
        head = Path(path).read_text(encoding="utf-8", errors="replace")[:2000]
    except OSError:
        return None
    found = _DIGEST.search(head)
    if found and found.group(1) != the_space.digest[:12]:
        return (f"note: {path} was generated from another version of {the_space.path}; "
                "regenerate it with `kcliff scenarios generate` so the diff shows what changed")
    return None


def run_show(args: argparse.Namespace) -> int:
    path = args.file or _display(scenario.scenarios_dir() / DEFAULT_OUT[2])
    found = scenario.load_file(path)
    labels: dict[tuple[str, str], str] = {}
    space_path = Path(args.space) if args.space else scenario.scenarios_dir() / "space.yaml"
    if args.space or space_path.is_file():
        labels = {(s.scope, s.name): s.short for s in space.load(_display(space_path)).settings}
    columns: list[tuple[str, str]] = []
    for sc in found:
        for scope in ("broker", "topic", "producer"):
            for name in sc.settings_in(scope):
                if (scope, name) not in columns:
                    columns.append((scope, name))
    header = ["id"] + [labels.get(c, c[1]) for c in columns]
    body = [[sc.id] + [pairwise.short_value(sc.settings_in(c[0])[c[1]]) if c[1] in sc.settings_in(c[0]) else "-"
                       for c in columns] for sc in found]
    if args.format == "markdown":
        print(f"**{path}**: {len(found)} scenarios (`-` = Kafka's default)\n")
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" for _ in header) + "|")
        for row in body:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
        for row in [header] + body:
            print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return 0
