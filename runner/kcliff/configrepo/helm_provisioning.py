"""Bitnami's kafka chart's provisioning Job (chart 20 to 32 alike): each of `provisioning.topics` is one
`kafka-topics.sh --create --if-not-exists` with

    --replication-factor {{ $topic.replicationFactor | default $.Values.provisioning.replicationFactor }}
    --partitions {{ $topic.partitions | default $.Values.provisioning.numPartitions }}
    --config {{ $name }}={{ $value }}      for each of $topic.config

so a topic's partition count and replication factor fall back to provisioning.numPartitions and
.replicationFactor (the chart's defaults are 1 and 1), Go's `default` taking 0 as unset, and each
config value is printed by Go's %v (a number of a million or more in exponent form, which
kafka-topics refuses). A topic listed twice is created once, the first time (--if-not-exists).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kcliff.configrepo.helm_values import Values, exponent_problem, go_text, literal, printed_as_exponent, setting
from kcliff.configrepo.model import Note, NoteLevel, RawEntry, Resource, TopicDecl, require_topic_name
from kcliff.errors import InputError

TOPIC_KEYS = ("name", "partitions", "replicationFactor", "config")
NOT_LITERAL = object()  # a count written with templating or a substitution: noted, never guessed
CHART_DEFAULT = 1  # provisioning.numPartitions and .replicationFactor in the chart's values.yaml, 20 to 32


def _count(node: Values, key: str, what: str) -> Any:
    """A partition count or replication factor as the Job prints it; None when Go's `default` skips it
    (unset, 0, empty)."""
    raw = node.get(key)
    if raw in (None, 0, "", False):
        return None
    if not literal(raw, what, node.line(key), node.out):
        return NOT_LITERAL
    printed = printed_as_exponent(raw)
    if printed is not None:
        raise InputError(exponent_problem(what, raw, printed), node.out.path, node.line(key))
    return raw if isinstance(raw, int) else go_text(raw)


def _fallback(topic: Values, provisioning: Values, key: str, default_key: str) -> tuple[Any, Values | None, str]:
    """The value the Job uses and where it is written: the topic's own, else provisioning's default
    (None: neither here, so the chart's default)."""
    own = _count(topic, key, topic.name(key))
    if own is not None:
        return own, topic, key
    shared = _count(provisioning, default_key, provisioning.name(default_key))
    return shared, (provisioning if shared is not None else None), default_key


def _configs(topic: Values, name: str, label: str) -> None:
    config = topic.child("config")
    if config is None:
        if topic.get("config") not in (None, {}):
            topic.problem("config", f"{topic.name('config')} must be a mapping of topic configs")
        return
    for key, raw in config.node.items():
        key, line, what = str(key), config.line(key), config.name(str(key))
        if key in ("partitions", "replicas", "replication.factor"):
            config.problem(key, f"{what}: '{key}' is not a topic config kafka-topics accepts; set "
                                f"{topic.name('partitions')} or {topic.name('replicationFactor')}")
            continue
        printed = printed_as_exponent(raw)
        if printed is not None:
            config.problem(key, exponent_problem(what, raw, printed))
            continue
        setting(config, "topic", key, go_text(raw), line, what, label, name)


def _topic(topic: Values, provisioning: Values, seen: dict[str, int | None]) -> None:
    out, line = topic.out, topic.line("name")
    raw_name = topic.get("name")
    if not literal(raw_name, topic.name("name"), line, out):
        return
    name = require_topic_name(raw_name, out.path, line)
    if name in seen:
        topic.note("name", f"topic {name} is listed again (first at line {seen[name]}): the Job's --if-not-exists "
                           "keeps the first; not read")
        return
    seen[name] = line
    label = f"{topic.label}: topic {name}"
    for key in topic.node:
        if key not in TOPIC_KEYS:
            out.notes.append(Note(out.path, topic.line(key), f"{topic.name(str(key))}: not a key the chart reads of a "
                                                            f"topic ({', '.join(TOPIC_KEYS)}); Helm ignores it",
                                  NoteLevel.WARNING))
    partitions, where, key = _fallback(topic, provisioning, "partitions", "numPartitions")
    problem = None
    if where is None:
        problem = (f"{topic.name('partitions')} and {provisioning.name('numPartitions')} are not set here, so the "
                   f"chart's default ({CHART_DEFAULT}) applies unless another values file sets it; set "
                   f"{topic.name('partitions')} to measure this topic")
    elif partitions is NOT_LITERAL:
        problem = f"{where.name(key)} is not a literal, so kcliff does not know the partition count to measure"
    else:
        out.entries.append(RawEntry("topic", "partitions", partitions, out.path, where.line(key), name, label))
    replicas, where, key = _fallback(topic, provisioning, "replicationFactor", "replicationFactor")
    if where is None:
        out.notes.append(Note(out.path, line, f"topic {name}: neither {topic.name('replicationFactor')} nor "
                                              f"{provisioning.name('replicationFactor')} is set here, so the chart "
                                              f"creates it with replication factor {CHART_DEFAULT} (its default) unless "
                                              "another values file sets provisioning.replicationFactor",
                              NoteLevel.WARNING))
    elif replicas is not NOT_LITERAL:
        out.entries.append(RawEntry("topic", "replication.factor", replicas, out.path, where.line(key), name, label))
    out.topics.append(TopicDecl(name, out.path, line, problem))
    out.resources.append(Resource(label, topic.line("config") if "config" in topic.node else line))
    _configs(topic, name, label)


def read_topics(values: Values) -> None:
    """The topics the provisioning Job creates, unless `provisioning.enabled` is false."""
    provisioning = values.child("provisioning")
    topics = provisioning.get("topics") if provisioning is not None else None
    if provisioning is None or not topics:
        return
    if not isinstance(topics, list):
        provisioning.problem("topics", f"{provisioning.name('topics')} must be a list of topics")
        return
    enabled = provisioning.get("enabled")
    if enabled is False or str(enabled).lower() == "false":
        provisioning.note("enabled", f"{provisioning.name('enabled')} is false: the chart creates none of "
                                     f"{provisioning.name('topics')}; not read")
        return
    if enabled is None:
        provisioning.note("topics", f"{provisioning.name('enabled')} is not set here (the chart's default is false): "
                                    "these topics are created only where another values file turns it on; kcliff "
                                    "reads them")
    listed = replace(provisioning, node=topics, at=provisioning.name("topics"))
    seen: dict[str, int | None] = {}
    for index, item in enumerate(topics):
        if not isinstance(item, dict):
            listed.problem(index, f"{listed.name('')}[{index}] must be a mapping with name, partitions, "
                                  "replicationFactor and config")
            continue
        topic = replace(listed, node=item, at=f"{listed.at}[{index}].")
        try:
            _topic(topic, provisioning, seen)
        except InputError as exc:  # this topic stops here; the others are still read
            values.out.problems.append(exc)
