"""Terraform (.tf) files declaring Kafka topics and MSK broker configurations, parsed with python-hcl2.

    kafka_topic (Mongey's kafka provider)  name, partitions, replication_factor (-> replication.factor),
                                           config = { "segment.ms" = "..." } -> topic settings
    confluent_kafka_topic                  topic_name, partitions_count, config = { ... }
    aiven_kafka_topic                      topic_name, partitions, replication, and a config { ... } block
                                           of Aiven's snake_case keys (flush_messages -> flush.messages)
    aws_msk_configuration                  server_properties (broker .properties, usually a heredoc:
                                           each key on its own line of the .tf) and kafka_versions
                                           -> the repo's Kafka version

A file is one of these by content (it declares one of the resources), whatever its name. Only
literals are read: a value Terraform would have to evaluate (`var.x`, `local.y`, an interpolation,
`each.value`, a function call) is a note on its line saying kcliff does not guess it, and a topic
whose name is not a literal is skipped with a note, as is a resource with `for_each` or `count`.
Numbers and booleans become the strings Kafka receives (Terraform's map(string) does the same).
What the provider or Kafka would refuse (a missing required argument, a bad topic name, a partition
count that is not a positive whole number, an unknown Aiven config key) is bad input on its line;
every one found in the file is reported together.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from kcliff import yamlio
from kcliff.configrepo.cfk import confluent_server_note
from kcliff.configrepo.model import RawEntry, ReadResult, Resource, TopicDecl, require_topic_name
from kcliff.configrepo.properties import parse_text
from kcliff.configrepo.reading import ResourceReading
from kcliff.configrepo.version_file import check as check_version
from kcliff.configrepo.version_file import newest_patch
from kcliff.errors import InputError
from kcliff.kafka import configs as kafka_configs

if TYPE_CHECKING:  # python-hcl2 and lark load only when a .tf file is read: lint's start stays fast
    from hcl2.rules.abstract import LarkElement
    from hcl2.rules.base import AttributeRule, BlockRule, StartRule

TOPIC_TYPES = ("kafka_topic", "confluent_kafka_topic", "aiven_kafka_topic")
RESOURCE_TYPES = (*TOPIC_TYPES, "aws_msk_configuration")
_SNIFF = re.compile(r'^\s*resource\s+"?(' + "|".join(RESOURCE_TYPES) + r')"?\s', re.MULTILINE)
MAX_BYTES = 4 * 1024 * 1024

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

# An MSK kafka_versions entry: 3.6.0, 3.7.x, 3.9.x.kraft, 4.1.x.kraft, 2.8.2.tiered.
MSK_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+|x)((?:\.[0-9a-z]+)*)")
# HCL's template sequences; "$${" and "%%{" are their escapes, which stand for the literal text.
_TEMPLATE = re.compile(r"(?<!\$)\$\{|(?<!%)%\{")


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


@dataclass(frozen=True)
class Expr:
    """An expression as Terraform would see it before evaluating anything: a literal's Python value,
    or, for anything it would have to evaluate, `literal` False and the expression as written."""

    literal: bool
    value: Any
    text: str
    line: int | None
    heredoc: bool = False  # its interpolations are in its text: server_properties checks them key by key


def holds_resources(path: Path) -> bool:
    """Whether a .tf file declares a resource this reader reads (its text says so; Terraform repos name
    files freely). Unreadable text is not ours."""
    try:
        return _SNIFF.search(read_text(path)) is not None
    except InputError:
        return False


def read_text(path: Path) -> str:
    return yamlio.read_utf8(path, "config files", ": Terraform reads .tf files as UTF-8", "a Terraform .tf text file",
                            MAX_BYTES)


def kafka_string(value: Any) -> str:
    """A literal as the string Kafka receives: Terraform turns numbers and booleans of a map(string) into
    text the same way (1e3 -> "1000", true -> "true")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def _line(node: LarkElement) -> int | None:
    """Where a node starts: python-hcl2 hands each rule's position on to the lark tree it rebuilds."""
    meta = node.to_lark().meta
    return getattr(meta, "line", None)


def _unescape(text: str) -> str:
    return text.replace("$${", "${").replace("%%{", "%{")


def _source(serialized: Any) -> str:
    """An expression as a note shows it: `var.x`, not python-hcl2's `${var.x}` wrapping."""
    text = str(serialized)
    return text[2:-1] if text.startswith("${") and text.endswith("}") else text


def _inner(node: Any) -> Any:
    """An expression without the parentheses (python-hcl2's expression terms) around it."""
    from hcl2.rules.expressions import ExprTermRule

    while isinstance(node, ExprTermRule):
        node = node.expression
    return node


def expr(node: Any) -> Expr:
    """What an attribute's or map element's value is, without evaluating anything."""
    from hcl2.rules.containers import TupleRule
    from hcl2.rules.expressions import UnaryOpRule
    from hcl2.rules.literal_rules import FloatLitRule, IntLitRule, LiteralValueRule
    from hcl2.rules.strings import HeredocTemplateRule, StringRule
    from hcl2.rules.tokens import StringToken
    from hcl2.utils import SerializationOptions

    line = _line(node)
    node = _inner(node)
    options = SerializationOptions(with_comments=False, strip_string_quotes=True, preserve_heredocs=False,
                                   preserve_scientific_notation=False)
    value = node.serialize(options)
    if isinstance(node, (IntLitRule, FloatLitRule, UnaryOpRule)):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        return Expr(number, value, _source(value), line)
    if isinstance(node, LiteralValueRule):  # true, false, null
        return Expr(True, value, str(node.token.value), line)
    if isinstance(node, StringRule):
        literal = all(isinstance(part.content, StringToken) for part in node.string_parts)
        return Expr(literal, _unescape(value) if literal else value, value if literal else f'"{value}"', line)
    if isinstance(node, HeredocTemplateRule):  # the trimmed <<- form too; interpolations are in its text
        return Expr(not _TEMPLATE.search(value), value, "a heredoc", line, heredoc=True)
    if isinstance(node, TupleRule):
        items = [expr(e) for e in node.elements]
        return Expr(all(i.literal for i in items), [i.value for i in items], _source(node.serialize()), line)
    return Expr(False, None, _source(value), line)


def not_literal(what: str, e: Expr) -> str:
    return f"{what} is {e.text}: not a literal; kcliff does not guess it"


@dataclass
class _Resource:
    """One `resource "TYPE" "NAME" { ... }` block: its arguments and nested blocks by name."""

    type: str
    name: str
    line: int | None
    attributes: dict[str, AttributeRule]
    blocks: dict[str, list[BlockRule]]

    @property
    def label(self) -> str:
        return f"{self.type}.{self.name}"  # the resource's Terraform address


def _parse(text: str, path: str) -> StartRule:
    import hcl2
    from lark.exceptions import UnexpectedInput

    try:
        return hcl2.parses(text)
    except UnexpectedInput as exc:
        raise InputError(f"invalid HCL: {_first_line(str(exc))}", path, exc.line if exc.line > 0 else None) from None
    except Exception as exc:  # the library's own checks of the tree it built: still the file's fault, no traceback
        raise InputError(f"invalid HCL: {_first_line(str(exc))}", path) from None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "cannot parse"


def _resources(start: StartRule, out: ResourceReading) -> list[_Resource]:
    from hcl2.rules.base import AttributeRule, BlockRule
    from hcl2.utils import SerializationOptions

    plain = SerializationOptions(with_comments=False, strip_string_quotes=True)
    found: list[_Resource] = []
    for block in start.body.children:
        if not isinstance(block, BlockRule):
            continue
        labels = [str(label.serialize(plain)) for label in block.labels]
        if labels[0] != "resource" or len(labels) != 3 or labels[1] not in RESOURCE_TYPES:
            continue
        attributes: dict[str, AttributeRule] = {}
        blocks: dict[str, list[BlockRule]] = {}
        for child in block.body.children:
            if isinstance(child, AttributeRule):
                name = str(child.identifier.serialize(plain))
                if name in attributes:
                    out.problem(f"{labels[1]}.{labels[2]}: argument '{name}' is set twice (first at line "
                                f"{_line(attributes[name])}); Terraform refuses a duplicate argument", _line(child))
                attributes.setdefault(name, child)
            elif isinstance(child, BlockRule):
                blocks.setdefault(str(child.labels[0].serialize(plain)), []).append(child)
        found.append(_Resource(labels[1], labels[2], _line(block), attributes, blocks))
    return found


def _expanded(res: _Resource, out: ResourceReading) -> bool:
    """A resource Terraform repeats per item (for_each, count): its instances are not literals."""
    for meta_argument in ("for_each", "count"):
        if meta_argument in res.attributes:
            e = expr(res.attributes[meta_argument].expression)
            out.note(e.line, f"{res.label}: {meta_argument} = {e.text} makes one resource per item; kcliff does "
                             "not expand it, so what these resources set is not read")
            return True
    return False


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


def _topic(res: _Resource, out: ResourceReading) -> None:
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


def _setting(res: _Resource, topic: str, key: str, e: Expr, out: ResourceReading) -> None:
    """One topic config as the provider passes it to Kafka, or a note when it is not a literal."""
    where = f"{res.label}: config '{key}'"
    if key in ("partitions", "replication.factor"):
        out.problem(f"{where} is not a topic config Kafka accepts: set the resource's own argument", e.line)
    elif not e.literal:
        out.note(e.line, not_literal(where, e))
    elif (why := confluent_server_note(key)) is not None:
        out.note(e.line, f"{res.label}: {why}")
    elif e.value is None:
        out.note(e.line, f"{where} is null: Terraform leaves it unset")
    elif isinstance(e.value, (list, dict)):
        out.problem(f"{where} must be a string, number or bool, got {e.text}", e.line)
    else:
        out.entries.append(RawEntry("topic", key, kafka_string(e.value), out.path, e.line, topic, res.label))


def _config_map(res: _Resource, topic: str, out: ResourceReading) -> None:
    """`config = { "segment.ms" = "20000" }`: Kafka's topic config names, as the provider passes them."""
    from hcl2.rules.containers import ObjectElemKeyRule, ObjectRule
    from hcl2.rules.literal_rules import IdentifierRule
    from hcl2.rules.strings import StringRule

    if "config" in res.blocks:
        out.problem(f"{res.label}: config is a map argument (config = {{ ... }}), not a block", _line(res.blocks["config"][0]))
    attribute = res.attributes.get("config")
    out.resources.append(Resource(res.label, _line(attribute) if attribute is not None else res.line))
    if attribute is None:
        return
    node = _inner(attribute.expression)
    if not isinstance(node, ObjectRule):
        e = expr(attribute.expression)
        out.note(e.line, f"{res.label}: {not_literal('config', e)}, so none of this topic's configs are read")
        return
    for element in node.elements:
        key_node = element.key
        line = _line(element)
        label = key_node.value if isinstance(key_node, ObjectElemKeyRule) else None
        if isinstance(label, IdentifierRule) or (isinstance(label, StringRule) and expr(label).literal):
            key = str(expr(label).value) if isinstance(label, StringRule) else str(label.token.value)
            _setting(res, topic, key, expr(element.expression), out)
        else:
            out.note(line, f"{res.label}: a config key is {_source(key_node.serialize())}: not a literal; kcliff "
                           "does not guess it")


def _aiven_config(res: _Resource, topic: str, out: ResourceReading) -> None:
    """Aiven's `config { flush_ms = 10 }` block: snake_case arguments the provider maps to Kafka's names."""
    from hcl2.rules.base import AttributeRule, BlockRule
    from hcl2.utils import SerializationOptions

    if "config" in res.attributes:
        out.problem(f"{res.label}: config is a block (config {{ ... }}), not an argument",
                    _line(res.attributes["config"]))
    blocks = res.blocks.get("config", [])
    for extra in blocks[1:]:
        out.problem(f"{res.label}: more than one config block (the provider takes one)", _line(extra))
    if "dynamic" in res.blocks:
        out.note(_line(res.blocks["dynamic"][0]), f"{res.label}: a dynamic block is generated by Terraform; "
                                                  "kcliff does not expand it")
    out.resources.append(Resource(res.label, _line(blocks[0]) if blocks else res.line))
    if not blocks:
        return
    plain = SerializationOptions(with_comments=False, strip_string_quotes=True)
    for child in blocks[0].body.children:
        if isinstance(child, BlockRule):
            out.problem(f"{res.label}: config takes arguments, not a block", _line(child))
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


def _msk_version(text: str, where: str, line: int | None, out: ResourceReading) -> tuple[int, int, int] | None:
    """An MSK kafka_versions entry as an Apache Kafka release: 3.6.0 as written; 3.9.x (MSK picks the
    patch release) as that minor's first release, with a note."""
    match = MSK_VERSION.fullmatch(text)
    if match is None:
        out.problem(f"{where}: {text!r} is not an MSK Kafka version such as 3.6.0, 3.9.x or 4.1.x.kraft", line)
        return None
    major, minor, patch, suffix = match.groups()
    if patch == "x":
        out.note(line, f"{where}: {text} leaves the patch release to MSK; kcliff reads it as Kafka {major}.{minor} "
                       f"at that minor's newest release kcliff knows, {newest_patch(major, minor)}")
        return kafka_configs.release_key(newest_patch(major, minor))
    if suffix:
        out.note(line, f"{where}: {text} is MSK's build of Kafka {major}.{minor}.{patch}; read as that release")
    return int(major), int(minor), int(patch)


def _msk(res: _Resource, out: ResourceReading) -> None:
    if "kafka_versions" in res.attributes:
        e = expr(res.attributes["kafka_versions"].expression)
        if not e.literal:
            out.note(e.line, f"{res.label}: {not_literal('kafka_versions', e)}")
        elif not isinstance(e.value, list) or not all(isinstance(v, str) for v in e.value) or not e.value:
            out.problem(f"{res.label}: kafka_versions must be a list of version strings, e.g. [\"3.6.0\"]", e.line)
        else:
            versions = [v for v in (_msk_version(text, res.label, e.line, out) for text in e.value) if v]
            if versions:
                newest = ".".join(map(str, max(versions)))
                if len(e.value) > 1:
                    out.note(e.line, f"{res.label}: kafka_versions lists {', '.join(e.value)}; kcliff reads the repo "
                                     f"at the newest, {newest}, the release this configuration is ready for")
                try:
                    out.versions.append(check_version(newest, out.path, e.line))
                except InputError as exc:
                    out.problems.append(exc)
    attribute = res.attributes.get("server_properties")
    out.resources.append(Resource(res.label, _line(attribute) if attribute is not None else res.line))
    if attribute is None:
        out.problem(f"{res.label}: 'server_properties' is required (the broker configuration)", res.line)
        return
    _server_properties(res, expr(attribute.expression), out)


def _server_properties(res: _Resource, e: Expr, out: ResourceReading) -> None:
    """The broker .properties text, each key on the .tf line it is written on (a heredoc's lines follow
    the line of its `<<EOF`; a one-line string's keys all sit on that line)."""
    heredoc = e.heredoc
    if not heredoc and not e.literal:
        out.note(e.line, f"{res.label}: {not_literal('server_properties', e)}; to lint the broker settings it "
                         "holds, keep them in a .properties file (a file() call's target is read when named in "
                         "kcliff.yaml with role broker)")
        return
    if not isinstance(e.value, str):
        out.problem(f"{res.label}: server_properties must be text, got {e.text}", e.line)
        return
    first = e.line or 1
    try:
        parsed = parse_text(e.value, out.path)
    except InputError as exc:
        out.problem(f"{res.label}: server_properties: {exc.message}",
                    first + (exc.line or 0) if heredoc else e.line)
        return
    for key, value, offset in parsed:
        line = first + offset if heredoc else e.line
        if _TEMPLATE.search(key) or _TEMPLATE.search(value):
            out.note(line, f"{res.label}: server_properties '{key}' holds an interpolation: not a literal; kcliff "
                           "does not guess it")
            continue
        out.entries.append(RawEntry("broker", _unescape(key), _unescape(value), out.path, line, resource=res.label))


HANDLERS: dict[str, Callable[[_Resource, ResourceReading], None]] = {
    **{t: _topic for t in TOPIC_TYPES}, "aws_msk_configuration": _msk}


class TerraformReader:
    format = "terraform"
    roles = ("terraform",)

    def read(self, path: Path, role: str) -> ReadResult:
        out = ResourceReading(str(path))
        for res in _resources(_parse(read_text(path), str(path)), out):
            if _expanded(res, out):
                continue
            try:
                HANDLERS[res.type](res, out)
            except InputError as exc:  # the resource stops here; the file's other resources are still read
                out.problems.append(exc)
        return out.result()
