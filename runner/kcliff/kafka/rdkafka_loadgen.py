"""kcliff's load generator on librdkafka (docs/librdkafka.md, "Measuring"): run as its own process,
`python -m kcliff.kafka.rdkafka_loadgen`, by the confluent-kafka release a service runs.

Flat out (`--num-records N`) it prints what Kafka's perf tool prints, line for line (rdkafka_flat.py);
at a fixed rate (`--rate R`) the JSON lines of kcliff's Java load generator (rdkafka_rate.py), so
measure/perf_output.py and measure/rate_output.py read it unchanged. It imports only the standard
library, confluent_kafka and hdrh: a venv holding just those two runs it (kafka/rdkafka_release.py).

Exit codes as LoadGen's: 0 done, 1 the cluster or the topic could not be reached, 2 bad arguments or a
setting librdkafka refuses (its own message on stderr).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

from kcliff.kafka import rdkafka_flat, rdkafka_rate
from kcliff.kafka.rdkafka_client import Records, Refused, Unreachable, client_config, read_config

EXIT_CLUSTER, EXIT_ARGS = 1, 2


def arguments(argv: list[str]) -> argparse.Namespace:
    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            raise Refused(message)
    parser = Parser(prog="kcliff.kafka.rdkafka_loadgen")
    parser.add_argument("--bootstrap-servers", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--producer-config", type=Path, required=True)
    sent = parser.add_mutually_exclusive_group()
    sent.add_argument("--record-size", type=int, default=1024)
    sent.add_argument("--payload-file", type=Path)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--num-records", type=int, help="flat out: this many records, printed as the perf tool prints")
    mode.add_argument("--rate", type=float, help="records/s on an open-loop schedule, JSON lines as LoadGen's")
    parser.add_argument("--warmup-records", type=int, default=0)
    parser.add_argument("--throughput", type=float, default=-1.0)
    parser.add_argument("--reporting-interval-ms", type=int, default=5000)
    parser.add_argument("--duration-s", type=float, default=30.0)
    parser.add_argument("--warmup-s", type=float, default=5.0)
    parser.add_argument("--interval-s", type=float, default=1.0)
    parser.add_argument("--drain-s", type=float, default=10.0)
    parser.add_argument("--producers", type=int, default=1)
    args = parser.parse_args(argv)
    if args.record_size <= 0 or (args.rate is not None and args.rate <= 0) or args.producers < 1:
        raise Refused("--record-size, --rate and --producers must be positive")
    return args


def main(argv: list[str]) -> int:
    try:
        args = arguments(argv)
        config = client_config(read_config(args.producer_config), args.bootstrap_servers)
        records = Records.from_file(args.payload_file) if args.payload_file else Records(args.record_size)
        (rdkafka_flat.run if args.num_records is not None else rdkafka_rate.run)(args, config, records)
        return 0
    except Refused as e:
        print(f"rdkafka load generator: {e}", file=sys.stderr)
        return EXIT_ARGS
    except Unreachable as e:
        print(f"rdkafka load generator: {e}", file=sys.stderr)
        return EXIT_CLUSTER
    except OSError as e:
        print(f"rdkafka load generator: {e}", file=sys.stderr)
        return EXIT_ARGS


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
