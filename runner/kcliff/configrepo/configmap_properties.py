"""Kubernetes ConfigMaps holding Kafka .properties text (server.properties, producer.properties,
consumer.properties, or any `*.properties` key), read with the manifest's own line numbers.

Whether a `*.properties` key holds Kafka's settings is decided by its content, never by its name alone
(a game server's ConfigMap has a server.properties too): at least half of its keys, and at least one,
must be keys some Kafka release defines (any scope) or that a Kafka plugin reads. Its scope is the one
(broker, producer, consumer) whose keys it holds most of; a tie goes to the scope its name says
(server/broker, producer, consumer), else to the broker. A `|` block's n-th line is the manifest's
line of the data key plus n; another style of value (a quoted string) is read on the key's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ruamel.yaml.scalarstring import LiteralScalarString

from kcliff import yamlio
from kcliff.configrepo.model import RawEntry, Resource
from kcliff.configrepo.properties import parse_text
from kcliff.configrepo.reading import ResourceReading
from kcliff.configrepo.validate import plugin_reader
from kcliff.errors import InputError
from kcliff.kafka import configs as kafka_configs

SCOPES = ("broker", "producer", "consumer")
NAME_SCOPES = {"server": "broker", "broker": "broker", "producer": "producer", "consumer": "consumer"}
SUFFIX = ".properties"
KAFKA_SHARE = 0.5  # the least share of a text's keys that must be Kafka's for it to be read as Kafka's


def _knows(scope: str, key: str) -> bool:
    return bool(kafka_configs.catalogue().releases_of(scope, key)) or plugin_reader(scope, key) is not None


def kafka_key(key: str) -> bool:
    """Whether some Kafka release defines `key` (any scope), or a Kafka plugin reads it."""
    return bool(kafka_configs.catalogue().scopes_of(key)) or any(plugin_reader(s, key) for s in SCOPES)


@dataclass(frozen=True)
class Verdict:
    """What a `*.properties` text is: Kafka's settings of `scope`, or (scope None) not Kafka's, and why."""

    scope: str | None
    why: str


def classify(name: str, keys: list[str]) -> Verdict:
    """The scope of a properties text named `name` holding `keys`, decided by its content (module doc)."""
    distinct = list(dict.fromkeys(keys))
    if not distinct:
        return Verdict(None, "it holds no keys")
    known = [k for k in distinct if kafka_key(k)]
    if len(known) < KAFKA_SHARE * len(distinct) or not known:
        foreign = [k for k in distinct if k not in known]
        return Verdict(None, f"{len(known)} of its {len(distinct)} keys are Kafka's; {', '.join(foreign[:5])}"
                             f"{', ...' if len(foreign) > 5 else ''} are not")
    counts = {scope: sum(_knows(scope, k) for k in known) for scope in SCOPES}
    best = [scope for scope in SCOPES if counts[scope] == max(counts.values())]
    words = re.split(r"[-_.]", name[: -len(SUFFIX)] if name.endswith(SUFFIX) else name)
    named = next((NAME_SCOPES[w] for w in words if w in NAME_SCOPES and NAME_SCOPES[w] in best), None)
    scope = named or best[0]
    return Verdict(scope, f"{len(known)} of its {len(distinct)} keys are Kafka's, most of them {scope} keys")


def properties_keys(data: Any) -> list[str]:
    """The data keys of a ConfigMap that name .properties files."""
    return [str(k) for k in data if str(k).endswith(SUFFIX)] if isinstance(data, dict) else []


def verdict_of(data: Any, key: str, path: str) -> Verdict:
    """The verdict on one `*.properties` data key of a ConfigMap (text that is not properties: not Kafka's)."""
    value = data.get(key)
    if not isinstance(value, str):
        return Verdict(None, "its value is not text")
    try:
        return classify(key, [k for k, _, _ in parse_text(value, path)])
    except InputError:
        return Verdict(None, "its text is not .properties")


def holds_kafka(doc: Any, path: str) -> bool:
    """Whether a ConfigMap document holds a .properties text of Kafka's."""
    data = doc.get("data") if isinstance(doc, dict) and doc.get("kind") == "ConfigMap" else None
    return any(verdict_of(data, key, path).scope for key in properties_keys(data))


def read_configmap(doc: Any, name: str, out: ResourceReading) -> None:
    """Each Kafka .properties text of a ConfigMap as settings on the manifest's lines; the others noted."""
    data = doc.get("data")
    for key in properties_keys(data):
        line = yamlio.key_line(data, key)
        label = f"ConfigMap {name} {key}"
        value = data[key]
        if not isinstance(value, str):
            out.problem(f"{label}: ConfigMap data values are strings; Kubernetes refuses {type(value).__name__}s",
                        line)
            continue
        verdict = verdict_of(data, key, out.path)
        if verdict.scope is None:
            out.note(line, f"{label}: not Kafka's settings ({verdict.why}); not read")
            continue
        out.note(line, f"{label}: read as {verdict.scope} settings ({verdict.why})")
        out.resources.append(Resource(label, line))
        block = isinstance(value, LiteralScalarString)  # `|`: the text's lines are the manifest's, after the key's
        for prop, raw, at in parse_text(value, out.path):
            out.entries.append(RawEntry(verdict.scope, prop, raw, out.path, line + at if block and line else line,
                                        resource=label))
