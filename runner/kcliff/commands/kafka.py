"""`kcliff kafka fetch`: put Kafka's jars in the cache; `kcliff kafka loadgen`: build kcliff's load
generator into it (each idempotent; instant when already there)."""

from __future__ import annotations

import argparse

from kcliff.kafka import dist as kafka_dist
from kcliff.kafka import loadgen


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("kafka", help="manage the Kafka jars kcliff runs")
    verbs = parser.add_subparsers(dest="verb", required=True)
    fetch = verbs.add_parser("fetch", help="fetch Kafka's jars from Maven Central into the cache")
    fetch.add_argument("--kafka-version", default=kafka_dist.DEFAULT_VERSION)
    fetch.set_defaults(func=run_fetch)
    build = verbs.add_parser("loadgen", help="build kcliff's fixed-rate load generator (loadgen/) with Maven into the cache")
    build.set_defaults(func=run_loadgen)


def run_fetch(args: argparse.Namespace) -> int:
    libs = kafka_dist.ensure(args.kafka_version)
    print(f"kafka {args.kafka_version}: {len(list(libs.glob('*.jar')))} jars in {libs}")
    return 0


def run_loadgen(args: argparse.Namespace) -> int:
    jars = loadgen.ensure()
    print(f"loadgen: {jars[0]}")
    return 0
