"""`kcliff kafka fetch`: put Kafka's jars in the cache (idempotent; instant when already there)."""

from __future__ import annotations

import argparse

from kcliff.kafka import dist as kafka_dist


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("kafka", help="manage the Kafka jars kcliff runs")
    verbs = parser.add_subparsers(dest="verb", required=True)
    fetch = verbs.add_parser("fetch", help="fetch Kafka's jars from Maven Central into the cache")
    fetch.add_argument("--kafka-version", default=kafka_dist.DEFAULT_VERSION)
    fetch.set_defaults(func=run_fetch)


def run_fetch(args: argparse.Namespace) -> int:
    libs = kafka_dist.ensure(args.kafka_version)
    print(f"kafka {args.kafka_version}: {len(list(libs.glob('*.jar')))} jars in {libs}")
    return 0
