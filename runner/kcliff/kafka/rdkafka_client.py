"""What kcliff's librdkafka load generator (rdkafka_loadgen.py) builds on: the client file read as
librdkafka's `key=value` lines, the producer made from it, the records it sends, the compression it
achieved. Like the generator, only the standard library, confluent_kafka and hdrh."""

from __future__ import annotations

import base64
import json
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Keys that say where and how to reach a cluster: the measured cluster's replace them (a service's own
# brokers, credentials and certificates mean nothing to kcliff's cluster). Everything else goes in as written.
REACHING = ("bootstrap.servers", "metadata.broker.list", "security.protocol")
REACHING_PREFIXES = ("sasl.", "ssl.", "ssl_")
DELIVERY_REPORTS = "delivery.report.only.error"
STATS_MS = "1000"  # statistics.interval.ms when the file sets none: the compression ratio comes from them
# Random capital letters as the perf tool sends them, made fast: each random byte mapped onto A-Z.
_LETTERS = bytes(65 + b % 26 for b in range(256))


class Refused(Exception):
    """Bad arguments or a setting librdkafka refuses: exit 2."""


class Unreachable(Exception):
    """The cluster or the topic did not answer: exit 1."""


def read_config(path: Path) -> dict[str, str]:
    """A librdkafka client file's `key=value` lines (`#` comments, blank lines), each value trimmed as
    kcat trims it; the last of a key twice wins, as librdkafka keeps the last."""
    out: dict[str, str] = {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", "!")):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise Refused(f"{path}:{number}: expected key=value, got {line!r}")
        out[key.strip()] = value.strip()
    return out


def reaching(key: str) -> bool:
    """Whether a librdkafka key says how to reach a service's own cluster (replaced by the measured one's)."""
    return key in REACHING or key.startswith(REACHING_PREFIXES)


def client_config(settings: dict[str, str], bootstrap: str) -> dict[str, Any]:
    """What the producer is built with: the file's settings as written, reaching the measured cluster.
    Every record is timed by its delivery report, so a service's delivery.report.only.error=true (reports
    of failures only) is measured as false; confluent-kafka's Python layer takes that one as a bool."""
    kept: dict[str, Any] = {k: v for k, v in settings.items() if not reaching(k)}
    kept.setdefault("statistics.interval.ms", STATS_MS)
    return {**kept, "bootstrap.servers": bootstrap, DELIVERY_REPORTS: False}


@dataclass(frozen=True)
class Records:
    """Each record's key and value: random letters of `size`, or drawn from a payload file's lines
    (the value in base64, or the key and the value in base64 separated by a tab)."""
    size: int
    samples: tuple[tuple[bytes | None, bytes], ...] = ()

    @classmethod
    def from_file(cls, path: Path) -> Records:
        samples = []
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            key, tab, value = line.partition("\t")
            samples.append((base64.b64decode(key), base64.b64decode(value)) if tab else (None, base64.b64decode(key)))
        if not samples:
            raise Refused(f"{path}: no records")
        return cls(round(sum(len(v) for _, v in samples) / len(samples)), tuple(samples))

    def next(self) -> tuple[bytes | None, bytes]:
        if self.samples:
            return random.choice(self.samples)
        return None, os.urandom(self.size).translate(_LETTERS)


class Compression:
    """Uncompressed over compressed bytes of what the producer sent, from librdkafka's statistics: the
    message bytes it transmitted (`txmsg_bytes`) over the bytes it wrote to the brokers (`tx_bytes`, request
    framing included, so an uncompressed run reads a little under 1)."""

    def __init__(self) -> None:
        self.ratio: float | None = None

    def on_stats(self, text: str) -> None:
        stats = json.loads(text)
        messages, wire = stats.get("txmsg_bytes", 0), stats.get("tx_bytes", 0)
        if messages and wire:
            self.ratio = round(messages / wire, 3)


def producer(config: dict[str, Any], compression: Compression) -> Any:
    """A confluent_kafka Producer with `config`; a setting librdkafka refuses is Refused."""
    from confluent_kafka import KafkaException, Producer
    try:
        return Producer({**config, "stats_cb": compression.on_stats})
    except (KafkaException, ValueError, TypeError) as e:
        raise Refused(f"librdkafka refused a setting: {e}") from None


def reach(client: Any, topic: str, timeout_s: float = 20.0) -> int:
    """The topic's partition count, as the producer sees the cluster; Unreachable when it does not answer."""
    from confluent_kafka import KafkaException
    try:
        found = client.list_topics(topic, timeout=timeout_s).topics.get(topic)
    except KafkaException as e:
        raise Unreachable(f"no answer from the cluster: {e}") from None
    if found is None or found.error is not None or not found.partitions:
        raise Unreachable(f"topic {topic!r} not found: {found.error if found else 'absent'}")
    return len(found.partitions)
