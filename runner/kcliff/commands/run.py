"""`kcliff run`: measure suites of scenarios (plus the reference) on a cluster and print the table.

The cluster is the one given (--bootstrap-servers), the one `kcliff cluster up` left running in the
workdir, or one started for this run and always torn down again (also on Ctrl-C and errors).
After the table, each scenario's verdict against the stored baseline of its Kafka version and runner
class (baselines/, as `kcliff compare` decides it) is printed; it does not change the exit code.
Exit: 0 all measured and every canary showed its cliff; 1 a canary did not, or a scenario failed or
timed out; 2 bad input or no usable cluster; 130 interrupted.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from kcliff.backends.admin import Admin
from kcliff.backends.open import BACKENDS, for_faults, open_cluster
from kcliff.commands import options
from kcliff.errors import InputError
from kcliff.host import procs
from kcliff.measure import environment, rig_capacity, runconfig
from kcliff.measure.document import new_document
from kcliff.measure.heartbeat import Heartbeat
from kcliff.measure.options import CLIFF_THRESHOLD
from kcliff.measure.plan import GATE_ROUNDS, GATE_RUN_S, FollowUp, Group
from kcliff.measure.progress import Progress
from kcliff.measure.rate_side import DEFAULT_RATE
from kcliff.measure.runconfig import RunConfig
from kcliff.measure.suite import SuiteRunner
from kcliff.pairwise import design
from kcliff.report import table
from kcliff.results import baseline as baselines
from kcliff.results import model
from kcliff.results.model import REFERENCE_ID, ResultsDoc
from kcliff.results.rig import CPU_BOUND, RunnerClass
from kcliff.scenario.suites import Scenario, load_suites

RUN_S_AT_PROFILE = 5.0  # about what the default records last where CPU binds


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("run", help="measure scenarios on a real cluster")
    parser.add_argument("--suite", action="append", default=[],
                        help="suite name under scenarios/ (canaries, pairwise, ...) or a YAML path; repeatable")
    parser.add_argument("--only", help="comma-separated scenario ids to keep (the reference always runs)")
    parser.add_argument("--records", type=options.positive_int,
                        help=f"records per measured run (default {options.RUN_RECORDS:,}; at a profile that caps bytes, "
                             f"what its tighter cap passes in {RUN_S_AT_PROFILE:g} s)")
    parser.add_argument("--warmup-records", type=options.positive_int, help="records in the warm-up run "
                        "(default: half of --records)")
    parser.add_argument("--repeats", type=options.positive_int, default=3, help="measured runs per scenario")
    parser.add_argument("--budget", type=options.positive_float, default=600.0,
                        help="seconds per scenario before it is stopped and recorded as timed out")
    parser.add_argument("--no-early-stop", action="store_true",
                        help="measure cliff scenarios in full instead of stopping once the cliff is certain")
    parser.add_argument("--cliff-threshold", type=options.positive_float, default=CLIFF_THRESHOLD,
                        help="fraction of the reference's MB/s below which a scenario is on a cliff")
    options.add_prime_option(parser)
    parser.add_argument("--rate", type=options.rate, metavar="RATE",
                        help="the fixed rate latency is measured at, e.g. '2000 records/s' or '1.5 MB/s', for "
                             "scenarios measuring workload rate without a rate of their own (default: "
                             f"{DEFAULT_RATE})")
    parser.add_argument("--shard", type=options.shard, help="i/n: run every n-th scenario starting at i "
                        "(the reference runs in every shard)")
    parser.add_argument("--out", type=Path, help="results file (default results/<run id>.json)")
    parser.add_argument("--resume", type=Path, metavar="RESULTS",
                        help="continue an interrupted run from its first unfinished scenario, with its settings")
    parser.add_argument("--backend", choices=BACKENDS, help="default: external with --bootstrap-servers, else local")
    parser.add_argument("--bootstrap-servers", help="measure this existing cluster instead of starting one")
    options.add_broker_control_option(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument("--confirm", action="store_true",
                        help="after a pairwise suite, measure the factor model's predicted best configuration (and "
                             "the best within --p99-bound-ms) interleaved with the reference and the fastest "
                             "pairwise row, and say whether the prediction held")
    parser.add_argument("--confirm-rounds", type=options.positive_int, default=GATE_ROUNDS, metavar="N",
                        help="with --confirm: interleaved rounds (default: the PR gate's, for its error rates)")
    parser.add_argument("--p99-bound-ms", type=options.positive_float, metavar="MS",
                        help="with --confirm: the p99 the bounded prediction must keep (default: the reference's)")
    against = parser.add_mutually_exclusive_group()
    against.add_argument("--baselines", type=Path, metavar="DIR",
                         help="stored baselines to print verdicts against, DIR/<kafka>/<runner class>.json "
                              "(default: baselines/ found the way scenarios/ is)")
    against.add_argument("--no-baselines", action="store_true", help="print no verdicts against a stored baseline")
    options.add_cluster_options(parser)
    parser.set_defaults(func=run)


def select(scenarios: list[Scenario], only: str | None, shard: tuple[int, int] | None) -> list[Scenario]:
    if only:
        wanted = {s.strip() for s in only.split(",") if s.strip()}
        unknown = wanted - {s.id for s in scenarios}
        options.require(not unknown, f"--only: unknown scenario id(s) {', '.join(sorted(unknown))}; "
                        f"known: {', '.join(s.id for s in scenarios)}")
        scenarios = [s for s in scenarios if s.id in wanted or s.id == REFERENCE_ID]
    if shard:
        index, count = shard
        others = [s for s in scenarios if s.id != REFERENCE_ID]
        scenarios = [s for s in scenarios if s.id == REFERENCE_ID] + others[index - 1::count]
    return scenarios


def stored_baseline(config: RunConfig, profile: str = CPU_BOUND) -> tuple[Path, baselines.Baseline | None] | None:
    """The stored baseline this run will be printed against (None: --no-baselines): its runner class's at
    the rig `profile` it measures at, read before measuring so that an unreadable file stops the run at
    once instead of after it."""
    if config.no_baselines:
        return None
    if config.baselines is not None and not config.baselines.is_dir():
        raise InputError("--baselines: not a directory; expected one holding <kafka version>/<runner class>.json",
                         str(config.baselines))
    directory = config.baselines or baselines.default_dir()
    return baselines.stored_for(directory, config.cluster.kafka_version,
                                str(RunnerClass(environment.runner_class(config.cluster.backend), profile)))


def check_confirmable(config: RunConfig, loaded: list[Scenario]) -> None:
    """--confirm needs the whole pairwise design and the reference, measured in this run."""
    if not config.confirm:
        return
    options.require(config.shard is None, "--confirm needs every pairwise row in one run; it cannot be sharded")
    options.require(any(design.is_design_source(sc.source) for sc in loaded),
                    f"--confirm: no pairwise design rows in the suites {', '.join(config.suites)}; "
                    "add --suite pairwise (or another generated pairwise*.yaml)")


def confirmation(config: RunConfig, loaded: list[Scenario], doc: ResultsDoc,
                 progress: Progress) -> FollowUp | None:
    """With --confirm: what to measure after the suite (pairwise/confirm.py), recorded in the results."""
    if not config.confirm:
        return None

    def follow_up() -> Group | None:
        # imported here: its pandas and statsmodels take 3-18 s to load, which every run would pay
        from kcliff.pairwise import confirm

        try:
            planned = confirm.plan(doc, loaded, config.p99_bound_ms)
        except InputError as exc:
            progress.note(f"no confirmation: {exc.message}")
            doc.parameters["confirm_skipped"] = exc.message
            return None
        doc.confirmation = planned.record
        return Group(planned.scenarios, config.confirm_rounds, GATE_RUN_S)
    return follow_up


def run(args: argparse.Namespace) -> int:
    config = options.run_config(args)
    previous = model.load(config.resume) if config.resume is not None else None
    if previous is not None:
        config = runconfig.resumed(config, previous)
    loaded = load_suites(config.suites)
    check_confirmable(config, loaded)
    scenarios = select(loaded, config.only, config.shard)
    profile = options.profile(args)
    stored = stored_baseline(config, profile.name if profile else CPU_BOUND)
    if previous is not None:
        previous.scenarios = [e for e in previous.scenarios if not e.status.unfinished]
        done = {e.id for e in previous.scenarios}
        scenarios = [s for s in scenarios if s.id not in done]
    opts = config.options
    procs.install_handlers()
    progress = Progress(quiet=config.quiet)
    run_dir = config.cluster.workdir / "runs" / time.strftime("%Y%m%dT%H%M%S")
    cluster_config, rig = rig_capacity.capped(for_faults(config.cluster, scenarios), options.profile(args), run_dir,
                                              progress)
    if rig is not None and args.records is None and previous is None:  # 100,000 records lasted a minute at a profile
        opts = dataclasses.replace(opts, records=rig.records_lasting(RUN_S_AT_PROFILE))
    # the heartbeat covers start-up to teardown and has stopped before the table is printed
    with Heartbeat(progress), open_cluster(cluster_config, run_dir, progress) as cluster:
        doc = new_document(cluster, opts, config.suites, config.cluster.kafka_version)
        rig_capacity.record(doc.environment, rig)
        doc.parameters.update(only=config.only, shard=list(config.shard) if config.shard else None,
                              confirm=config.confirm, confirm_rounds=config.confirm_rounds,
                              p99_bound_ms=config.p99_bound_ms)
        if previous is not None:
            doc = continue_document(previous, doc)
        out = config.out or Path("results") / f"{doc.run_id}.json"
        progress.note(f"{len(scenarios)} scenarios, {opts.repeats} x {opts.records} records each; results -> {out}")
        try:
            suite = SuiteRunner(cluster, Admin(cluster.admin_bootstrap), opts, doc, out, run_dir / "perf", progress)
            suite.run(scenarios, follow_up=confirmation(config, loaded, doc, progress))
        finally:
            print(f"results: {out}", file=sys.stderr)
    print(table.render(doc))
    for line in table.bound_lines(doc):
        print(line)
    for line in table.confirmation_lines(doc):
        print(line)
    if stored is not None:
        print(table.baseline_section(doc, *stored, results=out))
    return exit_code(doc)  # the baseline verdicts stay out of it: `kcliff compare` is the gate


def continue_document(previous: model.ResultsDoc, fresh: model.ResultsDoc) -> model.ResultsDoc:
    """Keep the interrupted run's id, parameters and scenarios; note this leg's environment."""
    leg = {"started": fresh.environment["started"], "environment": fresh.environment}
    previous.resumes = [*(previous.resumes or []), leg]
    previous.status = model.RunStatus.RUNNING
    return previous


def exit_code(doc: ResultsDoc) -> int:
    bad = [e for e in doc.scenarios if e.status.fails_run]
    unseen = table.unseen_canaries(doc)
    for entry in bad:
        print(f"scenario {entry.id}: {entry.status}: {entry.status_reason}", file=sys.stderr)
    blind = environment.fsync_is_free(doc.environment)
    for _, found in unseen:
        why = ("the brokers' fsync reaches no disk here (see the warning at the start)" if blind
               else "the rig may not be able to see cliffs")
        print(f"canary {found.id} did not show its cliff ({found.stands_for}): {why}", file=sys.stderr)
    unconfirmed = doc.parameters.get("confirm_skipped")
    if unconfirmed:
        print(f"--confirm: {unconfirmed}", file=sys.stderr)
    return 1 if bad or unseen or unconfirmed else 0
