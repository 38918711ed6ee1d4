"""Static cliff rules (scenarios/cliffs.yaml) and their evaluation over a config repo.

A rule is data: the settings it reads, a condition on each, a severity, the mechanism in one
sentence, a fix, and its evidence (the canary that measures it on kcliff's rig). Evaluation takes
the effective value of each setting in a context (one broker file x one producer file x one topic),
so "producer compression != topic compression" can be checked the way Kafka sees it.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from kcliff import resources, yamlio
from kcliff.configrepo import ConfigRepo, Entry, consumption
from kcliff.configrepo.validate import DURABILITY
from kcliff.errors import InputError, Problems
from kcliff.kafka import configs as kafka_configs
from kcliff.kafka.dist import DEFAULT_VERSION
from kcliff.lint import librdkafka_rules
from kcliff.lint.severity import Severity
from kcliff.scenario import settings

RULES_SCHEMA = "kcliff.cliffs"
RULES_VERSION = 1
RULE_KEYS = ("id", "title", "severity", "when", "mechanism", "fix", "evidence")

_NUMERIC = {"less_than": operator.lt, "at_most": operator.le, "greater_than": operator.gt, "at_least": operator.ge}
OPERATORS = ("equals", "not_equals", "in", "not_in", *_NUMERIC, "differs_from")

# A topic config without its own value takes the broker's (Kafka's topic config synonyms, per release:
# kafka_configs). Clauses opt in with `inherit: true`; without it a topic clause sees only the topic's own
# value, so a broker-wide flush=1 is reported once, by the broker rule, not again by the topic rule.
# The replication factor is a topic's creation field, not a config; its broker default is kcliff's to name.
FIELD_FALLBACK = {"replication.factor": "default.replication.factor"}
# A broker key Kafka reads, when it is not set, as another key's value (KafkaConfig.logFlushIntervalMs);
# counted on a broker: the flusher at 1 ms with log.flush.interval.ms unset fsyncs every partition
# (benchmarks/bench_flush_mechanism.py).
BROKER_FALLBACK = {"log.flush.interval.ms": "log.flush.scheduler.interval.ms"}
# Spellings Kafka treats as the same value.
_SAME = {("compression.type", "none"): "uncompressed", ("acks", "-1"): "all"}


def broker_default_of(topic_name: str, release: str) -> str | None:
    """The broker key a topic setting falls back to at this release."""
    return FIELD_FALLBACK.get(topic_name) or kafka_configs.catalogue().broker_synonym(topic_name, release)


def _inherits(topic_name: str) -> bool:
    catalogue = kafka_configs.catalogue()
    return topic_name in FIELD_FALLBACK or any(catalogue.broker_synonym(topic_name, r) for r in catalogue.releases)


def default_rules_path() -> Path:
    return resources.shipped("scenarios") / "cliffs.yaml"


@dataclass(frozen=True)
class Clause:
    scope: str
    name: str
    ops: tuple[tuple[str, Any], ...]  # (operator, operand); differs_from's operand is (scope, name)
    inherit: bool = False  # a topic without its own value takes the broker's, as Kafka does

    def ref(self) -> str:
        return f"{self.scope}/{self.name}"


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    severity: Severity
    clauses: tuple[Clause, ...]
    mechanism: str
    fix: str
    canary: str | None
    study: str
    line: int | None = None

    def evidence(self, ratios: dict[str, float]) -> str:
        """Its canary, as measured in `ratios` (canary id -> throughput ratio to the reference), and its study."""
        if self.canary:
            measured = ratios.get(self.canary)
            canary = f"canary {self.canary}" + ("" if measured is None else f" measured {measured:.2f}x the reference")
            return f"{canary}; {self.study}" if self.study else canary
        return self.study


@dataclass(frozen=True)
class Match:
    rule: Rule
    entry: Entry  # where the match is reported: the first clause value written in the repo
    values: tuple[tuple[str, Any, bool], ...]  # (scope/name, effective value, written in the repo)
    topic: str | None

    @property
    def path(self) -> str:
        return self.entry.path

    @property
    def line(self) -> int | None:
        return self.entry.line

    @property
    def named_topic(self) -> str | None:
        """The topic the match is about, when its rule reads a topic setting first (a broker-wide value
        is matched in every topic's context, but is not about any one of them)."""
        return self.topic if self.topic and self.rule.clauses[0].scope == "topic" else None

    def key(self) -> tuple[Any, ...]:
        """What the match is about, independent of where the repo is checked out (base vs head)."""
        return (self.rule.id, self.entry.scope, self.entry.name, self.entry.topic, self.values)

    def to_dict(self) -> dict[str, Any]:
        """The shape verdict.judge() and the JSON verdict take."""
        return {"rule": self.rule.id, "severity": self.rule.severity, "title": self.rule.title, "path": self.path,
                "line": self.line, "topic": self.topic, "condition": self.condition(), "fix": self.rule.fix,
                "canary": self.rule.canary}

    def describe(self, ratios: dict[str, float]) -> str:
        """What lint and check say about the match: the values, the mechanism, the fix, the evidence."""
        where = f" (topic {self.named_topic})" if self.named_topic else ""
        return (f"{self.condition()}{where}: {self.rule.mechanism} Fix: {self.rule.fix} "
                f"Evidence: {self.rule.evidence(ratios)}")

    def condition(self) -> str:
        """e.g. 'producer linger.ms=0, producer batch.size=16384 (default)'."""
        parts = [f"{ref.replace('/', ' ', 1)}={settings.as_kafka_value(value)}" + ("" if written else " (default)")
                 for ref, value, written in self.values]
        return ", ".join(dict.fromkeys(parts))


def _known(scope: str, name: str) -> bool:
    """A setting a rule may read: any release's Kafka key, a field of kcliff's topic definitions, or how the
    consumer's service consumes (consuming/commit, configrepo/consumption.py)."""
    if scope == consumption.SCOPE:
        return name in consumption.DEFAULTS
    return (settings.lookup(scope, name) is not None or name in DURABILITY.get(scope, {})
            or bool(kafka_configs.catalogue().releases_of(scope, name)))


def _parse_ref(text: Any, path: str, node: Any, key: str) -> tuple[str, str]:
    if not isinstance(text, str) or "/" not in text:
        raise InputError(f"'{key}' must be scope/name (e.g. broker/num.io.threads), got {text!r}", path,
                         yamlio.key_line(node, key))
    scope, name = text.split("/", 1)
    if scope in librdkafka_rules.SCOPES:
        try:
            return scope, librdkafka_rules.canonical(scope, name)
        except librdkafka_rules.RuleProblem as problem:
            raise InputError(str(problem), path, yamlio.key_line(node, key)) from None
    if scope not in (*settings.ALL_SCOPES, consumption.SCOPE) or not _known(scope, name):
        close = kafka_configs.catalogue().suggest(name, scope) if scope in settings.ALL_SCOPES else None
        every = (*settings.ALL_SCOPES, consumption.SCOPE, *librdkafka_rules.SCOPES)
        hint = (f"did you mean '{scope}/{close}'?" if close else "no Kafka release defines it") \
            if scope in settings.ALL_SCOPES else f"scopes: {', '.join(every)}"
        raise InputError(f"unknown setting {text!r} in rule: {hint}", path, yamlio.key_line(node, key))
    return scope, name


def _parse_clause(raw: Any, path: str, parent: Any, index: int) -> Clause:
    if not isinstance(raw, dict) or "setting" not in raw:
        raise InputError("each 'when' clause is a mapping with 'setting' and one or more operators", path,
                         yamlio.key_line(parent, index))
    scope, name = _parse_ref(raw["setting"], path, raw, "setting")
    ops: list[tuple[str, Any]] = []
    inherit = raw.get("inherit", False)
    if not isinstance(inherit, bool) or (inherit and (scope != "topic" or not _inherits(name))):
        raise InputError("'inherit: true' applies to topic settings with a broker default (Kafka's topic config "
                         "synonyms, e.g. flush.messages, segment.ms)", path, yamlio.key_line(raw, "inherit"))
    for op, operand in raw.items():
        if op in ("setting", "inherit"):
            continue
        line = yamlio.key_line(raw, op)
        if op not in OPERATORS:
            raise InputError(f"unknown operator '{op}': expected one of {', '.join(OPERATORS)}", path, line)
        if op in _NUMERIC and (isinstance(operand, bool) or not isinstance(operand, (int, float))):
            raise InputError(f"'{op}' takes a number, got {operand!r}", path, line)
        if op in ("in", "not_in"):
            if not isinstance(operand, list) or not operand:
                raise InputError(f"'{op}' takes a non-empty list", path, line)
            operand = tuple(operand)
        if op == "differs_from":
            operand = _parse_ref(operand, path, raw, op)
        elif scope in librdkafka_rules.SCOPES:  # read as librdkafka reads the property's values
            try:
                operand = librdkafka_rules.operand(scope, name, op, operand)
            except librdkafka_rules.RuleProblem as problem:
                raise InputError(str(problem), path, line) from None
        ops.append((op, operand))
    if not ops:
        raise InputError(f"clause on {scope}/{name} has no operator: expected one of {', '.join(OPERATORS)}", path,
                         yamlio.node_line(raw))
    return Clause(scope, name, tuple(ops), inherit)


def _parse_rule(raw: Any, path: str, parent: Any, index: int) -> Rule:
    line = yamlio.key_line(parent, index)
    if not isinstance(raw, dict):
        raise InputError("each rule is a mapping with " + ", ".join(RULE_KEYS), path, line)
    for key in raw:
        if key not in RULE_KEYS:
            raise InputError(f"unknown rule key '{key}': expected one of {', '.join(RULE_KEYS)}", path,
                             yamlio.key_line(raw, key))
    for key in ("id", "title", "mechanism", "fix"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise InputError(f"rule needs '{key}' (text)", path, yamlio.key_line(raw, key) or line)
    if raw.get("severity") not in list(Severity):
        raise InputError(f"severity must be one of {', '.join(Severity)}", path, yamlio.key_line(raw, "severity") or line)
    when = raw.get("when")
    if not isinstance(when, list) or not when:
        raise InputError("'when' must be a non-empty list of clauses", path, yamlio.key_line(raw, "when") or line)
    evidence = raw.get("evidence") or {}
    if not isinstance(evidence, dict) or any(k not in ("canary", "study") for k in evidence):
        raise InputError("'evidence' takes canary (a canary id or null) and study (text)", path,
                         yamlio.key_line(raw, "evidence") or line)
    clauses = tuple(_parse_clause(c, path, when, i) for i, c in enumerate(when))
    if len({scope in librdkafka_rules.SCOPES for scope in _scopes(clauses)}) > 1:
        raise InputError("a rule reads librdkafka settings or Kafka's, not both: a librdkafka client file is "
                         f"checked on its own (librdkafka scopes: {', '.join(librdkafka_rules.SCOPES)})", path,
                         yamlio.key_line(raw, "when") or line)
    return Rule(raw["id"], raw["title"].strip(), Severity(raw["severity"]), clauses, " ".join(raw["mechanism"].split()),
                " ".join(raw["fix"].split()), evidence.get("canary"), str(evidence.get("study") or ""), line)


def _scopes(clauses: tuple[Clause, ...]) -> set[str]:
    """Every scope the clauses read, differs_from's included."""
    return {c.scope for c in clauses} | {operand[0] for c in clauses for op, operand in c.ops if op == "differs_from"}


def reads_librdkafka(rule: Rule) -> bool:
    """A rule of librdkafka client files (its clauses name librdkafka scopes only, load_rules sees to it)."""
    return rule.clauses[0].scope in librdkafka_rules.SCOPES


def load_rules(path: str | Path | None = None) -> list[Rule]:
    """Read and validate a rules file (default: scenarios/cliffs.yaml beside the package)."""
    path = Path(path) if path else default_rules_path()
    data = yamlio.load(path)
    where = str(path)
    if not isinstance(data, dict) or data.get("schema") != RULES_SCHEMA:
        raise InputError(f"not a cliff rules file (expected schema: {RULES_SCHEMA})", where, 1)
    if data.get("version") != RULES_VERSION:
        raise InputError(f"rules version {data.get('version')!r} is not one this kcliff reads ({RULES_VERSION})", where,
                         yamlio.key_line(data, "version"))
    items = data.get("rules")
    if not isinstance(items, list) or not items:
        raise InputError("'rules' must be a non-empty list", where, yamlio.key_line(data, "rules") or 1)
    found = Problems()  # every bad rule of the file, reported together
    rules: list[Rule] = []
    for i, raw in enumerate(items):
        with found.catch():
            rules.append(_parse_rule(raw, where, items, i))
    seen: set[str] = set()
    for rule in rules:
        if rule.id in seen:
            found.add(InputError(f"duplicate rule id '{rule.id}'", where, rule.line))
        seen.add(rule.id)
    found.raise_all()
    return rules


# --- evaluation -----------------------------------------------------------------------------------

class Lookup(Protocol):
    """A setting's value in one context, and the entry that set it (None: Kafka's default)."""
    def __call__(self, scope: str, name: str, inherit: bool = False) -> tuple[Any, Entry | None]: ...


def _context(release: str, *files: list[Entry]) -> Lookup:
    explicit = {(e.scope, e.name): e for entries in files for e in entries}

    def lookup(scope: str, name: str, inherit: bool = False) -> tuple[Any, Entry | None]:
        entry = explicit.get((scope, name))
        if entry is not None:
            return entry.value, entry
        broker = broker_default_of(name, release) if inherit and scope == "topic" else None
        if broker:
            return lookup("broker", broker)
        if scope == "broker" and name in BROKER_FALLBACK:
            return lookup("broker", BROKER_FALLBACK[name])
        return default_value(scope, name, release), None

    return lookup


def default_value(scope: str, name: str, release: str) -> Any:
    """Kafka's default at this release (typed as entries are), else kcliff's for its topic fields and
    how a consumer that says nothing consumes."""
    if scope == consumption.SCOPE:
        return consumption.DEFAULTS.get(name)
    definition = kafka_configs.catalogue().lookup(scope, name, release)
    if definition is not None:
        return definition.default
    known = settings.lookup(scope, name)
    return known.default if known else None


def _same(name: str, value: Any) -> object:
    return _SAME.get((name, value), value)


def _holds(op: str, operand: Any, value: Any, name: str, lookup: Lookup) -> bool:
    if value is None:
        return False
    if op in _NUMERIC:
        return not isinstance(value, bool) and isinstance(value, (int, float)) and _NUMERIC[op](value, operand)
    if op == "equals":
        return _same(name, value) == _same(name, operand)
    if op == "not_equals":
        return _same(name, value) != _same(name, operand)
    if op == "in":
        return _same(name, value) in {_same(name, o) for o in operand}
    if op == "not_in":
        return _same(name, value) not in {_same(name, o) for o in operand}
    other_value, _ = lookup(*operand)
    return other_value is not None and _same(name, value) != _same(operand[1], other_value)


def match_rule(rule: Rule, lookup: Lookup, topic: str | None) -> Match | None:
    values: list[tuple[str, Any, bool]] = []
    anchor: Entry | None = None
    for clause in rule.clauses:
        value, entry = lookup(clause.scope, clause.name, clause.inherit)
        if not all(_holds(op, operand, value, clause.name, lookup) for op, operand in clause.ops):
            return None
        name = librdkafka_rules.written_name(entry, clause.scope, clause.name)  # as the file wrote it
        values.append((f"{clause.scope}/{name}", value, entry is not None))
        anchor = anchor or entry
        for op, operand in clause.ops:
            if op == "differs_from":
                other_value, other_entry = lookup(*operand)
                values.append((f"{operand[0]}/{operand[1]}", other_value, other_entry is not None))
                anchor = anchor or other_entry
    if anchor is None:  # every value is Kafka's default: nothing in the repo to point at
        return None
    return Match(rule, anchor, tuple(values), topic)


def evaluate(repo: ConfigRepo, rules: list[Rule]) -> list[Match]:
    """Every rule match in the repo, once per (rule, file, line), in file and line order.

    Contexts are every broker config (a broker file, or a Strimzi Kafka resource) x producer file x
    consumer file x topic, so a client file is checked against each topic it could use; files of a
    role the repo lacks contribute Kafka's defaults. A librdkafka client file is its own context, at
    librdkafka's defaults (lint/librdkafka_rules.py)."""
    found: dict[tuple[str, str, int | None], Match] = {}
    kafka_rules = [r for r in rules if not reads_librdkafka(r)]
    for client in librdkafka_rules.client_files(repo.entries):
        for rule in (r for r in rules if reads_librdkafka(r)):
            _add(found, match_rule(rule, client.value, None))
    files = [(path, None) for path in repo.files_with_role("broker")]
    brokers: list[tuple[str | None, str | None]] = list(dict.fromkeys(
        files + [(e.path, e.resource) for e in repo.in_scope("broker")])) or [(None, None)]
    producer_files: list[str | None] = list(repo.files_with_role("producer")) or [None]
    consumer_files: list[str | None] = list(repo.files_with_role("consumer")) or [None]
    # a topic is its file's: environments' files may each define a topic of the same name
    topics: list[tuple[str, str] | None] = list(dict.fromkeys((t.path, t.name) for t in repo.topics)) or [None]
    release = repo.release.definitions if repo.release else kafka_configs.catalogue().release_for(DEFAULT_VERSION)
    consuming = {cfile: consumption.of_consumer(repo.entries, cfile) for cfile in consumer_files}  # once a file
    for broker, pfile, cfile, topic in itertools.product(brokers, producer_files, consumer_files, topics):
        lookup = _context(release, [e for e in repo.in_scope("broker") if (e.path, e.resource) == broker],
                          [e for e in repo.in_scope("producer") if e.path == pfile],
                          [e for e in repo.in_scope("consumer") if e.path == cfile],
                          consuming[cfile],
                          [e for e in repo.in_scope("topic") if topic is not None and (e.path, e.topic) == topic])
        for rule in kafka_rules:
            _add(found, match_rule(rule, lookup, topic[1] if topic else None))
    return sorted(found.values(), key=lambda m: (m.path, m.line or 0, m.rule.id))


def _add(found: dict[tuple[str, str, int | None], Match], match: Match | None) -> None:
    if match is not None:
        found.setdefault((match.rule.id, match.path, match.line), match)


def introduced(base: list[Match], head: list[Match]) -> list[Match]:
    """Head's matches that base does not have: what a pull request adds (a cliff already on main is
    reported by lint, but is not this change's fault)."""
    before = {m.key() for m in base}
    return [m for m in head if m.key() not in before]
