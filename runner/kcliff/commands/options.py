"""Command-line options shared by the commands that start or reach a cluster, and the
configuration objects (backends.open.ClusterConfig, runconfig.RunConfig) built from them once."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable

from kcliff.backends.local import Caps
from kcliff.backends.open import ClusterConfig
from kcliff.errors import InputError
from kcliff.kafka import dist as kafka_dist
from kcliff.measure.options import Options
from kcliff.measure.runconfig import RunConfig
from kcliff.scenario.rate import Rate, parse_rate

DEFAULT_WORKDIR = Path(".kcliff")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


def rate(text: str) -> Rate:
    """--rate: '2000 records/s' or '1.5 MB/s' (scenario/rate.py)."""
    try:
        return parse_rate(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def bounded(low: float, high: float, unit: str) -> Callable[[str], float]:
    """An argparse type for a number of `unit` between `low` and `high` (nan and inf refused)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {unit} between {low:g} and {high:g}, got {text!r}")
        return value
    return parse


seconds = bounded(0, 600, "seconds")
milliseconds = bounded(0, 1000, "milliseconds")


def add_prime_option(parser: argparse.ArgumentParser, default: float) -> None:
    parser.add_argument("--prime", type=seconds, default=default, metavar="SECONDS",
                        help="unmeasured load on the brokers before the first measurement, so their JIT is warm "
                             "(default %(default)s; 0: one short run)")


def cpu_list(text: str) -> str:
    if not text or any(c not in "0123456789,-" for c in text):
        raise argparse.ArgumentTypeError(f"expected a CPU list like 0 or 0-1 or 0,2, got {text!r}")
    return text


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR,
                        help="where cluster data, logs and perf-tool output go (default .kcliff)")
    parser.add_argument("--kafka-version", default=kafka_dist.DEFAULT_VERSION)
    parser.add_argument("--kafka-home", help="use this Kafka distribution's libs/ instead of fetching jars")
    parser.add_argument("--broker-heap-mb", type=positive_int, default=1024)
    parser.add_argument("--broker-cpus", type=cpu_list, help="pin brokers to these CPUs (taskset)")
    parser.add_argument("--producer-heap-mb", type=positive_int, default=512)
    parser.add_argument("--producer-cpus", type=cpu_list, help="pin the producer to these CPUs (taskset)")
    parser.add_argument("--client-rtt-ms", type=milliseconds, default=0.0,
                        help="round trip added between producer and brokers (local and compose backends, "
                             "via toxiproxy); on loopback in-flight limits cost nothing (default 0: direct)")
    parser.add_argument("--fsync-delay-ms", type=milliseconds, default=0.0,
                        help="every fsync of the brokers' data takes at least this long, standing in for a "
                             "slower disk (local backend); a fast disk hides flush cliffs such as flush-1 "
                             "(default 0: the disk's own)")


def caps(args: argparse.Namespace) -> Caps:
    return Caps(args.broker_heap_mb, args.broker_cpus, args.producer_heap_mb, args.producer_cpus,
                args.client_rtt_ms, args.fsync_delay_ms)


def shard(text: str) -> tuple[int, int]:
    """'i/n' -> (i, n), 1 <= i <= n."""
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit()) or not 1 <= int(index) <= int(count):
        raise argparse.ArgumentTypeError(f"expected i/n with 1 <= i <= n, e.g. 2/4, got {text!r}")
    return int(index), int(count)


def require(condition: bool, message: str) -> None:
    if not condition:
        raise InputError(message)


# Why --fsync-delay-ms is refused beyond the local backend: it preloads a glibc-built shim into broker
# JVMs that kcliff starts on this host (backends/storage.py).
FSYNC_DELAY_ELSEWHERE = {
    "compose": "--fsync-delay-ms is for the local backend, not compose: the apache/kafka image the brokers "
               "run is Alpine (musl), which cannot load the glibc-built fsync shim; use --backend local",
    "external": "--fsync-delay-ms is for the local backend, not external: kcliff cannot reach into brokers "
                "it did not start; use --backend local",
}


def cluster_config(args: argparse.Namespace) -> ClusterConfig:
    """The cluster options (options.add_cluster_options, --backend, --bootstrap-servers), checked together."""
    backend = args.backend or ("external" if args.bootstrap_servers else "local")
    require(backend != "external" or bool(args.bootstrap_servers),
            "--backend external needs --bootstrap-servers host:port[,...]")
    require(backend == "external" or not args.bootstrap_servers,
            f"--bootstrap-servers is for the external backend, not {backend}")
    require(backend != "external" or not args.client_rtt_ms,
            "--client-rtt-ms is for the local and compose backends, not external")
    require(backend == "local" or not args.fsync_delay_ms, FSYNC_DELAY_ELSEWHERE.get(backend, ""))
    return ClusterConfig(backend, args.bootstrap_servers, args.workdir, args.kafka_version, args.kafka_home,
                         caps(args))


def run_config(args: argparse.Namespace) -> RunConfig:
    """`kcliff run`'s command line as a RunConfig."""
    opts = Options(args.records, args.warmup_records, args.repeats, args.budget, not args.no_early_stop,
                   args.cliff_threshold, args.prime, rate=args.rate)
    return RunConfig(args.suite or ["canaries"], args.only, args.shard, opts, args.out, args.resume, args.quiet,
                     args.baselines, args.no_baselines, cluster_config(args), args.confirm, args.p99_bound_ms,
                     args.confirm_rounds)
