"""Spring Boot application files: the Kafka producer and consumer a Spring service configures.

Read by name: application.properties, application.yml / .yaml and their profile variants
(application-prod.yml). Only `spring.kafka.*` is read (Spring Boot's KafkaProperties, 2.7 to 4.x):

    spring.kafka.producer.<property>             Spring's own names, mapped to Kafka's: batch-size -> batch.size,
    spring.kafka.consumer.<property>             fetch-max-wait -> fetch.max.wait.ms, ... (PRODUCER, CONSUMER)
    spring.kafka.producer.properties.<kafka key> passed to the producer as written
    spring.kafka.consumer.properties.<kafka key> passed to the consumer as written
    spring.kafka.properties.<kafka key>          Spring passes it to every client it builds; kcliff reads it for
                                                 the producer, the consumer or both, by which of them Kafka's
                                                 catalogue knows the key (both when neither does, so each says so)

Spring's relaxed binding is followed (batchSize, batch_size and batch-size name one property; a map
key may be written [max.in.flight.requests.per.connection]). Spring's DataSize values ("64KB": 1024-
based; a bare number is bytes) and Duration values ("500ms", "5s", "PT5S"; a bare number is
milliseconds) become the bytes and milliseconds Kafka takes. A `${...}` placeholder is resolved when
the service starts: noted on its line, never guessed. Spring Kafka's own sections (listener, template,
admin, streams, retry, ssl, security, jaas) configure no Kafka client setting kcliff reads: noted. A
property Spring Boot does not have under spring.kafka.producer or .consumer is bad input, because
Spring ignores it and the setting never reaches Kafka (`linger-ms` is not one: Kafka's linger.ms goes
under `properties`). In a multi-document application.yml, profile documents are read in file order
over the ones before them, as Spring applies them with every profile active (a note says so); a
profile kept in its own application-<profile>.yml is its own file.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from kcliff import yamlio
from kcliff.configrepo.model import Note, RawEntry, ReadResult
from kcliff.configrepo import spring_listener
from kcliff.configrepo.properties import parse_text, read_text
from kcliff.errors import InputError, raise_all
from kcliff.kafka import configs as kafka_configs

FILE_NAME = re.compile(r"application(?:-[^/\\]+)?\.(?:properties|ya?ml)")
CLIENTS = ("producer", "consumer")
_SEGMENT = re.compile(r"\[[^\]]*\]|[^.\[\]]+")
_PLACEHOLDER = re.compile(r"\$\{[^}]*\}")

# Spring's DataSize (org.springframework.util.unit): an integer and a case-sensitive unit, 1024-based.
DATA_UNITS = {"": 1, "B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}
_DATA_SIZE = re.compile(r"([+-]?\d+)([a-zA-Z]{0,2})")
# Spring Boot's DurationStyle: SIMPLE (an integer and an optional unit, any case; milliseconds by
# default), else ISO-8601 as java.time.Duration.parse reads it (days to seconds, no years or months).
DURATION_NANOS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9,
                  "d": 86400 * 10**9}
_SIMPLE_DURATION = re.compile(r"([+-]?\d+)([a-zA-Z]{0,2})")
_ISO_STYLE = re.compile(r"[+-]?[pP].*")
_JAVA_DURATION = re.compile(r"([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?"
                            r"(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?", re.IGNORECASE)


def is_application_file(path: Path) -> bool:
    return FILE_NAME.fullmatch(path.name) is not None


def data_size(raw: Any) -> int:
    """A Spring DataSize in bytes ("64KB" -> 65536, 512 -> 512); ValueError when Spring would refuse it."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    match = _DATA_SIZE.fullmatch(re.sub(r"\s", "", str(raw)))
    if match is None or match[2] not in DATA_UNITS:
        raise ValueError(f"{raw!r} is not a Spring data size: a whole number with an optional unit B, KB, MB, GB or "
                         "TB (upper case, 1024-based), e.g. 64KB")
    return int(match[1]) * DATA_UNITS[match[2]]


def duration_ms(raw: Any) -> int:
    """A Spring Duration in milliseconds ("5s" -> 5000, "PT0.5S" -> 500, 250 -> 250), truncated as
    Duration.toMillis does; ValueError when Spring would refuse it."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    text = str(raw).strip()
    simple = _SIMPLE_DURATION.fullmatch(text)
    if simple is not None:
        unit = simple[2].lower() or "ms"
        if unit not in DURATION_NANOS:
            raise ValueError(f"{raw!r}: unknown duration unit '{simple[2]}' (ns, us, ms, s, m, h or d)")
        return int(simple[1]) * DURATION_NANOS[unit] // 10**6
    iso = _JAVA_DURATION.fullmatch(text) if _ISO_STYLE.fullmatch(text) else None
    if iso is None or iso[3] is not None and iso[3].upper() == "T" or not any(iso[i] for i in (2, 4, 5, 6)):
        raise ValueError(f"{raw!r} is not a Spring duration: e.g. 500ms, 5s, 1m, or ISO-8601 such as PT0.5S")
    days, hours, minutes, seconds = (int(iso[i] or 0) for i in (2, 4, 5, 6))
    fraction = int((iso[7] or "").ljust(9, "0"))
    nanos = (((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 10**9
    nanos += -fraction if (iso[6] or "").startswith("-") else fraction
    return (-nanos if iso[1] == "-" else nanos) // 10**6


def isolation_level(raw: Any) -> str:
    """Spring's IsolationLevel enum, bound leniently (READ_COMMITTED, read-committed, readCommitted)."""
    letters = re.sub(r"[^a-z0-9]", "", str(raw).lower())
    levels = {"readcommitted": "read_committed", "readuncommitted": "read_uncommitted"}
    if letters not in levels:
        raise ValueError(f"{raw!r} is not an isolation level: read-committed or read-uncommitted")
    return levels[letters]


def kafka_text(value: Any) -> str:
    """A YAML or .properties value as the string Kafka receives (lists as Kafka's comma-separated lists)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(kafka_text(v) for v in value)
    return str(value)


@dataclass(frozen=True)
class ClientProperty:
    """One of Spring Boot's own producer or consumer properties: the Kafka key it sets and how its
    value becomes Kafka's."""

    kafka: str
    convert: Callable[[Any], Any] = kafka_text


PRODUCER = {
    "acks": ClientProperty("acks"), "batch-size": ClientProperty("batch.size", data_size),
    "bootstrap-servers": ClientProperty("bootstrap.servers"),
    "buffer-memory": ClientProperty("buffer.memory", data_size), "client-id": ClientProperty("client.id"),
    "compression-type": ClientProperty("compression.type"), "key-serializer": ClientProperty("key.serializer"),
    "value-serializer": ClientProperty("value.serializer"), "retries": ClientProperty("retries"),
    "transaction-id-prefix": ClientProperty("transactional.id"),
}
CONSUMER = {
    "auto-commit-interval": ClientProperty("auto.commit.interval.ms", duration_ms),
    "auto-offset-reset": ClientProperty("auto.offset.reset"), "bootstrap-servers": ClientProperty("bootstrap.servers"),
    "client-id": ClientProperty("client.id"), "enable-auto-commit": ClientProperty("enable.auto.commit"),
    "fetch-max-wait": ClientProperty("fetch.max.wait.ms", duration_ms),
    "fetch-min-size": ClientProperty("fetch.min.bytes", data_size), "group-id": ClientProperty("group.id"),
    "heartbeat-interval": ClientProperty("heartbeat.interval.ms", duration_ms),
    "isolation-level": ClientProperty("isolation.level", isolation_level),
    "key-deserializer": ClientProperty("key.deserializer"), "value-deserializer": ClientProperty("value.deserializer"),
    "max-poll-records": ClientProperty("max.poll.records"),
    "max-poll-interval": ClientProperty("max.poll.interval.ms", duration_ms),
}
TABLES = {"producer": PRODUCER, "consumer": CONSUMER}
# Spring Kafka's own sections: what each configures instead of a Kafka client setting kcliff reads.
SECTIONS = {
    "listener": "the listener containers (threads, polling, acknowledgement)",
    "template": "KafkaTemplate", "admin": "the KafkaAdmin client that creates topics",
    "streams": "Kafka Streams", "retry": "Spring's retry topics",
    "ssl": "TLS", "security": "the security protocol", "jaas": "SASL's JAAS login",
}
SHARED = {"bootstrap-servers": "where every client connects", "client-id": "every client's id"}


def canonical(segment: str) -> str:
    """Spring's relaxed binding: batchSize, batch_size, BATCH-SIZE and batch-size are one property."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", segment).replace("_", "-").lower()


def segments(key: str) -> list[str]:
    """A property name's parts, a [bracketed] map key (dots and all) kept as one."""
    return _SEGMENT.findall(key)


def map_key(parts: list[str]) -> str:
    """A `properties` map key as Spring passes it on: the parts after `properties`, brackets removed."""
    return ".".join(p[1:-1] if p.startswith("[") else p for p in parts)


def client_scopes(key: str) -> tuple[str, ...]:
    """The clients a spring.kafka.properties key is read for: those whose Kafka catalogue knows it
    (a key only a consumer has does nothing in the producer), both when neither does."""
    known = tuple(s for s in CLIENTS if _kafka_key(s, key))
    return known or CLIENTS


def _kafka_key(client: str, key: str) -> bool:
    """A key some Kafka release defines for this client."""
    return bool(kafka_configs.catalogue().releases_of(client, key))


def _flatten(node: Any, prefix: str, line: int | None) -> Iterator[tuple[str, Any, int | None]]:
    """A YAML document as Spring sees it: dotted names (a [key] kept whole), each leaf with its line."""
    if isinstance(node, dict):
        for key, value in node.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            yield from _flatten(value, name, yamlio.key_line(node, key) or line)
    else:
        yield prefix, node, line


@dataclass
class _Reading:
    path: str
    entries: list[RawEntry] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)
    read_any: bool = False
    listener: dict[str, tuple[Any, int | None]] = field(default_factory=dict)  # spring_listener.READ's, as written

    def note(self, line: int | None, message: str) -> None:
        self.notes.append(Note(self.path, line, message))


def _unknown(key: str, client: str, prop: str) -> str:
    guess = prop.replace("-", ".")
    if _kafka_key(client, guess):
        hint = f"Kafka's {guess} goes under spring.kafka.{client}.properties.{guess}"
    else:
        close = difflib.get_close_matches(prop, TABLES[client], n=1, cutoff=0.6)
        hint = (f"did you mean spring.kafka.{client}.{close[0]}?" if close
                else f"Kafka's own {client} keys go under spring.kafka.{client}.properties.<key>")
    return f"'{key}': Spring Boot has no such {client} property and ignores it, so it never reaches Kafka; {hint}"


def _client_setting(scopes: tuple[str, ...], kafka_key: str, value: Any, key: str, line: int | None, out: _Reading,
                    convert: Callable[[Any], Any] = kafka_text) -> None:
    if kafka_key.startswith("spring."):
        out.note(line, f"'{key}' configures Spring Kafka's (de)serializers, not the Kafka client; not read")
        return
    if any(isinstance(v, str) and _PLACEHOLDER.search(v) for v in (value if isinstance(value, list) else [value])):
        out.note(line, f"'{key}' is {value}: a placeholder resolved when the service starts, not a literal; kcliff "
                       "does not guess it")
        return
    try:
        converted = convert(value)
    except ValueError as exc:
        out.problems.append(InputError(f"'{key}': {exc}", out.path, line))
        return
    out.entries += [RawEntry(scope, kafka_key, kafka_text(converted), out.path, line) for scope in scopes]


def _property(key: str, value: Any, line: int | None, out: _Reading) -> None:
    """One property of the file: read when it is one of spring.kafka's, else left alone."""
    parts = segments(key)
    if [canonical(p) for p in parts[:2]] != ["spring", "kafka"] or value is None:
        if [canonical(p) for p in parts[:3]] in (["spring", "config", "activate"], ["spring", "profiles"]) \
                and canonical(parts[-1]) in ("on-profile", "profiles"):
            out.note(line, f"a document for profile {kafka_text(value)}: kcliff reads it over the documents before "
                           "it, as Spring does with that profile active")
        return
    out.read_any = True
    rest = parts[2:]
    head = canonical(rest[0]) if rest else ""
    if head in CLIENTS and len(rest) > 1:
        prop = canonical(rest[1])
        if prop == "properties" and len(rest) > 2:
            _client_setting((head,), map_key(rest[2:]), value, key, line, out)
        elif prop in ("ssl", "security"):
            out.note(line, f"'{key}': Spring Boot's {SECTIONS[prop]} settings for the {head}; not read")
        elif prop in TABLES[head]:
            known = TABLES[head][prop]
            _client_setting((head,), known.kafka, value, key, line, out, known.convert)
        else:
            out.problems.append(InputError(_unknown(key, head, prop), out.path, line))
    elif head == "properties" and len(rest) > 1:
        kafka_key = map_key(rest[1:])
        _client_setting(client_scopes(kafka_key), kafka_key, value, key, line, out)
    elif head == "listener" and len(rest) == 2 and \
            spring_listener.listener_property(canonical(rest[1]), value, key, line, out.path, out.listener, out.problems):
        return
    elif head in SECTIONS:
        out.note(line, f"'{key}' configures {SECTIONS[head]}, not a Kafka producer or consumer setting kcliff reads")
    elif head in SHARED:
        out.note(line, f"'{key}': {SHARED[head]}; not a setting kcliff measures")
    else:
        out.note(line, f"'{key}' is not a Spring Boot Kafka property kcliff knows (Spring Boot ignores keys it "
                       "does not know); not read")


def _properties_file(path: Path, out: _Reading) -> None:
    for key, value, line in parse_text(read_text(path), str(path)):
        _property(key, value, line, out)


def _yaml_file(path: Path, out: _Reading) -> None:
    for doc in yamlio.load_all(path):
        if not isinstance(doc, dict):
            out.problems.append(InputError("expected a mapping of Spring properties", str(path), yamlio.node_line(doc)))
            continue
        for key, value, line in _flatten(doc, "", yamlio.node_line(doc)):
            _property(key, value, line, out)


class SpringBootReader:
    format = "spring-boot"
    roles = ("spring-boot",)

    def read(self, path: Path, role: str) -> ReadResult:
        out = _Reading(str(path))
        (_properties_file if path.suffix == ".properties" else _yaml_file)(path, out)
        auto = [e.raw for e in out.entries if e.scope == "consumer" and e.name == "enable.auto.commit"]
        consumes = bool(out.listener) or any(e.scope == "consumer" for e in out.entries)
        said, notes = spring_listener.consuming_entries(out.path, out.listener, auto[-1] if auto else None, consumes)
        out.entries += said
        out.notes += notes
        raise_all(out.problems)
        if not out.read_any:
            out.note(None, "no spring.kafka properties: this application configures no Kafka client here")
        return ReadResult(out.entries, notes=out.notes)
