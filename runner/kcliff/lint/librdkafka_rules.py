"""What a cliff rule reads in a librdkafka client file (issue #44; docs/librdkafka.md): its settings in
librdkafka's terms, at librdkafka's defaults.

A rule's clause names a librdkafka scope and a librdkafka property: `librdkafka-producer/batch.num.messages`
reads the producer side of a file (role librdkafka-producer, or librdkafka: a kcat file is both clients),
`librdkafka-consumer/...` the consumer side, `librdkafka/...` any librdkafka file. A property is known by
any of its names (`linger.ms` is `queue.buffering.max.ms`), and a file's value is found under whichever name
it was written, the last one written winning, as rd_kafka_conf_set keeps the last. An unset property takes
its default from the librdkafka catalogue at the release files are read at, not the Java client's
(queue.buffering.max.ms 5, batch.size 1000000, max.in.flight 1000000).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kcliff.configrepo import Entry
from kcliff.configrepo.librdkafka import CLIENT_OF, ROLES
from kcliff.kafka import librdkafka_configs as rdk

SCOPES = ROLES  # a clause's scope is the librdkafka client it reads, as a file's role names its client
_NUMERIC_TYPES = ("integer", "float")
_VALUE_OPERATORS = ("equals", "not_equals", "in", "not_in")


class RuleProblem(ValueError):
    """A rule that cannot read librdkafka as written; cliffs.py adds the rules file and line."""


def _release() -> str:
    # Files are read at the newest release kcliff knows (configrepo/librdkafka.py), so rules are too.
    return rdk.catalogue().newest


def _reads(scope: str, role: str) -> bool:
    """Whether a clause of `scope` reads a file of `role`."""
    return "both" in (CLIENT_OF[scope], CLIENT_OF[role]) or scope == role


def property_of(scope: str, name: str) -> rdk.Property:
    """The property a clause names, by any of its names; RuleProblem when librdkafka has none, or when
    the clause's client does not read it."""
    cat = rdk.catalogue()
    prop = cat.lookup(name, _release())
    if prop is None or prop.type == "api":
        close = cat.suggest(name)
        hint = f"did you mean '{scope}/{close}'?" if close else f"librdkafka {_release()} defines no such property"
        raise RuleProblem(f"unknown librdkafka setting '{scope}/{name}' in rule: {hint}")
    if not prop.for_client(CLIENT_OF[scope]):
        raise RuleProblem(f"'{name}' is a librdkafka {prop.client} property: a {scope} rule cannot read it "
                          f"(scopes: {', '.join(SCOPES)})")
    return prop


def canonical(scope: str, name: str) -> str:
    """The name a clause keeps: librdkafka's own, whichever alias the rule wrote."""
    return property_of(scope, name).canonical


def operand(scope: str, name: str, op: str, value: Any) -> Any:
    """A clause's operand read as librdkafka reads the property's values (`all` is -1 for the acks), so a rule
    compares like with like; RuleProblem for what the property cannot hold."""
    prop = property_of(scope, name)
    if op in _VALUE_OPERATORS:
        values = value if op in ("in", "not_in") else (value,)
        parsed = tuple(_parse(prop, v) for v in values)
        return parsed if op in ("in", "not_in") else parsed[0]
    if op != "differs_from" and prop.type not in _NUMERIC_TYPES:
        raise RuleProblem(f"'{op}' compares numbers; librdkafka's '{prop.name}' is {prop.describe_valid()}")
    return value


def _parse(prop: rdk.Property, value: Any) -> Any:
    parsed, problem = prop.parse(value)
    if problem:
        raise RuleProblem(f"librdkafka's '{prop.name}' {problem}")
    return parsed


def default(scope: str, name: str) -> Any:
    """librdkafka's default, typed as a file's entries are (None: it has none)."""
    prop = property_of(scope, name)
    return _parse(prop, prop.default) if prop.default is not None else None


def key(prop: rdk.Property) -> tuple[str, str]:
    # a global and a topic property may share a name (compression.codec): the scope keeps them apart
    return prop.scope, prop.canonical


@dataclass(frozen=True)
class ClientFile:
    """One librdkafka client file as the rules see it: its role and its entries under librdkafka's names."""

    role: str
    path: str
    written: dict[tuple[str, str], Entry]

    def value(self, scope: str, name: str, inherit: bool = False) -> tuple[Any, Entry | None]:
        """The effective value of a setting and the entry that set it (None: librdkafka's default);
        (None, None) for a scope that does not read this file. A cliffs.Lookup (`inherit` is for topics)."""
        if scope not in SCOPES or not _reads(scope, self.role):
            return None, None
        entry = self.written.get(key(property_of(scope, name)))
        return (entry.value, entry) if entry is not None else (default(scope, name), None)


def client_files(entries: list[Entry]) -> list[ClientFile]:
    """Every librdkafka client file among a repo's entries, in path order."""
    cat, release = rdk.catalogue(), _release()
    files: dict[tuple[str, str], dict[tuple[str, str], Entry]] = {}
    for entry in entries:
        prop = cat.lookup(entry.name, release) if entry.scope in ROLES else None
        if prop is not None:  # entries in line order: a later name of the same property wins
            files.setdefault((entry.path, entry.scope), {})[key(prop)] = entry
    return [ClientFile(role, path, written) for (path, role), written in sorted(files.items())]


def written_name(entry: Entry | None, scope: str, name: str) -> str:
    """How a match names a setting: as the file wrote it (`linger.ms`), else librdkafka's name."""
    return entry.name if entry is not None and entry.scope in ROLES and scope in SCOPES else name
