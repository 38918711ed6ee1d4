"""`kcliff check --base DIR --head DIR`: the config pull request gate, measured on a real cluster.

1. Both config repos are read and validated (bad input: every one of both sides reported, the
   head's annotated on their lines; exit 2) and the static cliff rules run on the head; a rule the
   head newly matches is annotated on its line.
2. One cluster measures the reference and the canaries (the sensitivity self-test: a canary that
   does not show its cliff makes the verdict inconclusive), then base and head interleaved
   (each round both, in a random balanced order) so drift on a shared runner hits both alike.
3. The verdict (kcliff.verdict): pass 0, regression 1, cliff 1, inconclusive 3, bad input 2. Only
   the metrics the change can move are judged, their false alarms held to alpha together
   (judge/family.py). A measured regression or cliff is annotated on every measured setting the head
   changes whose kind can move the failing metric.
A head whose measured settings equal the base's (a comment, whitespace, an unmeasured file) passes
without a cluster. A head that changes the Kafka version (a kafka-version file, Strimzi's
spec.kafka.version) is measured on a second cluster of its own version, interleaved as always; so is a
head measured through a fault alone whose read-only broker settings differ (failover_side.head_apart).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, TypeVar

from kcliff import configrepo
from kcliff.backends.admin import Admin
from kcliff.backends.compose_caps import NO_LIBRDKAFKA
from kcliff.backends.open import BACKENDS, for_faults, open_cluster
from kcliff.commands import options
from kcliff.configrepo import librdkafka
from kcliff.configrepo.repo_scenario import RepoScenario, to_scenario
from kcliff.errors import InputError, InputErrors, Problems
from kcliff.host import procs
from kcliff.judge import at_rate, canary, compression, stopping, tradeoff, verdict
from kcliff.judge.family import Family
from kcliff.judge.self_test import DEFAULT_CANARIES, self_test_canaries, self_test_options, unvouched_canaries
from kcliff.kafka import rdkafka_release
from kcliff.kafka import release as kafka_release
from kcliff.kafka.clients import Client
from kcliff.lint import cliffs
from kcliff.lint import findings as input_findings
from kcliff.lint.github import add_repo_root_option, annotation, github_path
from kcliff.measure import environment, failover_side, rate_side, rig_capacity
from kcliff.measure.document import new_document
from kcliff.measure.options import Options, prime_seconds
from kcliff.measure.plan import FAULT_ROUNDS, GATE_ROUNDS, GATE_RUN_S
from kcliff.measure.heartbeat import Heartbeat
from kcliff.measure.progress import Progress
from kcliff.measure.suite import SuiteRunner
from kcliff.report import check_findings
from kcliff.report import markdown as report_md
from kcliff.results.metrics import FAILED, LOST, RATE_E2E_P50, RATE_E2E_P99, Metric, Workload, trades_cpu_for_bytes
from kcliff.results.model import REFERENCE_ID, ResultsDoc, RunStatus
from kcliff.results.rig import CPU_BOUND, Rig
from kcliff.scenario.latency_budget import LatencyBudget
from kcliff.scenario.profile import DEFAULT_BYTE_BOUND, Profile, preset
from kcliff.scenario.rate import Rate
from kcliff.scenario.suites import Scenario, load_suites

UNCHANGED = ("nothing measured changed: base and head set the same broker, topic, producer and consumer "
             "settings, so no cluster was started")
CPU_RECORDS = 30_000  # a run's least records where CPU binds: a fast config sends them in about a second


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("check", help="gate a config change: lint, then measure base vs head on one cluster")
    parser.add_argument("--base", required=True, help="the base branch's config repo directory")
    parser.add_argument("--head", required=True, help="the pull request's config repo directory")
    parser.add_argument("--rounds", type=options.positive_int,
                        help=f"most interleaved base/head rounds (default {GATE_ROUNDS}, {FAULT_ROUNDS} for a change "
                             "measured through a fault alone); fewer when the verdict is certain sooner")
    parser.add_argument("--all-rounds", action="store_true",
                        help="measure every round even when the verdict is certain sooner")
    parser.add_argument("--records", type=options.positive_int, help=f"least records per run (default {CPU_RECORDS:,}; "
                        "where a profile caps bytes, what its binding cap passes in --run-seconds)")
    parser.add_argument("--run-seconds", type=options.seconds, default=GATE_RUN_S,
                        help="stretch each measured run to about this long, from the latest run's rate (default "
                             "%(default)s): a fast config's 30,000 records last under a second and scatter widely")
    parser.add_argument("--repeats", type=options.positive_int, default=3, help="runs of the reference and canaries")
    parser.add_argument("--canaries", help=f"canary ids measured as the self-test (default: {DEFAULT_CANARIES}, "
                        "those of them whose workload the check judges)")
    parser.add_argument("--rate", type=options.rate, metavar="RATE",
                        help="the fixed rate latency is measured at on both sides, e.g. '2000 records/s' or "
                             "'1.5 MB/s' (default: the producer's rate in the head's kcliff.yaml, else --rate-share "
                             "of the base's peak)")
    parser.add_argument("--no-rate", action="store_true",
                        help="measure flat out only, not latency at rate: about half the time a round takes, and "
                             "blind to a setting that costs latency and not throughput")
    parser.add_argument("--rate-share", type=options.share, default=rate_side.PEAK_SHARE, metavar="FRACTION",
                        help="where no rate is given, latency at rate is measured at this share of the base's "
                             "peak MB/s in the same check (default %(default)s)")
    parser.add_argument("--min-effect", type=options.positive_float, default=verdict.DEFAULT_MIN_EFFECT,
                        help="smallest change worth failing on, as a fraction (default 0.10)")
    parser.add_argument("--budget", type=options.positive_float, default=300.0, help="seconds per scenario")
    options.add_prime_option(parser)
    parser.add_argument("--static-only", action="store_true", help="lint only; no cluster")
    parser.add_argument("--measure-unchanged", action="store_true",
                        help="measure even when base and head set the same measured settings (an A/A check); "
                             "by default such a head passes without a cluster")
    parser.add_argument("--format", choices=("text", "github"),
                        default="github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    parser.add_argument("--summary", type=Path, help="append the Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--comment", type=Path, help="write the PR comment Markdown here (replacing the file)")
    parser.add_argument("--json", type=Path, help="write the verdict as JSON here")
    parser.add_argument("--results", type=Path, help="results file of the measurements (default under --workdir)")
    parser.add_argument("--backend", choices=BACKENDS)
    parser.add_argument("--bootstrap-servers")
    options.add_broker_control_option(parser)
    parser.add_argument("--quiet", action="store_true")
    add_repo_root_option(parser, "the head's checkout")
    options.add_cluster_options(parser)
    parser.set_defaults(func=run)


def static_findings(base_dir: str, head_dir: str, fmt: str, head_root: Path | None = None
                    ) -> tuple[Any, list[cliffs.Match], list[cliffs.Match]]:
    """Read both repos, run the rules; return the head repo, the matches the head introduces, and
    those already on the base. Introduced matches are printed (annotations with --format github,
    named relative to `head_root`, the head's checkout)."""
    rules = cliffs.load_rules()
    base_repo, head_repo = on_both_sides(lambda: configrepo.load([base_dir]),
                                         lambda: configrepo.load([head_dir], head_root),
                                         (base_dir, head_dir), fmt, head_root)
    base_matches, head_matches = cliffs.evaluate(base_repo, rules), cliffs.evaluate(head_repo, rules)
    new = cliffs.introduced(base_matches, head_matches)
    for m in new:
        text = m.describe({})
        if fmt == "github":
            print(annotation(m.rule.severity, github_path(m.path, head_root), m.line,
                                  f"kcliff: {m.rule.id}", text))
        else:
            print(f"{m.path}:{m.line}: {m.rule.severity}: {text}")
    kept = [m for m in head_matches if m not in new]
    return (base_repo, head_repo), new, kept


def run(args: argparse.Namespace) -> int:
    (base_repo, head_repo), new, kept = static_findings(args.base, args.head, args.format, args.repo_root)
    notes = [f"already on the base branch: {m.condition()} at {m.path}:{m.line}" for m in kept]
    measured_files = frozenset(e.path for repo in (base_repo, head_repo) for e in configrepo.measured_entries(repo))
    notes += librdkafka.unmeasured_changes(base_repo.entries, head_repo.entries, args.base, args.head, measured_files)
    upgrade = configrepo.version_change(base_repo.kafka_version, head_repo.kafka_version, args.kafka_version)
    if upgrade is not None:
        notes.append(f"Kafka version changed: {upgrade.base} -> {upgrade.head}; base and head each measured on a "
                     "cluster of their own version, the reference and canaries on the base's")
    base_sc, head_sc = configrepo.measured_workloads(*on_both_sides(
        lambda: to_scenario(base_repo, "base", f"base: {args.base}"),
        lambda: to_scenario(head_repo, "head", f"head: {args.head}"), (args.base, args.head), args.format,
        args.repo_root), at_rate=not args.no_rate, upgrade=upgrade)
    base_sc, head_sc, rate_notes = at_one_rate(base_sc, head_sc, args.rate)
    notes += rate_notes + librdkafka_notes(base_sc, head_sc, options.cluster_config(args).backend)
    notes += [f"head: {n}" for n in head_sc.notes]
    for scope, values in head_sc.weakened_durability().items():
        notes.append(f"head weakens durability ({scope}: {values}); measured as set")
    rule_matches = [m.to_dict() for m in new]
    unchanged = base_sc.as_applied() == head_sc.as_applied() and upgrade is None  # durability included
    if unchanged and not args.measure_unchanged:
        return _publish(verdict.judge([], (), rule_matches, notes, unchanged=UNCHANGED), args, None)
    if args.static_only:
        outcome = verdict.judge([], (), rule_matches, notes + ["static check only: nothing was measured"])
        return _publish(outcome, args, None)
    if args.no_rate:
        notes.append("latency at rate not measured (--no-rate): a setting that costs latency and not throughput "
                     "cannot show")
    args = options.with_round_trip(args, base_sc, head_sc, notes)
    family = family_of(base_sc, head_sc, upgrade)
    scenarios = {s.id: s for s in load_suites(["canaries", "failover"])}
    canary_ids = self_test_canaries(args.canaries, scenarios, head_sc, family)
    version = configrepo.kafka_version(base_repo.kafka_version, args.kafka_version)
    for side, decl in (("base", base_repo.kafka_version), ("head", head_repo.kafka_version)):
        why = kafka_release.measurable(decl.version) if decl else None
        if decl and why:
            raise InputError(f"{why}: the {side} cannot be measured (`kcliff lint` still checks it)", decl.path,
                             decl.line)
    changes = [upgrade] if upgrade else []
    changes += configrepo.setting_changes(configrepo.measured_entries(base_repo),
                                          configrepo.measured_entries(head_repo), args.base, args.head, head_repo.files)
    changes += configrepo.production_changes(base_sc, head_sc)
    rigs: list[tradeoff.RigVerdict] = []
    for k, profile in enumerate(rig_profiles(args, head_repo.measure.profile or base_repo.measure.profile, changes,
                                             notes)):
        doc = measure(args, [scenarios[REFERENCE_ID], *[scenarios[c] for c in canary_ids]], [base_sc, head_sc],
                      version, upgrade, profile, f"-{profile.name}" if k and profile else "", head_sc.latency_budget)
        rig = Rig.of(doc.environment)
        rig_notes = list(notes) + [n for n in [environment.busy_note(doc.environment)] if n]
        rig_notes += unvouched_canaries([scenarios[c] for c in canary_ids], doc, args.fsync_delay_ms)
        rigs.append(tradeoff.RigVerdict(rig.profile, rig.binds or "cpu",
                                        judge(doc, rule_matches, rig_notes, args.min_effect, family,
                                              head_sc.latency_budget)))
    outcome = tradeoff.combine(rigs)
    said = tradeoff.disagreement(rigs)
    found = (check_findings.tradeoff_findings(said, changes, args.format, args.repo_root) if said else
             check_findings.measured_findings(outcome, changes, args.format, args.repo_root))
    for line in found:
        print(line)
    return _publish(outcome, args, doc)


def librdkafka_notes(base: RepoScenario, head: RepoScenario, backend: str) -> list[str]:
    """What a check of a librdkafka producer says it ran on; refused on compose before any cluster starts."""
    if Client.LIBRDKAFKA not in (base.client, head.client):
        return []
    if backend == "compose":
        raise InputError(NO_LIBRDKAFKA)
    if Workload.FAILOVER in head.workloads:  # its runs through a fault are the Java load generator's (failover.py)
        raise InputError("this change is measured through a broker fault, which kcliff cannot do yet for a librdkafka "
                         "producer (`kcliff lint` still checks its rules)")
    return [f"producer measured with librdkafka: {rdkafka_release.describe()}, produce latency only at rate"]


def rig_profiles(args: argparse.Namespace, declared: Profile | None, changes: list[configrepo.SettingChange],
                 notes: list[str]) -> list[Profile | None]:
    """The rigs a check measures on: the profile given or declared; with none, a change that trades CPU
    against bytes on a CPU-bound rig and a byte-bound one (the default preset) both; else the CPU-bound rig."""
    chosen = options.profile(args) or declared
    if chosen is not None or args.profile == CPU_BOUND:
        return [chosen]
    traded = [c for c in changes if trades_cpu_for_bytes(c.kind, c.name)]
    if not traded:
        return [None]
    if options.cluster_config(args).backend != "local" or os.geteuid() != 0:
        notes.append(f"{traded[0].describe()} trades CPU against bytes: measured only where CPU binds (a byte-bound "
                     "rig needs the local backend as root); declare your cluster's shape in kcliff.yaml")
        return [None]
    notes.append(f"{traded[0].describe()} trades CPU against bytes and the repo declares no profile: measured where "
                 f"CPU binds and at {DEFAULT_BYTE_BOUND}, where bytes bind")
    return [None, preset(DEFAULT_BYTE_BOUND)]


Side = TypeVar("Side")


def on_both_sides(read_base: Callable[[], Side], read_head: Callable[[], Side], dirs: tuple[str, str], fmt: str,
                  head_root: Path | None) -> tuple[Side, Side]:
    """Base's and head's result, or every bad input of both sides (InputErrors, exit 2). With --format
    github the head's are annotated on their lines; the base's belong to the run (its files are not the
    pull request's) unless the head has the same one, which is annotated on the head's line already."""
    found = (Problems(), Problems())
    results: list[Side | None] = [None, None]
    for side, read in enumerate((read_base, read_head)):
        with found[side].catch():
            results[side] = read()
    base, head = results
    if base is not None and head is not None:
        return base, head
    if fmt == "github":
        for line in bad_input_annotations(found[0].found, found[1].found, dirs, head_root):
            print(line)
    raise InputErrors([*found[0].found, *found[1].found])


def bad_input_annotations(base: list[InputError], head: list[InputError], dirs: tuple[str, str],
                          head_root: Path | None) -> list[str]:
    def same(problem: InputError, top: str) -> tuple[str, int | None, str]:
        return os.path.relpath(problem.path or top, top), problem.line, problem.message

    on_head = {same(p, dirs[1]) for p in head}
    lines = [f.annotation() for f in input_findings.bad_inputs(head, lambda path: github_path(path, head_root))]
    return lines + [f.annotation(on_file=False) for p in base if same(p, dirs[0]) not in on_head
                    for f in input_findings.bad_inputs([p], str)]


def at_one_rate(base: RepoScenario, head: RepoScenario, given: Rate | None
                ) -> tuple[RepoScenario, RepoScenario, list[str]]:
    """Both sides at one rate, so their latencies compare: --rate, else the head's kcliff.yaml rate (the
    rate the pull request says its service will run at), else the base's; with none, the check measures at
    a share of the base's peak (Options.rate_share). Notes say which."""
    rate = given or head.rate or base.rate
    notes = []
    if given is None and head.rate != base.rate:
        notes.append(f"the head changes its producer's rate ({base.rate or 'none'} -> {head.rate or 'none'}): "
                     f"both sides measured at {rate}")
    return dataclasses.replace(base, rate=rate), dataclasses.replace(head, rate=rate), notes


def family_of(base: Scenario, head: Scenario, upgrade: configrepo.SettingChange | None) -> Family:
    """What the check judges: the metrics its sides measure that the kinds of setting they differ in can move
    (a librdkafka producer's generator reads nothing back: no end-to-end latency at rate)."""
    family = Family.of(configrepo.changed_kinds(base, head, upgrade), head.workloads, configrepo.failover_moved(base, head))
    if Client.LIBRDKAFKA not in (base.client, head.client):
        return family
    return dataclasses.replace(family, judged=tuple(m for m in family.judged if m not in (RATE_E2E_P50, RATE_E2E_P99)))


def measure(args: argparse.Namespace, self_test: list[Scenario], pair: list[Scenario], version: str,
            upgrade: configrepo.SettingChange | None = None,
            profile: Profile | None = None, suffix: str = "", budget: LatencyBudget | None = None) -> ResultsDoc:
    """The reference and canaries as `kcliff run` measures them, then base and head interleaved on a cluster
    of the base's Kafka `version` (the repo's, else --kafka-version); with an `upgrade`, the head on a
    cluster of its own version."""
    config = for_faults(dataclasses.replace(options.cluster_config(args), kafka_version=version), [*self_test, *pair])
    if upgrade is not None:
        options.require(config.backend != "external" and not config.kafka_home,
                        f"the head changes the Kafka version ({upgrade.base} -> {upgrade.head}): kcliff starts a "
                        "cluster of each version, so --backend external and --kafka-home cannot measure it")
        config = dataclasses.replace(config, kafka_version=upgrade.base)
    procs.install_handlers()
    progress = Progress(quiet=args.quiet)
    run_dir = config.workdir / "runs" / time.strftime("%Y%m%dT%H%M%S")
    config, rig = rig_capacity.capped(config, profile, run_dir, progress)
    # Latency at rate at a share of a peak measured here, in the self-test too: at a fixed 1 MB/s, half the
    # compose rig's peak, the reference's own p50 reached 209 ms and the latency canary read 0.73x of 0.3.
    records = args.records or (rig.records_lasting(args.run_seconds) if rig else CPU_RECORDS)
    opts = Options(records, None, args.repeats, args.budget, True,
                   prime_s=prime_seconds(config.backend, args.prime), run_s=args.run_seconds,
                   rate_share=args.rate_share)
    with Heartbeat(progress), contextlib.ExitStack() as clusters:  # it stops once the clusters are down
        cluster = clusters.enter_context(open_cluster(config, run_dir, progress, reuse=upgrade is None))
        doc = new_document(cluster, opts, ["check"], config.kafka_version)
        rig_capacity.record(doc.environment, rig)
        out = args.results or run_dir / "results.json"
        out = out.with_name(f"{out.stem}{suffix}{out.suffix}")  # a second rig's results beside the first's
        runner = SuiteRunner(cluster, Admin(cluster.admin_bootstrap), self_test_options(opts, self_test), doc, out,
                             run_dir / "perf", progress)
        apart = [sc for sc in self_test if failover_side.canary_apart(sc, config.backend)]
        with runner.apart(apart, lambda name: open_cluster(config, run_dir, progress, name, reuse=False),
                          config.kafka_version):
            runner.run(self_test, settled=stopping.settled(opts.repeats, cluster.bytes_capped()), read_baseline=False)
        if upgrade is not None:
            head = clusters.enter_context(open_cluster(dataclasses.replace(config, kafka_version=str(upgrade.head)),
                                                       run_dir, progress, "cluster-head", reuse=False))
            runner.measure_elsewhere(pair[1], head, Admin(head.admin_bootstrap), str(upgrade.head))
        family = family_of(pair[0], pair[1], upgrade)
        if upgrade is None and failover_side.head_apart(pair, family.through_faults, config.backend):
            head = clusters.enter_context(open_cluster(config, run_dir, progress, "cluster-head", reuse=False))
            runner.measure_elsewhere(pair[1], head, Admin(head.admin_bootstrap), config.kafka_version, False)
        rounds = family.rounds(args.rounds)
        progress.note(f"base and head interleaved, {rounds} rounds")
        try:
            stop = stopping.certain(rounds, family, budget, cluster.bytes_capped())
            flat_out = dataclasses.replace(opts, flat_out_judged=family.judges_workload(Workload.PRODUCE),
                                           fault_bound_s=failover_side.shared_bound_s(pair))
            runner.measure_interleaved(pair, rounds, None if args.all_rounds else stop, flat_out)
        finally:
            runner.restore()  # run() restored after the self-test; the pair set broker configs again
        doc.status = RunStatus.COMPLETE
        runner.save()
        print(f"results: {out}", file=sys.stderr)
    return doc


def judge(doc: ResultsDoc, rule_matches: list[dict[str, Any]], notes: list[str],
          min_effect: float, family: Family, budget: LatencyBudget | None = None) -> verdict.Verdict:
    canaries = canary.canary_verdicts(doc)
    sides = {}
    for side in ("base", "head"):
        entry = doc.entry(side)
        if entry is not None and not entry.counts:
            notes.append(f"{side} could not be measured: {entry.status}: {entry.status_reason}")
        sides[side] = {m.name: entry.values(m) for m in entry.metrics()} if entry is not None else {}
    # base and head ran in the same rounds, so their i-th runs pair up (see kcliff.stats)
    held = (at_rate.held_rate(doc.entry("base")), at_rate.held_rate(doc.entry("head")))
    stopped = stopping.cut_on_cliff(doc.entry("base"), doc.entry("head"))
    base, head = doc.entry("base"), doc.entry("head")

    def totals(metric: Metric) -> tuple[int | None, int | None]:
        return (base.total(metric) if base else None, head.total(metric) if head else None)
    scenario = verdict.compare_scenario("head", sides["base"], sides["head"], verdict.cliff_ceiling(canaries),
                                        family, held, budget, stopped, totals(LOST),
                                        totals(FAILED) if FAILED in family.counted else (None, None),
                                        stopping.reads_cut(base, head), min_effect=min_effect, paired=True)
    notes += at_rate.rate_notes(doc)
    if budget is not None:
        notes.append(f"latency at rate judged against the service's {budget} budget (the head's kcliff.yaml)")
    notes += compression.compression_notes(doc)
    notes.append(family.describe(verdict.DEFAULT_ALPHA))
    return verdict.judge([scenario], canaries, rule_matches, notes,
                         {"min_effect": min_effect, "paired": True, "records": doc.parameters["records"],
                          "runner_class": doc.environment["runner_class"]})


def _publish(outcome: verdict.Verdict, args: argparse.Namespace, doc: ResultsDoc | None) -> int:
    markdown = report_md.render(outcome, title="kcliff config check", context=f"base `{args.base}` vs head `{args.head}`")
    if args.summary:  # GITHUB_STEP_SUMMARY's contract: each step appends
        with open(args.summary, "a") as out:
            out.write(markdown + "\n")
    if args.comment:  # fresh each run: a persistent runner must not post the previous PR's verdict
        args.comment.write_text(markdown + "\n")
    if args.json:
        payload = outcome.to_dict()
        payload["run_id"] = doc.run_id if doc else None
        payload["measured"] = doc is not None  # false: static only, or nothing measured changed
        args.json.write_text(json.dumps(payload, indent=1) + "\n")
    print(f"verdict: {outcome.verdict}")
    for reason in outcome.reasons:
        print(f"  {reason}")
    return outcome.exit_code
