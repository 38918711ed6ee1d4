"""Command-line options shared by the commands that start or reach a cluster, and the
configuration objects (backends.open.ClusterConfig, runconfig.RunConfig) built from them once."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable

from kcliff.backends.broker_control import BrokerControl
from kcliff.backends.local import Caps
from kcliff.backends.open import ClusterConfig
from kcliff.configrepo.repo_scenario import RepoScenario
from kcliff.results.rig import CPU_BOUND
from kcliff.scenario.profile import PRESETS, Profile, preset
from kcliff.backends.storage import DEFAULT_FSYNC_DELAY_MS
from kcliff.errors import InputError
from kcliff.kafka import dist as kafka_dist
from kcliff.measure.options import PRIME_C1_S, PRIME_S, Options, prime_seconds
from kcliff.measure.runconfig import RunConfig
from kcliff.scenario.rate import Rate, parse_rate

DEFAULT_WORKDIR = Path(".kcliff")
RUN_RECORDS = 100_000  # kcliff run's records per measured run where CPU binds


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


def share(text: str) -> float:
    """A fraction of a whole: above 0, at most 1."""
    value = positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"expected a fraction above 0 and at most 1, got {text}")
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


def whole_milliseconds(text: str) -> int:
    """--replication-rtt-ms: toxiproxy delays in whole ms, so a fraction is refused rather than rounded."""
    value = milliseconds(text)
    if value != int(value):
        raise argparse.ArgumentTypeError(f"expected whole milliseconds between 0 and 1000 (toxiproxy delays in "
                                         f"whole ms), got {text!r}")
    return int(value)


def add_prime_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--prime", type=seconds, default=None, metavar="SECONDS",
                        help="unmeasured load on the brokers before the first measurement, so their JIT is warm "
                             f"(default {PRIME_C1_S:g} on the local backend, whose brokers run at C1, {PRIME_S:g} "
                             "elsewhere; 0: one short run)")


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
                             "via toxiproxy); on loopback in-flight limits cost nothing (default 0: direct, or for "
                             "`check` the measured producer's kcliff.yaml round_trip_ms)")
    parser.add_argument("--replication-rtt-ms", type=whole_milliseconds, metavar="MS",
                        help="round trip added between brokers: followers fetch from their leaders through toxiproxy, "
                             "as brokers in different availability zones do (local backend; clients keep "
                             "--client-rtt-ms; default 0: direct, or a rig profile's replication_rtt_ms; 0 switches "
                             "the profile's off)")
    parser.add_argument("--fsync-delay-ms", type=milliseconds, default=None,
                        help="every fsync of the brokers' data takes at least this long, standing in for a "
                             "slower disk (local and compose backends); a fast disk hides flush cliffs such "
                             f"as flush-1 (default {DEFAULT_FSYNC_DELAY_MS:g}; 0: the disk's own; the external "
                             "backend's brokers always use their own)")
    parser.add_argument("--link-mbit", type=non_negative_float, default=0.0,
                        help="each broker's NIC, Mbit/s each way: brokers in network namespaces of their own behind "
                             "capped links (compose: each broker container's veth), so bytes bind as on a real "
                             "network (local and compose backends, root; default 0: uncapped, CPU binds)")
    parser.add_argument("--disk-mb-s", type=non_negative_float, default=0.0,
                        help="each broker's disk write throughput, MB/s (local backend; compose as root; default 0: "
                             "uncapped)")
    parser.add_argument("--profile", choices=[CPU_BOUND, *PRESETS],
                        help="measure where a cluster of this broker class binds: caps each broker's link and disk "
                             "at the class's ratio to this rig's CPU-bound capacity (local and compose backends, root; "
                             "docs/profiles.md); a config repo's kcliff.yaml `profile:` says the same for check")


def add_broker_control_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--broker-control", type=Path, metavar="FILE",
                        help="external backend: a YAML file of the commands that kill, start (and optionally stop, "
                             "pause, resume) each broker, run without a shell; only with it may runs through a "
                             "broker's fault touch a cluster kcliff did not start (docs/failover.md)")


def profile(args: argparse.Namespace) -> Profile | None:
    """The rig profile --profile names; None for none or cpu-bound (today's uncapped rig)."""
    name = getattr(args, "profile", None)
    return preset(name) if name and name != CPU_BOUND else None


def non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def fsync_delay_ms(args: argparse.Namespace, backend: str = "local") -> float:
    """The emulated fsync delay asked for: the one given, else the default of every backend kcliff
    starts brokers on (an external cluster's disk is its own)."""
    if args.fsync_delay_ms is not None:
        return float(args.fsync_delay_ms)
    return 0.0 if backend == "external" else DEFAULT_FSYNC_DELAY_MS


def caps(args: argparse.Namespace, backend: str = "local") -> Caps:
    return Caps(args.broker_heap_mb, args.broker_cpus, args.producer_heap_mb, args.producer_cpus,
                args.client_rtt_ms, fsync_delay_ms(args, backend), args.fsync_delay_ms is not None,
                args.link_mbit, args.disk_mb_s, args.replication_rtt_ms or 0, args.replication_rtt_ms is not None)


def shard(text: str) -> tuple[int, int]:
    """'i/n' -> (i, n), 1 <= i <= n."""
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit()) or not 1 <= int(index) <= int(count):
        raise argparse.ArgumentTypeError(f"expected i/n with 1 <= i <= n, e.g. 2/4, got {text!r}")
    return int(index), int(count)


def require(condition: bool, message: str) -> None:
    if not condition:
        raise InputError(message)


# Why --fsync-delay-ms is refused on the external backend: the shim is preloaded into broker JVMs that
# kcliff starts (backends/storage.py), and it cannot reach into brokers it did not start.
FSYNC_DELAY_EXTERNAL = ("--fsync-delay-ms is for the local and compose backends, not external: kcliff cannot "
                        "reach into brokers it did not start; use --backend local or compose")


def cluster_config(args: argparse.Namespace) -> ClusterConfig:
    """The cluster options (options.add_cluster_options, --backend, --bootstrap-servers), checked together."""
    backend = args.backend or ("external" if args.bootstrap_servers else "local")
    require(backend != "external" or bool(args.bootstrap_servers),
            "--backend external needs --bootstrap-servers host:port[,...]")
    require(backend == "external" or not args.bootstrap_servers,
            f"--bootstrap-servers is for the external backend, not {backend}")
    require(backend != "external" or not args.client_rtt_ms,
            "--client-rtt-ms is for the local and compose backends, not external")
    require(backend != "external" or not args.fsync_delay_ms, FSYNC_DELAY_EXTERNAL)
    require(backend == "local" or not args.replication_rtt_ms,
            f"--replication-rtt-ms is for the local backend, not {backend}: kcliff puts a proxy between brokers "
            "it starts as JVMs on this host")
    require(backend != "external" or not (args.link_mbit or args.disk_mb_s or profile(args)),
            "--link-mbit, --disk-mb-s and --profile are for the local and compose backends, not external: kcliff "
            "cannot cap the links and disks of brokers it did not start")
    require(not profile(args) or not (args.link_mbit or args.disk_mb_s),
            "--profile sets the link and disk caps itself: give it or --link-mbit/--disk-mb-s, not both")
    control = getattr(args, "broker_control", None)
    require(backend == "external" or control is None,
            f"--broker-control is for the external backend, not {backend}: kcliff kills and starts the brokers it "
            "starts itself")
    return ClusterConfig(backend, args.bootstrap_servers, args.workdir, args.kafka_version, args.kafka_home,
                         caps(args, backend), BrokerControl.load(control) if control else None)


def run_config(args: argparse.Namespace) -> RunConfig:
    """`kcliff run`'s command line as a RunConfig."""
    cluster = cluster_config(args)
    opts = Options(args.records or RUN_RECORDS, args.warmup_records, args.repeats, args.budget, not args.no_early_stop,
                   args.cliff_threshold, prime_seconds(cluster.backend, args.prime), rate=args.rate)
    return RunConfig(args.suite or ["canaries"], args.only, args.shard, opts, args.out, args.resume, args.quiet,
                     args.baselines, args.no_baselines, cluster, args.confirm, args.p99_bound_ms,
                     args.confirm_rounds)


def with_round_trip(args: argparse.Namespace, base: RepoScenario, head: RepoScenario,
                    notes: list[str]) -> argparse.Namespace:
    """The clients' round trip to the brokers: --client-rtt-ms, else the measured producer's in kcliff.yaml
    (the head's, else the base's), so a producer that runs far from its brokers is measured as far."""
    declared = next((p.round_trip_ms for p in (head.production, base.production) if p and p.round_trip_ms), 0.0)
    if args.client_rtt_ms or not declared:
        return args
    notes.append(f"measured across a {declared:g} ms round trip between the clients and the brokers, the producer's "
                 "round_trip_ms in kcliff.yaml")
    return argparse.Namespace(**{**vars(args), "client_rtt_ms": declared})
