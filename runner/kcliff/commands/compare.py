"""`kcliff compare RESULTS --baseline PATH`: the gate's verdict for a run against its baseline.
With --upgrade the baseline may be of another Kafka version: a suite measured on two releases.

Each scenario in RESULTS that the baseline holds with the same settings hash is compared metric by
metric (judge/baseline_verdict.py, which `kcliff run` also prints); canaries are checked against the reference measured in the same run.
Output: Markdown (stdout, or appended to --markdown FILE such as $GITHUB_STEP_SUMMARY) and a JSON
verdict (--json FILE). Exit codes: 0 pass, 1 regression or cliff, 2 bad input (unreadable or
newer-schema files, another runner class or Kafka version), 3 inconclusive.

Against a baseline another host measured (results/baseline_host.py) only ratios to the reference are
compared, and they are no gate: a ratio can move with the host too (a slower disk, fewer cores), so
what would fail there exits 3 (inconclusive), never 1; a pass is still 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kcliff.errors import InputError
from kcliff.judge import baseline_verdict, verdict
from kcliff.report import markdown as report_md
from kcliff.judge.verdict import EXIT_CODES, Outcome
from kcliff.results import baseline as baselines
from kcliff.results import baseline_host
from kcliff.results.model import ResultsDoc


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("compare", help="compare a results file with its baseline: pass, regression, cliff "
                                            "or inconclusive")
    parser.add_argument("results", metavar="RESULTS", help="a kcliff results JSON file (the head)")
    parser.add_argument("--baseline", required=True,
                        help="a baseline file, or a baselines directory (DIR/<kafka>/<runner class>.json is used)")
    parser.add_argument("--runner-class", help="compare as this runner class (must match the baseline's)")
    parser.add_argument("--upgrade", action="store_true",
                        help="the results may be of another Kafka version than the baseline: judge the upgrade "
                             "(same suite, same runner class; e.g. a baseline of 4.2.0 runs against a 4.3.1 run)")
    parser.add_argument("--min-effect", type=float, default=verdict.DEFAULT_MIN_EFFECT,
                        help="smallest change that counts as a regression, as a fraction (default 0.10)")
    parser.add_argument("--alpha", type=float, default=verdict.DEFAULT_ALPHA,
                        help="one-sided Mann-Whitney significance level, against a worsening of half --min-effect (default %(default)s)")
    parser.add_argument("--markdown", metavar="FILE", help="append the Markdown summary to FILE "
                                                           "(e.g. \"$GITHUB_STEP_SUMMARY\") instead of stdout")
    parser.add_argument("--json", metavar="FILE", help="write the JSON verdict to FILE")
    parser.set_defaults(func=run)


def _check_args(args: argparse.Namespace) -> None:
    if not 0 < args.min_effect < 1:
        raise InputError(f"--min-effect must be between 0 and 1, got {args.min_effect}")
    if not 0 < args.alpha < 0.5:
        raise InputError(f"--alpha must be between 0 and 0.5, got {args.alpha}")


def _baseline_file(given: str, results: ResultsDoc, runner_class: str | None, upgrade: bool) -> Path:
    path = Path(given)
    if path.is_dir() and upgrade:
        raise InputError("--upgrade compares with one other version's baseline: give its file "
                         "(DIR/<kafka>/<runner class>.json), not the directory", given)
    if path.is_dir():
        env = results.environment
        path = baselines.baseline_path(path, env["kafka_version"], runner_class or env["runner_class"])
        if not path.is_file():
            raise InputError(f"no baseline for Kafka {env['kafka_version']} on runner class "
                             f"'{runner_class or env['runner_class']}' (expected {path}); create one with "
                             "`kcliff baseline update RESULTS` on that runner class", given)
    return path


def run(args: argparse.Namespace) -> int:
    _check_args(args)
    results = baselines.load_results(args.results)
    path = _baseline_file(args.baseline, results, args.runner_class, args.upgrade)
    base = baselines.load_baseline(path)
    try:
        baselines.check_compatible(results, base, args.runner_class, args.upgrade)
    except baselines.Refused as exc:
        raise InputError(str(exc), args.results) from None
    found = baseline_host.yardstick(results.environment, base)
    v = baseline_verdict.compare(results, base, found, min_effect=args.min_effect, alpha=args.alpha)
    env = results.environment
    whose = "this host's own" if found.basis.absolute else "measured on another host"
    context = (f"Run `{results.run_id}` against the baseline for Kafka {base.kafka_version} on runner "
               f"class `{base.runner_class}` ({len(found.baseline.sources)} past runs, {whose}, updated {base.updated}).")
    if (said := found.note(str(args.results))) is not None:
        context += f" **{said[0].upper()}{said[1:]}.**"
    if base.kafka_version != env["kafka_version"]:
        context += f" **Kafka upgrade: {base.kafka_version} -> {env['kafka_version']}.**"
    markdown = report_md.render(v, title="kcliff compare", context=context)
    code = exit_code(v, found.basis)
    if args.markdown:
        with open(args.markdown, "a", encoding="utf-8") as out:
            out.write(markdown + "\n")
    else:
        print(markdown)
    if args.json:
        doc = v.to_dict()
        doc.update(results=str(args.results), baseline=str(path), run_id=results.run_id, exit_code=code,
                   runner_class=env["runner_class"], kafka_versions={"baseline": base.kafka_version,
                                                                     "results": env["kafka_version"]})
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"kcliff compare: {v.verdict}" + ("" if found.basis.absolute else
                                            " (ratios to the reference, against another host's baseline: no gate)"),
          file=sys.stderr)
    return code


def exit_code(v: verdict.Verdict, basis: baseline_host.Basis) -> int:
    """The verdict's exit code; against another host's baseline a failing verdict is inconclusive (3):
    ratios to the reference there are a lead to measure on this host, not a finding."""
    if not basis.absolute and v.verdict.fails:
        return EXIT_CODES[Outcome.INCONCLUSIVE]
    return v.exit_code
