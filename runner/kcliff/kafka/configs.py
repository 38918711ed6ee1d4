"""Kafka's own config definitions, per release: every broker, topic, producer and consumer key with its
type, default and validator, as each release's ConfigDef defines them.

The data (data/kafka-configs.json) is extracted from the jars of every release from 3.3.0 on by
scripts/build-kafka-configs.sh (format and how to rebuild: docs/kafka-configs.md); a test re-extracts the
default release and compares. Values are parsed and validated as ConfigDef.parseType and Kafka's
validators do, so a repo is refused exactly where Kafka would refuse it. kcliff's measured settings
(scenario/settings.py) are a layer on top: which of these keys a scenario can carry and how each is applied.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any, Iterable

from kcliff.resources import DATA

SCHEMA = "kcliff.kafka-configs"
VERSION = 1
SCOPES = ("broker", "topic", "producer", "consumer")
_RELEASE = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")
_INTEGER = re.compile(r"^[+-]?\d+$")  # what Java's Integer/Long/Short.parseInt accepts
_BOUNDS = {"SHORT": 2 ** 15, "INT": 2 ** 31, "LONG": 2 ** 63}
_COMMA = re.compile(r"\s*,\s*")  # ConfigDef.COMMA_WITH_WHITESPACE
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class ConfigType(StrEnum):
    """ConfigDef.Type."""

    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"


def release_key(release: str) -> tuple[int, int, int]:
    match = _RELEASE.match(release)
    if not match:
        raise ValueError(f"not a Kafka release number: {release!r}")
    return int(match[1]), int(match[2]), int(match[3])


def is_release(text: str) -> bool:
    return bool(_RELEASE.match(text))


@dataclass(frozen=True)
class Definition:
    """One key as one or more releases define it alike."""

    scope: str
    name: str
    type: ConfigType
    releases: frozenset[str]
    has_default: bool
    default: Any
    validator: Any  # the stored validator document (see docs/kafka-configs.md), None when there is none
    internal: bool = False

    def parse(self, raw: Any) -> tuple[Any, str | None]:
        """(value, None) as Kafka parses `raw`, or (None, why Kafka refuses it)."""
        return parse(self.type, raw)

    def check(self, value: Any) -> str | None:
        """Why Kafka's validator refuses the parsed `value`, or None."""
        return check(self.validator, value)

    def describe_valid(self) -> str:
        what = _TYPE_WORDS[self.type]
        rule = describe(self.validator)
        return f"{what}, {rule}" if rule else what


_TYPE_WORDS = {
    ConfigType.BOOLEAN: "true or false", ConfigType.STRING: "a string", ConfigType.INT: "a 32-bit integer",
    ConfigType.SHORT: "a 16-bit integer", ConfigType.LONG: "a 64-bit integer", ConfigType.DOUBLE: "a number",
    ConfigType.LIST: "a comma-separated list", ConfigType.CLASS: "a class name", ConfigType.PASSWORD: "a password",
}


def parse(kind: ConfigType, raw: Any) -> tuple[Any, str | None]:
    """ConfigDef.parseType: strings are trimmed, booleans read case-insensitively, numbers as Java parses
    them; a YAML scalar of the right type is taken as it is."""
    if kind is ConfigType.BOOLEAN:
        if isinstance(raw, bool):
            return raw, None
        if isinstance(raw, str) and raw.strip().lower() in ("true", "false"):
            return raw.strip().lower() == "true", None
        return None, f"expected true or false, got {raw!r}"
    if kind in (ConfigType.INT, ConfigType.SHORT, ConfigType.LONG):
        value = raw if isinstance(raw, int) and not isinstance(raw, bool) else None
        if isinstance(raw, str) and _INTEGER.match(raw.strip()):
            value = int(raw.strip())
        bound = _BOUNDS[kind]
        if value is None or not -bound <= value < bound:
            return None, f"expected {_TYPE_WORDS[kind]}, got {raw!r}"
        return value, None
    if kind is ConfigType.DOUBLE:
        try:
            number = float(raw.strip()) if isinstance(raw, str) else float(raw)
        except (TypeError, ValueError):
            number = math.nan
        if isinstance(raw, bool) or math.isnan(number):
            return None, f"expected a number, got {raw!r}"
        return number, None
    if kind is ConfigType.LIST:
        if isinstance(raw, list):
            return [str(item).strip() for item in raw], None
        text = _scalar_text(raw).strip()
        return ([] if not text else _COMMA.split(text)), None
    return _scalar_text(raw).strip(), None


def _scalar_text(raw: Any) -> str:
    """A YAML scalar as the string Kafka would receive (Strimzi and Terraform pass strings)."""
    if isinstance(raw, bool):
        return "true" if raw else "false"
    return "" if raw is None else str(raw)


def check(validator: Any, value: Any) -> str | None:
    """Kafka's validator (as stored) applied to a parsed value: why it is refused, or None."""
    if not validator:
        return None
    if "all" in validator:
        return next((p for p in (check(v, value) for v in validator["all"]) if p), None)
    if "range" in validator:
        low, high = validator["range"]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if (low is not None and value < low) or (high is not None and value > high):
                return f"{value} is out of range: expected {describe(validator)}"
        return None
    if "one_of" in validator:
        return _one_of(validator, value)
    if "list_of" in validator:
        return _list_of(validator, value)
    if "non_empty_string" in validator and isinstance(value, str) and not value.strip():
        return "expected a non-empty string"
    if "non_empty_string_without_control_chars" in validator and isinstance(value, str):
        if not value.strip():
            return "expected a non-empty string"
        if _CONTROL.search(value):
            return "expected no control characters"
    return None  # non_null holds for any value read from a file; opaque validators run in Kafka only


def _one_of(validator: dict[str, Any], value: Any) -> str | None:
    if value is None:
        return None
    allowed: list[str] = validator["one_of"]
    text = str(value)
    if validator.get("case_insensitive"):
        ok = text.lower() in {a.lower() for a in allowed}
    else:
        ok = text in allowed
    return None if ok else f"{text!r} is not valid: expected {describe(validator)}"


def _list_of(validator: dict[str, Any], value: Any) -> str | None:
    items = value if isinstance(value, list) else [value]
    if not items and not validator.get("empty_allowed", True):
        return "expected a non-empty list"
    allowed = validator.get("list_of")
    if allowed is not None:
        bad = [item for item in items if item not in allowed]
        if bad:
            return f"{', '.join(map(repr, bad))} not valid: expected a list of {', '.join(allowed)}"
    if validator.get("unique") and len(set(items)) != len(items):
        return "expected no value twice in the list"
    return None


def describe(validator: Any) -> str:
    """What a validator accepts, in words ('' when it says nothing a user can act on)."""
    if not validator:
        return ""
    if "all" in validator:
        return " and ".join(d for d in (describe(v) for v in validator["all"]) if d)
    if "range" in validator:
        low, high = validator["range"]
        if low is not None and high is not None:
            return f"between {low} and {high}"
        return f"at least {low}" if low is not None else (f"at most {high}" if high is not None else "")
    if "one_of" in validator:
        return "one of " + ", ".join(validator["one_of"])
    if "list_of" in validator:
        allowed = validator.get("list_of")
        return f"a list of {', '.join(allowed)}" if allowed else ""
    if "non_empty_string" in validator or "non_empty_string_without_control_chars" in validator:
        return "non-empty"
    return ""


def expand_span(span: str, releases: tuple[str, ...]) -> frozenset[str]:
    """'3.3.0..3.9.2,4.1.0' -> the releases it covers, in the catalogue's release order."""
    found: set[str] = set()
    index = {r: i for i, r in enumerate(releases)}
    for part in span.split(","):
        first, _, last = part.partition("..")
        found.update(releases[index[first]: index[last or first] + 1])
    return frozenset(found)


class Catalogue:
    """Kafka's definitions of every supported release; `lookup` answers for one release."""

    def __init__(self, doc: dict[str, Any]) -> None:
        if doc.get("schema") != SCHEMA or doc.get("version") != VERSION:
            raise ValueError(f"not a {SCHEMA} version {VERSION} document")
        self.releases: tuple[str, ...] = tuple(doc["releases"])
        self._defs: dict[tuple[str, str], list[Definition]] = {}
        for scope in SCOPES:
            for name, variants in doc["scopes"][scope].items():
                self._defs[(scope, name)] = [self._definition(scope, name, v) for v in variants]
        self._synonyms: dict[str, list[tuple[frozenset[str], str]]] = {
            topic: [(expand_span(v["releases"], self.releases), v["broker"]) for v in variants]
            for topic, variants in doc.get("topic_synonyms", {}).items()}
        self._modes: dict[str, list[tuple[frozenset[str], str]]] = {
            name: [(expand_span(v["releases"], self.releases), v["mode"]) for v in variants]
            for name, variants in doc.get("broker_update_modes", {}).items()}

    def _definition(self, scope: str, name: str, variant: dict[str, Any]) -> Definition:
        return Definition(scope, name, ConfigType(variant["type"]), expand_span(variant["releases"], self.releases),
                          "default" in variant, variant.get("default"), variant.get("validator"),
                          bool(variant.get("internal")))

    @property
    def newest(self) -> str:
        return self.releases[-1]

    def lookup(self, scope: str, name: str, release: str) -> Definition | None:
        return next((d for d in self._defs.get((scope, name), ()) if release in d.releases), None)

    def releases_of(self, scope: str, name: str) -> list[str]:
        """The releases that define this key, oldest first (empty: no release does)."""
        found = {r for d in self._defs.get((scope, name), ()) for r in d.releases}
        return [r for r in self.releases if r in found]

    def names(self, scope: str, release: str | None = None) -> list[str]:
        return sorted(n for (s, n), defs in self._defs.items()
                      if s == scope and (release is None or any(release in d.releases for d in defs)))

    def scopes_of(self, name: str) -> list[str]:
        return [s for s in SCOPES if (s, name) in self._defs]

    def broker_synonym(self, topic_key: str, release: str) -> str | None:
        """The broker key a topic key defaults from (flush.messages -> log.flush.interval.messages)."""
        return next((b for covered, b in self._synonyms.get(topic_key, ()) if release in covered), None)

    def topic_synonym(self, broker_key: str, release: str) -> str | None:
        return next((t for t, variants in self._synonyms.items() for covered, b in variants
                     if b == broker_key and release in covered), None)

    def update_mode(self, broker_key: str, release: str) -> str | None:
        """read-only, per-broker or cluster-wide, where the data has it."""
        return next((m for covered, m in self._modes.get(broker_key, ()) if release in covered), None)

    def suggest(self, name: str, scope: str) -> str | None:
        """The closest key of any release, this scope's first, then the others'."""
        for scopes in ((scope,), SCOPES):
            pool = sorted({n for (s, n) in self._defs if s in scopes})
            close = difflib.get_close_matches(name, pool, n=1, cutoff=0.75)
            if close:
                return close[0]
        return None

    def release_for(self, version: str) -> str:
        """The release whose definitions a repo of `version` is read with: that release, else the newest
        one before it, else the oldest there is."""
        if version in self.releases:
            return version
        wanted = release_key(version)
        older = [r for r in self.releases if release_key(r) <= wanted]
        return older[-1] if older else self.releases[0]


@cache
def catalogue() -> Catalogue:
    """The shipped catalogue, read once (about 20 ms)."""
    with open(DATA / "kafka-configs.json", encoding="utf-8") as handle:
        return Catalogue(json.load(handle))


def span_text(releases: Iterable[str]) -> str:
    """'3.3.0-3.9.2' for a run of releases, as messages name them."""
    found = list(releases)
    if not found:
        return "no release"
    return found[0] if len(found) == 1 else f"{found[0]}-{found[-1]}"
