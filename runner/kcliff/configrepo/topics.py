"""Topic definitions as plain YAML: a list of {name, partitions, replication_factor, configs}.

    - name: orders
      partitions: 12
      replication_factor: 3        # optional
      configs:
        compression.type: zstd
        min.insync.replicas: 2

A mapping with a `topics:` list is accepted too. Topic config keys are Kafka's own topic-level
names (flush.messages, segment.bytes, ...), as kafka-topics --config takes them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.configrepo.model import RawEntry, ReadResult, TopicDecl, require_topic_name
from kcliff.errors import InputError, Problems

TOPIC_KEYS = ("name", "partitions", "replication_factor", "configs")


def _line(node: Any, key: Any) -> int | None:
    return yamlio.key_line(node, key) or yamlio.node_line(node)


def parse_topics(data: Any, path: str) -> ReadResult:
    items = data.get("topics") if isinstance(data, dict) else data
    if isinstance(data, dict) and "topics" not in data:
        raise InputError("expected a list of topics ({name, partitions, configs}) or a mapping with 'topics:'",
                         path, yamlio.node_line(data))
    if not isinstance(items, list):
        raise InputError("'topics' must be a list of {name, partitions, configs}", path, yamlio.node_line(data))
    entries: list[RawEntry] = []
    decls: list[TopicDecl] = []
    seen: dict[str, int | None] = {}
    found = Problems()  # every bad topic of the file, reported together
    for index, item in enumerate(items):
        with found.catch():
            if not isinstance(item, dict):
                raise InputError("each topic must be a mapping with name, partitions, configs", path,
                                 yamlio.key_line(items, index))
            for key in item:  # every unknown key, and the topic read on
                if key not in TOPIC_KEYS:
                    found.add(InputError(f"unknown topic key '{key}': expected one of {', '.join(TOPIC_KEYS)} "
                                         "(topic configs go under 'configs:')", path, _line(item, key)))
            if "name" not in item:
                raise InputError("each topic needs a 'name'", path, yamlio.node_line(item))
            name = require_topic_name(item["name"], path, _line(item, "name"))
            if name in seen:
                raise InputError(f"topic '{name}' is defined twice (first at line {seen[name]})", path,
                                 _line(item, "name"))
            seen[name] = _line(item, "name")
            decls.append(TopicDecl(name, path, seen[name]))
            for key, setting in (("partitions", "partitions"), ("replication_factor", "replication.factor")):
                if key in item:
                    entries.append(RawEntry("topic", setting, item[key], path, _line(item, key), name))
            configs = item.get("configs")
            if configs is None:
                continue
            if not isinstance(configs, dict):
                raise InputError("'configs' must be a mapping of topic config: value", path, _line(item, "configs"))
            for key, value in configs.items():
                entries.append(RawEntry("topic", str(key), value, path, _line(configs, key), name))
    found.raise_all()
    return ReadResult(entries=entries, topics=decls)


class TopicsYamlReader:
    format = "topics-yaml"
    roles = ("topics",)

    def read(self, path: Path, role: str) -> ReadResult:
        return parse_topics(yamlio.load(path), str(path))
