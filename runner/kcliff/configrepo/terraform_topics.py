"""The topic resources of Terraform's three Kafka providers: where each writes the topic's name,
partition count and replication factor (SHAPES), its `config` map (Mongey's kafka, Confluent) or
Aiven's snake_case `config` block, each as the topic settings the provider hands Kafka."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from kcliff.configrepo.cfk import confluent_server_note
from kcliff.configrepo.model import RawEntry, Resource, TopicDecl, require_topic_name
from kcliff.configrepo.reading import ResourceReading
from kcliff.configrepo.terraform_hcl import Expr, ResourceBlock, expr, line_of, literal_text, map_elements, not_literal

TOPIC_TYPES = ("kafka_topic", "confluent_kafka_topic", "aiven_kafka_topic")

# Aiven provider 4.x, aiven_kafka_topic's config block: its snake_case arguments -> Kafka's topic configs.
AIVEN_CONFIG = {
    "cleanup_policy": "cleanup.policy", "compression_type": "compression.type",
    "delete_retention_ms": "delete.retention.ms", "file_delete_delay_ms": "file.delete.delay.ms",
    "flush_messages": "flush.messages", "flush_ms": "flush.ms", "index_interval_bytes": "index.interval.bytes",
    "local_retention_bytes": "local.retention.bytes", "local_retention_ms": "local.retention.ms",
    "max_compaction_lag_ms": "max.compaction.lag.ms", "max_message_bytes": "max.message.bytes",
    "message_downconversion_enable": "message.downconversion.enable",
    "message_format_version": "message.format.version",
    "message_timestamp_difference_max_ms": "message.timestamp.difference.max.ms",
    "message_timestamp_type": "message.timestamp.type", "min_cleanable_dirty_ratio": "min.cleanable.dirty.ratio",
    "min_compaction_lag_ms": "min.compaction.lag.ms", "min_insync_replicas": "min.insync.replicas",
    "preallocate": "preallocate", "remote_storage_enable": "remote.storage.enable",
    "retention_bytes": "retention.bytes", "retention_ms": "retention.ms", "segment_bytes": "segment.bytes",
    "segment_index_bytes": "segment.index.bytes", "segment_jitter_ms": "segment.jitter.ms",
    "segment_ms": "segment.ms", "unclean_leader_election_enable": "unclean.leader.election.enable",
}
# Aiven's own switches in the same block, not Kafka topic configs.
AIVEN_OWN = {"inkless_enable": "Aiven's diskless topics"}


@dataclass(frozen=True)
class TopicShape:
    """Where a provider's topic resource writes the topic's name, partition count and replication factor."""

    name: str
    partitions: str
    replication: str | None  # None: the provider has none (Confluent Cloud fixes it)
    partitions_required: bool


SHAPES = {
    "kafka_topic": TopicShape("name", "partitions", "replication_factor", True),
    "confluent_kafka_topic": TopicShape("topic_name", "partitions_count", None, False),  # provider default: 6
    "aiven_kafka_topic": TopicShape("topic_name", "partitions", "replication", True),
}


def _count(e: Expr, what: str, most: int) -> str | None:
    """A literal whole number from 1 to `most` (Terraform's number, or a string of digits) as Kafka's text."""
    value = e.value
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        return None
    return str(value)


def read_topic(res: ResourceBlock, out: ResourceReading) -> None:
    shape = SHAPES[res.type]
    if shape.name not in res.attributes:
        out.problem(f"{res.label}: '{shape.name}' is required (the topic's name)", res.line)
        return
    name_expr = expr(res.attributes[shape.name].expression)
    if not name_expr.literal:
        out.note(name_expr.line, f"{res.label}: {not_literal(shape.name, name_expr)}, so this topic is not read")
        return
    topic = require_topic_name(name_expr.value, out.path, name_expr.line)
    out.once(f"topic {topic}", name_expr.line)  # raises: read() records it, this resource stops here
    problem = None
    if shape.partitions in res.attributes:
        e = expr(res.attributes[shape.partitions].expression)
        if not e.literal:
            problem = f"{res.label}: {not_literal(shape.partitions, e)}; set a number to measure this topic"
            out.note(e.line, f"{res.label}: {not_literal(shape.partitions, e)}")
        elif (count := _count(e, shape.partitions, 2**31 - 1)) is None:
            out.problem(f"{res.label}: {shape.partitions} must be a whole number from 1 to {2**31 - 1}, "
                        f"got {e.text}", e.line)
        else:
            out.entries.append(RawEntry("topic", "partitions", count, out.path, e.line, topic, res.label))
    elif shape.partitions_required:
        out.problem(f"{res.label}: '{shape.partitions}' is required (the topic's partition count)", res.line)
    out.topics.append(TopicDecl(topic, out.path, name_expr.line, problem))
    if shape.replication and shape.replication in res.attributes:
        e = expr(res.attributes[shape.replication].expression)
        if not e.literal:
            out.note(e.line, f"{res.label}: {not_literal(shape.replication, e)}")
        elif (factor := _count(e, shape.replication, 32767)) is None:
            out.problem(f"{res.label}: {shape.replication} must be a whole number from 1 to 32767, got {e.text}",
                        e.line)
        else:
            out.entries.append(RawEntry("topic", "replication.factor", factor, out.path, e.line, topic, res.label))
    if res.type == "aiven_kafka_topic":
        _aiven_config(res, topic, out)
    else:
        _config_map(res, topic, out)


def _setting(res: ResourceBlock, topic: str, key: str, e: Expr, out: ResourceReading) -> None:
    """One topic config as the provider passes it to Kafka, or a note when it is not a literal."""
    where = f"{res.label}: config '{key}'"
    if key in ("partitions", "replication.factor"):
        out.problem(f"{where} is not a topic config Kafka accepts: set the resource's own argument", e.line)
    elif e.literal and (why := confluent_server_note(key)) is not None:
        out.note(e.line, f"{res.label}: {why}")
    elif (text := literal_text(where, e, out)) is not None:
        out.entries.append(RawEntry("topic", key, text, out.path, e.line, topic, res.label))


def _config_map(res: ResourceBlock, topic: str, out: ResourceReading) -> None:
    """`config = { "segment.ms" = "20000" }`: Kafka's topic config names, as the provider passes them."""
    if "config" in res.blocks:
        out.problem(f"{res.label}: config is a map argument (config = {{ ... }}), not a block", line_of(res.blocks["config"][0]))
    attribute = res.attributes.get("config")
    out.resources.append(Resource(res.label, line_of(attribute) if attribute is not None else res.line))
    if attribute is None:
        return
    for key, e in map_elements(attribute, res.label, "config", "none of this topic's configs are read", out) or []:
        _setting(res, topic, key, e, out)


def _aiven_config(res: ResourceBlock, topic: str, out: ResourceReading) -> None:
    """Aiven's `config { flush_ms = 10 }` block: snake_case arguments the provider maps to Kafka's names."""
    from hcl2.rules.base import AttributeRule, BlockRule
    from hcl2.utils import SerializationOptions

    if "config" in res.attributes:
        out.problem(f"{res.label}: config is a block (config {{ ... }}), not an argument",
                    line_of(res.attributes["config"]))
    blocks = res.blocks.get("config", [])
    for extra in blocks[1:]:
        out.problem(f"{res.label}: more than one config block (the provider takes one)", line_of(extra))
    if "dynamic" in res.blocks:
        out.note(line_of(res.blocks["dynamic"][0]), f"{res.label}: a dynamic block is generated by Terraform; "
                                                    "kcliff does not expand it")
    out.resources.append(Resource(res.label, line_of(blocks[0]) if blocks else res.line))
    if not blocks:
        return
    plain = SerializationOptions(with_comments=False, strip_string_quotes=True)
    for child in blocks[0].body.children:
        if isinstance(child, BlockRule):
            out.problem(f"{res.label}: config takes arguments, not a block", line_of(child))
        if not isinstance(child, AttributeRule):
            continue
        argument = str(child.identifier.serialize(plain))
        e = expr(child.expression)
        if argument in AIVEN_OWN:
            out.note(e.line, f"{res.label}: config {argument} ({AIVEN_OWN[argument]}) is not a Kafka topic config; "
                             "kcliff does not read it")
        elif argument not in AIVEN_CONFIG:
            close = difflib.get_close_matches(argument, AIVEN_CONFIG, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else "the provider's config arguments are Kafka's topic " \
                                                               "configs in snake_case, e.g. flush_ms"
            out.problem(f"{res.label}: unknown config argument '{argument}' (Terraform refuses it): {hint}", e.line)
        else:
            _setting(res, topic, AIVEN_CONFIG[argument], e, out)
