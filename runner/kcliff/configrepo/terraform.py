"""Terraform (.tf) files declaring Kafka topics and MSK broker configurations, parsed with python-hcl2.

    kafka_topic (Mongey's kafka provider)  name, partitions, replication_factor (-> replication.factor),
                                           config = { "segment.ms" = "..." } -> topic settings
    confluent_kafka_topic                  topic_name, partitions_count, config = { ... }
    aiven_kafka_topic                      topic_name, partitions, replication, and a config { ... } block
                                           of Aiven's snake_case keys (flush_messages -> flush.messages)
    aws_msk_configuration                  server_properties (broker .properties, usually a heredoc:
                                           each key on its own line of the .tf) and kafka_versions
                                           -> the repo's Kafka version
    aiven_kafka, confluent_kafka_cluster_config, digitalocean_database_kafka_config
                                           managed services' broker settings (terraform_managed.py)

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

import re
from pathlib import Path
from typing import Callable

from kcliff.configrepo.model import ReadResult
from kcliff.configrepo.reading import ResourceReading
from kcliff.configrepo.terraform_hcl import ResourceBlock, expanded, parse, read_text, resource_blocks
from kcliff.configrepo.terraform_managed import (read_aiven, read_confluent, read_digitalocean,
                                                 read_digitalocean_cluster)
from kcliff.configrepo.terraform_msk import read_msk
from kcliff.configrepo.terraform_topics import TOPIC_TYPES, read_topic
from kcliff.errors import InputError

MANAGED = {"aiven_kafka": read_aiven, "confluent_kafka_cluster_config": read_confluent,
           "digitalocean_database_kafka_config": read_digitalocean}
RESOURCE_TYPES = (*TOPIC_TYPES, "aws_msk_configuration", *MANAGED, "digitalocean_database_cluster")
_SNIFF = re.compile(r'^\s*resource\s+"?(' + "|".join(RESOURCE_TYPES[:-1]) + r')"?\s', re.MULTILINE)
# A DigitalOcean database cluster is Kafka's only when its engine says so (Postgres ones are not ours).
_KAFKA_ENGINE = re.compile(r'^\s*resource\s+"?digitalocean_database_cluster"?\s[^}]*?\bengine\s*=\s*"kafka"',
                           re.MULTILINE | re.DOTALL)


def holds_resources(path: Path) -> bool:
    """Whether a .tf file declares a resource this reader reads (its text says so; Terraform repos name
    files freely). Unreadable text is not ours."""
    try:
        text = read_text(path)
    except InputError:
        return False
    return _SNIFF.search(text) is not None or _KAFKA_ENGINE.search(text) is not None


HANDLERS: dict[str, Callable[[ResourceBlock, ResourceReading], None]] = {
    **{t: read_topic for t in TOPIC_TYPES}, "aws_msk_configuration": read_msk, **MANAGED,
    "digitalocean_database_cluster": read_digitalocean_cluster}


class TerraformReader:
    format = "terraform"
    roles = ("terraform",)

    def read(self, path: Path, role: str) -> ReadResult:
        out = ResourceReading(str(path))
        for res in resource_blocks(parse(read_text(path), str(path)), out, RESOURCE_TYPES):
            if expanded(res, out):
                continue
            try:
                HANDLERS[res.type](res, out)
            except InputError as exc:  # the resource stops here; the file's other resources are still read
                out.problems.append(exc)
        return out.result()
