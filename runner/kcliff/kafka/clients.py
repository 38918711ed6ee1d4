"""The client library a scenario's producer is measured with: Kafka's own Java client (the perf tool and
kcliff's Java load generator) or librdkafka (kcliff's librdkafka load generator, kafka/rdkafka_loadgen.py).
A librdkafka producer's settings keep librdkafka's names and go to librdkafka as written."""

from __future__ import annotations

from enum import StrEnum


class Client(StrEnum):
    JAVA = "java"
    LIBRDKAFKA = "librdkafka"
