"""`kcliff check --base DIR --head DIR`: the config pull request gate, measured on a real cluster.

1. Both config repos are read and validated (bad input: exit 2, on its file and line) and the
   static cliff rules run on the head; a rule the head newly matches is annotated on its line.
2. One cluster measures the reference and the canaries (the sensitivity self-test: a canary that
   does not show its cliff makes the verdict inconclusive), then base and head interleaved
   (each round both, in a random balanced order) so drift on a shared runner hits both alike.
3. The verdict (kcliff.verdict): pass 0, regression 1, cliff 1, inconclusive 3, bad input 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from .. import cliffs, configrepo, environment, procs, report_md, results, verdict
from ..configrepo.repo_scenario import to_scenario
from ..progress import Progress
from ..scenario import REFERENCE_ID, load_suites
from ..suite import PRIME_S, Options, SuiteRunner, new_document
from . import lint, options
from .run import cluster_for

RUN_S = 4.0
ROUNDS = 18  # see docs/gate.md: 6 rounds detected a 20% drop 29 times in 50 on this rig, 18 rounds 16 in 16
DEFAULT_CANARIES = "batching-off,flush-1"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("check", help="gate a config change: lint, then measure base vs head on one cluster")
    parser.add_argument("--base", required=True, help="the base branch's config repo directory")
    parser.add_argument("--head", required=True, help="the pull request's config repo directory")
    parser.add_argument("--rounds", type=options.positive_int, default=ROUNDS, help="interleaved base/head rounds")
    parser.add_argument("--records", type=options.positive_int, default=30_000, help="least records per run")
    parser.add_argument("--run-seconds", type=options.seconds, default=RUN_S,
                        help="stretch each measured run to about this long, from the latest run's rate (default "
                             "%(default)s): a fast config's 30,000 records last under a second and scatter widely")
    parser.add_argument("--repeats", type=options.positive_int, default=3, help="runs of the reference and canaries")
    parser.add_argument("--canaries", default=DEFAULT_CANARIES, help="canary ids measured as the self-test")
    parser.add_argument("--min-effect", type=options.positive_float, default=verdict.DEFAULT_MIN_EFFECT,
                        help="smallest change worth failing on, as a fraction (default 0.10)")
    parser.add_argument("--budget", type=options.positive_float, default=300.0, help="seconds per scenario")
    options.add_prime_option(parser, PRIME_S)
    parser.add_argument("--static-only", action="store_true", help="lint only; no cluster")
    parser.add_argument("--format", choices=("text", "github"),
                        default="github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    parser.add_argument("--summary", type=Path, help="write the Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--comment", type=Path, help="write the PR comment Markdown here")
    parser.add_argument("--json", type=Path, help="write the verdict as JSON here")
    parser.add_argument("--results", type=Path, help="results file of the measurements (default under --workdir)")
    parser.add_argument("--backend", choices=("local", "compose", "external"))
    parser.add_argument("--bootstrap-servers")
    parser.add_argument("--quiet", action="store_true")
    options.add_cluster_options(parser)
    parser.set_defaults(func=run)


def static_findings(base_dir: str, head_dir: str, fmt: str) -> tuple[Any, list[cliffs.Match], list[cliffs.Match]]:
    """Read both repos, run the rules; return the head repo, the matches the head introduces, and
    those already on the base. Introduced matches are printed (annotations with --format github)."""
    rules = cliffs.load_rules()
    base_repo, head_repo = configrepo.load([base_dir]), configrepo.load([head_dir])
    base_matches, head_matches = cliffs.evaluate(base_repo, rules), cliffs.evaluate(head_repo, rules)
    new = cliffs.introduced(base_matches, head_matches)
    for m in new:
        text = lint.describe(m, {})
        if fmt == "github":
            print(lint.annotation(m.rule.severity if m.rule.severity == "error" else "warning", m.path, m.line,
                                  f"kcliff: {m.rule.id}", text))
        else:
            print(f"{m.path}:{m.line}: {m.rule.severity}: {text}")
    kept = [m for m in head_matches if m not in new]
    return (base_repo, head_repo), new, kept


def run(args: argparse.Namespace) -> int:
    (base_repo, head_repo), new, kept = static_findings(args.base, args.head, args.format)
    notes = [f"already on the base branch: {m.condition()} at {m.path}:{m.line}" for m in kept]
    base_sc = to_scenario(base_repo, "base", f"base: {args.base}")
    head_sc = to_scenario(head_repo, "head", f"head: {args.head}")
    notes += [f"head: {n}" for n in head_sc.notes]
    for scope, values in head_sc.weakened_durability().items():
        notes.append(f"head weakens durability ({scope}: {values}); measured as set")
    rule_matches = [m.to_dict() for m in new]
    if args.static_only:
        outcome = verdict.judge([], (), rule_matches, notes + ["static check only: nothing was measured"])
        return _publish(outcome, args, None)
    canary_ids = [c.strip() for c in args.canaries.split(",") if c.strip()]
    scenarios = {s.id: s for s in load_suites(["canaries"])}
    unknown = [c for c in canary_ids if c not in scenarios]
    options.require(not unknown, f"--canaries: unknown canary id(s) {', '.join(unknown)}")
    doc = measure(args, [scenarios[REFERENCE_ID], *[scenarios[c] for c in canary_ids]], [base_sc, head_sc])
    busy = environment.load_warning(doc["environment"])
    outcome = judge(doc, rule_matches, notes + ([f"measured on a busy machine: {busy}"] if busy else []),
                    args.min_effect)
    return _publish(outcome, args, doc)


def measure(args: argparse.Namespace, self_test: list, pair: list) -> dict[str, Any]:
    procs.install_handlers()
    progress = Progress(quiet=args.quiet)
    run_dir = args.workdir / "runs" / time.strftime("%Y%m%dT%H%M%S")
    opts = Options(args.records, None, args.repeats, args.budget, True, prime_s=args.prime, run_s=args.run_seconds)
    with cluster_for(args, run_dir, progress) as cluster:
        doc = new_document(cluster, opts, ["check"], args.kafka_version)
        out = args.results or run_dir / "results.json"
        runner = SuiteRunner(cluster, opts, doc, out, run_dir / "perf", progress)
        runner.run(self_test)
        progress.note(f"base and head interleaved, {args.rounds} rounds")
        try:
            runner.measure_interleaved(pair, args.rounds)
        finally:
            runner.restore()  # run() restored after the self-test; the pair set broker configs again
        doc["status"] = "complete"
        results.save(doc, out)
        print(f"results: {out}", file=sys.stderr)
    return doc


def _runs(entry: dict[str, Any] | None, field: str) -> list[float | None]:
    return [r.get(field) for r in (entry or {}).get("runs", [])]


def judge(doc: dict[str, Any], rule_matches: list[dict[str, Any]], notes: list[str],
          min_effect: float) -> verdict.Verdict:
    by_id = {e["id"]: e for e in doc["scenarios"]}
    reference = by_id.get(REFERENCE_ID)
    canaries = []
    for entry in doc["scenarios"]:
        cliff = entry.get("cliff")
        if cliff:
            field = verdict.RESULT_FIELD[cliff["metric"]]
            canaries.append(verdict.check_canary(entry["id"], cliff["metric"], cliff["max_ratio"],
                                                 _runs(entry, field), _runs(reference, field)))
    sides = {}
    for side in ("base", "head"):
        entry = by_id.get(side)
        if entry and entry["status"] not in ("ok", "cliff"):
            notes.append(f"{side} could not be measured: {entry['status']}: {entry['status_reason']}")
        sides[side] = {m: _runs(entry, f) for m, f in verdict.RESULT_FIELD.items()}
    # base and head ran in the same rounds, so their i-th runs pair up (see kcliff.stats)
    scenario = verdict.compare_scenario("head", sides["base"], sides["head"], verdict.tier_ceiling(canaries),
                                        min_effect=min_effect, paired=True)
    return verdict.judge([scenario], canaries, rule_matches, notes,
                         {"min_effect": min_effect, "paired": True, "records": doc["parameters"]["records"],
                          "runner_class": doc["environment"]["runner_class"]})


def _publish(outcome: verdict.Verdict, args: argparse.Namespace, doc: dict[str, Any] | None) -> int:
    markdown = report_md.render(outcome, title="kcliff config check", context=f"base `{args.base}` vs head `{args.head}`")
    for target in (args.summary, args.comment):
        if target:
            with open(target, "a") as out:
                out.write(markdown + "\n")
    if args.json:
        payload = outcome.to_dict()
        payload["run_id"] = doc["run_id"] if doc else None
        args.json.write_text(json.dumps(payload, indent=1) + "\n")
    print(f"verdict: {outcome.verdict}")
    for reason in outcome.reasons:
        print(f"  {reason}")
    return outcome.exit_code
