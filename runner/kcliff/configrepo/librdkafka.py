"""librdkafka client files: `key=value` lines with `#` comments, as services keep them for librdkafka
(kcat's -F file, Apache Metron's fastcapa.conf, a librdkafka.config beside a C, Go or Python service).

A file is one when kcliff.yaml gives it a role of ROLES, or when its text sets a key only librdkafka has
(queue.buffering.max.ms, batch.num.messages, compression.codec, socket.keepalive.enable, ...: a dotted
librdkafka property no Kafka release defines for any scope), whatever its name. Its client is the
producer or consumer its name says, else the one its client-only keys say, else both.

Each key is checked with librdkafka's own definitions (kafka/librdkafka_configs.py) of the newest
release kcliff knows: an unknown key is bad input naming the closest property (or librdkafka's name for a
Java client key), a value librdkafka refuses is bad input saying what is valid. A key of other releases
only, a deprecated one and one the other client reads are warnings, as librdkafka warns of them.
A librdkafka producer file is measured by `kcliff check` with librdkafka (configrepo/rdkafka_producer.py).
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

from kcliff.configrepo.model import Entry, EntryKind, Note, NoteLevel, RawEntry, ReadResult
from kcliff.configrepo.properties import parse_text, read_text
from kcliff.configrepo.reading import sniffed
from kcliff.errors import InputError
from kcliff.kafka import configs as kafka_configs
from kcliff.kafka import dist as kafka_dist
from kcliff.kafka import librdkafka_configs as rdk

FORMAT = "librdkafka"
ROLES = ("librdkafka", "librdkafka-producer", "librdkafka-consumer")  # the role is the entries' scope
CLIENT_OF = {"librdkafka": "both", "librdkafka-producer": "producer", "librdkafka-consumer": "consumer"}
SUFFIXES = (".conf", ".config", ".cfg", ".properties")  # the files whose text is looked at
# Keys a language binding takes out of the configuration before librdkafka sees it: (prefix, who reads it).
BINDINGS = (("go.", "confluent-kafka-go"), ("dotnet.", "confluent-kafka-dotnet"),
            ("schema.registry.", "a Schema Registry serializer"))
_KEY = re.compile(r"^[ \t]*([A-Za-z0-9_.-]+)[ \t]*[=:]", re.MULTILINE)


@cache
def distinctive() -> frozenset[str]:
    """Dotted librdkafka property names no Kafka release defines in any scope: a file setting one is a
    librdkafka client's (an undotted one such as `debug` says too little about the file)."""
    kafka = kafka_configs.catalogue()
    java = {n for scope in kafka_configs.SCOPES for n in kafka.names(scope)}
    return frozenset(n for n in rdk.catalogue().names() if "." in n and n not in java)


def _client_by_keys(keys: set[str]) -> str:
    cat = rdk.catalogue()
    clients = {p.client for k in keys if (p := cat.lookup(k, cat.newest)) is not None}
    if "producer" in clients and "consumer" not in clients:
        return "producer"
    if "consumer" in clients and "producer" not in clients:
        return "consumer"
    return "both"


def file_role(path: Path) -> str | None:
    """The librdkafka role of a file whose text sets a key only librdkafka has, else None. A regular
    expression over the text first: a repo's other files are not parsed."""
    if path.suffix.lower() not in SUFFIXES:
        return None
    text = sniffed(path)
    if text is None:
        return None
    keys = set(_KEY.findall(text))
    if not keys & distinctive():
        return None
    words = set(re.split(r"[-_.]", path.name.lower()))
    client = "producer" if "producer" in words else "consumer" if "consumer" in words else _client_by_keys(keys)
    return "librdkafka" if client == "both" else f"librdkafka-{client}"


class LibrdkafkaReader:
    """Reader for librdkafka client files: the role names the scope (the client)."""

    format = FORMAT
    roles = ROLES

    def read(self, path: Path, role: str) -> ReadResult:
        text = read_text(path)
        # kcat and librdkafka's own examples trim each line, so a value's trailing blanks are not part of it
        entries = [RawEntry(role, key, value.strip(), str(path), line) for key, value, line in parse_text(text, str(path))]
        release = rdk.catalogue().newest
        return ReadResult(entries=entries, notes=[Note(str(path), None, f"a librdkafka client file ({CLIENT_OF[role]}): "
                                                                        f"checked with librdkafka {release}'s definitions, "
                                                                        "measured with librdkafka when it is the producer "
                                                                        "`kcliff check` measures")])


def _unknown(raw: RawEntry, release: str) -> str:
    """What to say of a key librdkafka does not know: the librdkafka name of a Java key, or the closest."""
    cat = rdk.catalogue()
    ours = next((name for name, java in rdk.JAVA_NAMES.items() if java == raw.name), None)
    if ours is not None:
        return f"'{raw.name}' is the Java client's name; librdkafka's is '{ours}'"
    close = cat.suggest(raw.name)
    if close:
        return f"did you mean '{close}'?"
    return f"no librdkafka release from {cat.releases[0]} to {cat.newest} defines it"


def validate_entry(raw: RawEntry, release: str | None = None) -> Entry | Note:
    """The typed Entry for a librdkafka key (unmeasured), a warning Note for what librdkafka would ignore;
    InputError for what librdkafka refuses. Read at `release` (default: the newest kcliff knows)."""
    cat = rdk.catalogue()
    release = release or cat.newest
    client = CLIENT_OF[raw.scope]
    prop = cat.lookup(raw.name, release)
    binding = next((who for prefix, who in BINDINGS if raw.name.startswith(prefix)), None)
    if prop is None and binding:
        return Note(raw.path, raw.line, f"librdkafka key '{raw.name}' is read by {binding}, not by librdkafka; not checked")
    if prop is None:
        others = cat.releases_of(raw.name)
        if others:
            return Note(raw.path, raw.line, f"librdkafka key '{raw.name}' is defined by librdkafka "
                                            f"{kafka_configs.span_text(others)}, not by {release}, which this file is "
                                            "read at: librdkafka refuses a property it does not know", NoteLevel.WARNING)
        raise InputError(f"unknown librdkafka property '{raw.name}': {_unknown(raw, release)} "
                         f"(librdkafka {release})", raw.path, raw.line)
    value, problem = prop.parse(raw.raw)
    if problem:
        raise InputError(f"librdkafka property '{raw.name}': {problem} (librdkafka {release})", raw.path, raw.line)
    if not prop.for_client(client):
        return Note(raw.path, raw.line, f"librdkafka key '{raw.name}' is a {prop.client} property: librdkafka ignores "
                                        f"it in a {client}, with a warning", NoteLevel.WARNING)
    if prop.deprecated:
        return Note(raw.path, raw.line, f"librdkafka key '{raw.name}' is deprecated in librdkafka {release} "
                                        "(its CONFIGURATION.md says what replaces it)", NoteLevel.WARNING)
    return Entry(raw.scope, raw.name, value, raw.path, raw.line, EntryKind.UNMEASURED, raw.topic, raw.resource)


def unmeasured_note(entry: Entry) -> Note:
    """What lint --verbose says of a checked librdkafka key: not measured, and its Java name if it has one."""
    cat = rdk.catalogue()
    prop = cat.lookup(entry.name, cat.newest)
    java = rdk.java_name(prop) if prop else None
    said = [f"the Java client's '{java}'"] if java and java != entry.name else []
    differs = rdk.java_default(prop, kafka_configs.catalogue().release_for(kafka_dist.DEFAULT_VERSION)) if prop else None
    if prop and differs:
        said.append(f"librdkafka's default {prop.default}, the Java client's {_java_text(differs[1])} at Kafka "
                    f"{kafka_dist.DEFAULT_VERSION}")
    same = f" ({'; '.join(said)})" if said else ""
    return Note(entry.path, entry.line, f"librdkafka key '{entry.name}'{same}: checked (measured with librdkafka "
                                        "when its file is the producer `kcliff check` measures)")


def _java_text(value: object) -> str:
    """A Java default as Kafka's docs write it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(map(str, value)) or "empty"
    return str(value) if value != "" else "empty"


def unmeasured_changes(base: list[Entry], head: list[Entry], base_root: str, head_root: str,
                       measured: frozenset[str] = frozenset()) -> list[str]:
    """What a head changes in librdkafka client files `kcliff check` does not measure (all but the measured
    producer's, whose paths are in `measured`): said in its notes, so a pass is not read as librdkafka's
    verdict. Files are paired by their path in the repo."""
    def keyed(entries: list[Entry], root: str) -> dict[tuple[str, str], Entry]:
        return {(os.path.relpath(e.path, root), e.name): e for e in entries if e.scope in ROLES and e.path not in measured}

    before, after = keyed(base, base_root), keyed(head, head_root)
    changed = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old is None or new is None or old.value != new.value:
            at = f"{new.path}:{new.line}" if new else key[0]
            said = f"{old.value if old else '(unset)'} -> {new.value if new else '(unset)'}"
            changed.append(f"librdkafka {key[1]} {said} at {at}")
    if not changed:
        return []
    return [f"head changes librdkafka settings kcliff does not measure: {'; '.join(changed)}"]
