"""What a measuring command was asked to do, built once from its command line (or, for
`kcliff run --resume`, from the interrupted run's results file) and not changed after."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from pathlib import Path

from .backends.local import Caps
from .commands import options
from .model import ResultsDoc
from .suite import Options

BACKENDS = ("local", "compose", "external")


@dataclass(frozen=True)
class ClusterConfig:
    """Which cluster to measure on and how a started one is capped."""

    backend: str  # one of BACKENDS
    bootstrap_servers: str | None
    workdir: Path
    kafka_version: str
    kafka_home: str | None
    caps: Caps


@dataclass(frozen=True)
class RunConfig:
    """`kcliff run`: the scenarios, how they are measured, where the results go."""

    suites: list[str]
    only: str | None
    shard: tuple[int, int] | None
    options: Options
    out: Path | None
    resume: Path | None
    quiet: bool
    baselines: Path | None
    no_baselines: bool
    cluster: ClusterConfig


def cluster_config(args: argparse.Namespace) -> ClusterConfig:
    """The cluster options (options.add_cluster_options, --backend, --bootstrap-servers), checked together."""
    backend = args.backend or ("external" if args.bootstrap_servers else "local")
    options.require(backend != "external" or bool(args.bootstrap_servers),
                    "--backend external needs --bootstrap-servers host:port[,...]")
    options.require(backend == "external" or not args.bootstrap_servers,
                    f"--bootstrap-servers is for the external backend, not {backend}")
    options.require(backend != "external" or not args.client_rtt_ms,
                    "--client-rtt-ms is for the local and compose backends, not external")
    return ClusterConfig(backend, args.bootstrap_servers, args.workdir, args.kafka_version, args.kafka_home,
                         options.caps(args))


def run_config(args: argparse.Namespace) -> RunConfig:
    """`kcliff run`'s command line as a RunConfig."""
    opts = Options(args.records, args.warmup_records, args.repeats, args.budget, not args.no_early_stop,
                   args.cliff_threshold, args.prime)
    return RunConfig(args.suite or ["canaries"], args.only, args.shard, opts, args.out, args.resume, args.quiet,
                     args.baselines, args.no_baselines, cluster_config(args))


def resumed(config: RunConfig, previous: ResultsDoc) -> RunConfig:
    """The interrupted run's own suites and parameters in place of the command line's; its results
    file is written on."""
    params = previous.parameters
    opts = Options(params["records"], params["warmup_records"], params["repeats"], params["budget_s"],
                   params["early_stop"], params["cliff_threshold"], params.get("prime_s", config.options.prime_s))
    cluster = dataclasses.replace(config.cluster, kafka_version=previous.environment["kafka_version"])
    shard = params.get("shard")
    return dataclasses.replace(config, suites=params["suites"], only=params.get("only"),
                               shard=(shard[0], shard[1]) if shard else None, options=opts, out=config.resume,
                               cluster=cluster)
