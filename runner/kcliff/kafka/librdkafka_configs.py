"""librdkafka's own configuration properties, per release: every global and topic property with the client
that reads it, its type, range or allowed values, default and aliases, as the library itself prints them.

The data (data/librdkafka-configs.json) is read out of the librdkafka each confluent-kafka wheel bundles
(kafka/librdkafka_dump.py, scripts/build-librdkafka-configs.py; docs/librdkafka.md); a test re-reads the
release installed with kcliff and compares. Values are checked as rd_kafka_conf_set checks them, a little
stricter where librdkafka reads a value only in part (strtol takes "100ms" as 100): a file that writes
more than the library reads is told so. JAVA_NAMES says which Java client key means the same.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from kcliff.kafka import configs as kafka_configs
from kcliff.kafka.configs import expand_span, release_key
from kcliff.resources import DATA

SCHEMA = "kcliff.librdkafka-configs"
VERSION = 1
SCOPES = ("global", "topic")  # rd_kafka_conf_set tries a global property first, then a topic one
TOPIC_PREFIX = "topic."  # rd_kafka_conf_set also takes a topic property as "topic.<name>"
_INTEGER = re.compile(r"^[+-]?\d+$")
_BOOLEANS = {"true": True, "t": True, "1": True, "false": False, "f": False, "0": False}  # case-insensitive
# Integer properties that also take a word (librdkafka's s2i table on an integer property).
INTEGER_WORDS: dict[str, dict[str, int]] = {"request.required.acks": {"all": -1}}

# The Java client key that means the same as a librdkafka property (its canonical name), only where the
# semantics truly match; the defaults may still differ (java_default tells). Not mapped on purpose:
# queue.buffering.max.kbytes (the producer queue in KB; Java's buffer.memory is bytes of record buffers
# and blocks instead of failing), batch.num.messages (Java has no count limit), partitioner and
# partition.assignment.strategy (librdkafka's own names, not Java classes), compression.level (Java has
# one level key per codec).
JAVA_NAMES: dict[str, str] = {
    # librdkafka's own aliases, which are the Java names
    "metadata.broker.list": "bootstrap.servers",
    "queue.buffering.max.ms": "linger.ms",  # both 5 ms from Kafka 4.0 (Java's was 0 before)
    "message.send.max.retries": "retries",
    "compression.codec": "compression.type",  # the same codecs; Java adds none of its own
    "request.required.acks": "acks",  # -1 is all
    "message.timeout.ms": "delivery.timeout.ms",  # librdkafka 300000, Java 120000
    "fetch.message.max.bytes": "max.partition.fetch.bytes",
    "sasl.mechanisms": "sasl.mechanism",  # one mechanism despite the plural
    # the same name and meaning in both clients
    "batch.size": "batch.size",  # bytes of one batch: librdkafka 1000000, Java 16384
    "max.in.flight.requests.per.connection": "max.in.flight.requests.per.connection",  # 1000000 vs 5
    "enable.idempotence": "enable.idempotence",  # librdkafka false, Java true from 3.0
    "retry.backoff.ms": "retry.backoff.ms",
    "retry.backoff.max.ms": "retry.backoff.max.ms",
    "transactional.id": "transactional.id",
    "transaction.timeout.ms": "transaction.timeout.ms",
    "group.id": "group.id",
    "group.instance.id": "group.instance.id",
    "group.protocol": "group.protocol",
    "session.timeout.ms": "session.timeout.ms",
    "heartbeat.interval.ms": "heartbeat.interval.ms",
    "max.poll.interval.ms": "max.poll.interval.ms",
    "enable.auto.commit": "enable.auto.commit",
    "auto.commit.interval.ms": "auto.commit.interval.ms",
    "auto.offset.reset": "auto.offset.reset",  # librdkafka also takes smallest/beginning/largest/end/error
    "fetch.min.bytes": "fetch.min.bytes",
    "fetch.max.bytes": "fetch.max.bytes",
    "isolation.level": "isolation.level",  # librdkafka read_committed, Java read_uncommitted
    "check.crcs": "check.crcs",  # librdkafka false, Java true
    "client.id": "client.id",
    "client.rack": "client.rack",
    "client.dns.lookup": "client.dns.lookup",
    "metadata.max.age.ms": "metadata.max.age.ms",  # librdkafka 900000, Java 300000
    "reconnect.backoff.ms": "reconnect.backoff.ms",
    "reconnect.backoff.max.ms": "reconnect.backoff.max.ms",
    "connections.max.idle.ms": "connections.max.idle.ms",  # librdkafka 0 (never), Java 540000
    "socket.connection.setup.timeout.ms": "socket.connection.setup.timeout.ms",
    "security.protocol": "security.protocol",  # librdkafka lower case, Java upper; either is taken
    "enable.metrics.push": "enable.metrics.push",
    # different names, the same meaning
    "fetch.wait.max.ms": "fetch.max.wait.ms",
    "socket.send.buffer.bytes": "send.buffer.bytes",  # librdkafka 0 (the system's), Java 131072
    "socket.receive.buffer.bytes": "receive.buffer.bytes",  # librdkafka 0 (the system's), Java 32768/65536
}
CLIENTS = ("producer", "consumer", "both")


@dataclass(frozen=True)
class Property:
    """One property as one or more releases define it alike."""

    scope: str  # global | topic
    name: str
    client: str  # producer | consumer | both
    type: str  # integer | float | boolean | string | enum | flags | pattern-list | api
    releases: frozenset[str]
    default: str | None  # as librdkafka prints it; None: no default
    range: tuple[float, float] | None = None
    values: tuple[str, ...] | None = None  # an enum's or CSV flags' allowed values
    alias_of: str | None = None
    deprecated: bool = False
    importance: str = "low"

    @property
    def canonical(self) -> str:
        return self.alias_of or self.name

    def for_client(self, client: str) -> bool:
        return self.client == "both" or client == "both" or self.client == client

    def allowed(self) -> tuple[str, ...] | None:
        """An enum's or CSV flags' values (builtin.features prints none: its default lists them)."""
        if self.values is not None:
            return self.values
        if self.type == "flags" and self.default:
            return tuple(v.strip() for v in self.default.split(","))
        return None

    def parse(self, raw: Any) -> tuple[Any, str | None]:
        """(value, None) as librdkafka reads `raw`, or (None, why it refuses it)."""
        text = ("true" if raw else "false") if isinstance(raw, bool) else ("" if raw is None else str(raw).strip())
        if self.type == "api":
            return None, "is set through librdkafka's API (a callback or pointer), not in a configuration file"
        if self.type in ("string", "pattern-list"):
            return text, None
        if not text:
            return None, f"cannot be empty: expected {self.describe_valid()}"
        if self.type == "boolean":
            if text.lower() in _BOOLEANS:
                return _BOOLEANS[text.lower()], None
            return None, f"expected {self.describe_valid()}, got {text!r}"
        if self.type in ("integer", "float"):
            return self._number(text)
        allowed = {v.lower(): v for v in self.allowed() or ()}
        items = [i.strip() for i in text.split(",") if i.strip()] if self.type == "flags" else [text]
        bad = [i for i in items if allowed and i.lower() not in allowed]
        if bad or not items:
            return None, f"{', '.join(map(repr, bad or [text]))} not valid: expected {self.describe_valid()}"
        values = [allowed.get(i.lower(), i) for i in items]
        return (values if self.type == "flags" else values[0]), None

    def _number(self, text: str) -> tuple[Any, str | None]:
        value: float | None = INTEGER_WORDS.get(self.canonical, {}).get(text.lower())
        if value is None and self.type == "integer" and _INTEGER.match(text):
            value = int(text)
        if value is None and self.type == "float":
            try:
                value = float(text)
            except ValueError:
                value = None
            value = None if value is None or not math.isfinite(value) else value
            value = int(value) if value is not None and value.is_integer() else value  # 200, as written
        if value is None:
            return None, f"expected {self.describe_valid()}, got {text!r}"
        if self.range and not self.range[0] <= value <= self.range[1]:
            return None, f"{text} is out of range: expected {self.describe_valid()}"
        return value, None

    def describe_valid(self) -> str:
        words = {"integer": "an integer", "float": "a number", "boolean": "true or false", "enum": "one of",
                 "flags": "a comma-separated list of", "string": "a string", "pattern-list": "a list of regexes"}
        what = words.get(self.type, self.type)
        if self.range:
            low, high = (int(b) if float(b).is_integer() else b for b in self.range)
            what += f" from {low} to {high}"
        if self.type in ("enum", "flags"):
            what += " " + ", ".join(self.allowed() or ("any value",))
        words_too = INTEGER_WORDS.get(self.canonical)
        return what + (f" (or {', '.join(words_too)})" if words_too else "")


class Catalogue:
    """librdkafka's properties of every catalogued release; `lookup` answers for one release."""

    def __init__(self, doc: dict[str, Any]) -> None:
        if doc.get("schema") != SCHEMA or doc.get("version") != VERSION:
            raise ValueError(f"not a {SCHEMA} version {VERSION} document")
        self.releases: tuple[str, ...] = tuple(doc["releases"])
        self._props: dict[tuple[str, str], list[Property]] = {}
        for scope in SCOPES:
            for name, variants in doc["scopes"][scope].items():
                self._props[(scope, name)] = [self._property(scope, name, v) for v in variants]

    def _property(self, scope: str, name: str, v: dict[str, Any]) -> Property:
        bounds = v.get("range")
        return Property(scope, name, v["client"], v["type"], expand_span(v["releases"], self.releases), v.get("default"),
                        (bounds[0], bounds[1]) if bounds else None, tuple(v["values"]) if "values" in v else None,
                        v.get("alias_of"), bool(v.get("deprecated")), v.get("importance", "low"))

    @property
    def newest(self) -> str:
        return self.releases[-1]

    def lookup(self, name: str, release: str) -> Property | None:
        """The property a file's key sets at `release`, as rd_kafka_conf_set finds it: a global one, else a
        topic one, else a topic one written as "topic.<name>"."""
        candidates = [("global", name), ("topic", name)]
        if name.startswith(TOPIC_PREFIX):
            candidates.append(("topic", name[len(TOPIC_PREFIX):]))
        for key in candidates:
            found = next((p for p in self._props.get(key, ()) if release in p.releases), None)
            if found:
                return found
        return None

    def written_name(self, prop: Property, release: str) -> str:
        """The key a file writes to set `prop`: its name, or "topic.<name>" for a topic property whose name
        a global property of the release also has (compression.codec)."""
        return prop.name if self.lookup(prop.name, release) == prop else TOPIC_PREFIX + prop.name

    def aliases(self, prop: Property, release: str) -> list[str]:
        """The other names librdkafka takes for `prop` at `release` (its "Alias for" entries), sorted."""
        return sorted(p.name for p in self.properties(release)
                      if p.scope == prop.scope and p.canonical == prop.canonical and p.name != prop.name)

    def properties(self, release: str) -> list[Property]:
        """Every property the release defines, global ones first, each scope sorted by name."""
        return [p for key in sorted(self._props) for p in self._props[key] if release in p.releases]

    def releases_of(self, name: str) -> list[str]:
        """The releases that define this key (empty: none does)."""
        found = {r for r in self.releases if self.lookup(name, r)}
        return [r for r in self.releases if r in found]

    def suggest(self, name: str) -> str | None:
        """The closest property name of any release."""
        close = difflib.get_close_matches(name, sorted({n for _, n in self._props}), n=1, cutoff=0.75)
        return close[0] if close else None

    def names(self) -> frozenset[str]:
        return frozenset(n for _, n in self._props)

    def release_for(self, version: str) -> str:
        """The release a file of librdkafka `version` is read with: that one, else the newest before it,
        else the oldest there is (as kafka/configs.py does for Kafka)."""
        if version in self.releases:
            return version
        older = [r for r in self.releases if release_key(r) <= release_key(version)]
        return older[-1] if older else self.releases[0]


def java_name(prop: Property) -> str | None:
    """The Java client's key that means the same, where there is one (JAVA_NAMES)."""
    return JAVA_NAMES.get(prop.canonical)


# librdkafka's words for what Java calls latest and earliest (auto.offset.reset)
_SAME_WORDS = {"largest": "latest", "end": "latest", "smallest": "earliest", "beginning": "earliest"}


def _same_default(ours: str | None, theirs: Any) -> bool:
    ours, theirs = (None if v in ("", None) else v for v in (ours, theirs))  # unset either way
    if ours is None or theirs is None:
        return ours is None and theirs is None
    ours = _SAME_WORDS.get(ours.lower(), ours)
    if isinstance(theirs, bool):
        return ours.lower() == str(theirs).lower()
    if isinstance(theirs, (int, float)):
        try:
            return float(ours) == float(theirs)
        except ValueError:
            return False
    if isinstance(theirs, list):
        theirs = ",".join(theirs)
    return ours.strip().lower() in (str(theirs).strip().lower(), "-1" if str(theirs).lower() == "all" else "")


def java_default(prop: Property, kafka_release: str) -> tuple[str, Any] | None:
    """(the Java key, its default at `kafka_release`) when the Java client's default differs from
    librdkafka's; None when they agree, or when no Java key means the same (JAVA_NAMES)."""
    java = java_name(prop)
    if java is None:
        return None
    scopes = {"producer": ("producer",), "consumer": ("consumer",)}.get(prop.client, ("producer", "consumer"))
    kafka = kafka_configs.catalogue()
    definition = next((d for s in scopes if (d := kafka.lookup(s, java, kafka_release)) is not None), None)
    if definition is None or not definition.has_default or _same_default(prop.default, definition.default):
        return None
    return java, definition.default


@cache
def catalogue() -> Catalogue:
    """The shipped catalogue, read once."""
    with open(DATA / "librdkafka-configs.json", encoding="utf-8") as handle:
        return Catalogue(json.load(handle))
