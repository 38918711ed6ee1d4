"""The broker settings of managed Kafka services, as their Terraform providers take them:

    aiven_kafka                          kafka_user_config { kafka { log_flush_interval_messages = 1 } }:
                                         Aiven's snake_case arguments, each Kafka's key with `_` for `.`
                                         (provider 4.x's list, AIVEN_KAFKA); kafka_user_config's
                                         kafka_version ("3.8") -> the repo's Kafka version
    confluent_kafka_cluster_config       config = { "auto.create.topics.enable" = "true" }: Kafka's
                                         names, only the six Confluent Cloud lets a Dedicated cluster
                                         change (CONFLUENT_EDITABLE); the provider refuses any other
    digitalocean_database_kafka_config   one argument per setting (DIGITALOCEAN_KAFKA), Kafka's key with
                                         `_` for `.`; digitalocean_database_cluster's version (engine
                                         "kafka") -> the repo's Kafka version

An argument the provider lacks is bad input on its line, with the closest one it has; a value
Terraform would compute is noted, not guessed (terraform_hcl.py). The rest of each resource (plans,
networks, credentials) is not Kafka configuration and is not read.
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

from kcliff.configrepo.model import RawEntry, Resource
from kcliff.configrepo.reading import ResourceReading
from kcliff.configrepo.terraform_hcl import (Expr, ResourceBlock, body, expr, line_of, literal_text, map_elements,
                                              not_literal)
from kcliff.configrepo.version_file import newest_patch
from kcliff.kafka import configs as kafka_configs

if TYPE_CHECKING:
    from hcl2.rules.base import BlockRule

# Aiven provider 4.x, aiven_kafka's kafka_user_config.kafka block (docs/resources/kafka.md): every one is
# the Kafka broker key with its dots written as underscores.
AIVEN_KAFKA = (
    "auto_create_topics_enable", "compression_type", "connections_max_idle_ms", "default_replication_factor",
    "group_coordinator_rebalance_protocols", "group_initial_rebalance_delay_ms", "group_max_session_timeout_ms",
    "group_min_session_timeout_ms", "group_share_delivery_count_limit", "group_share_heartbeat_interval_ms",
    "group_share_max_groups", "group_share_max_heartbeat_interval_ms", "group_share_max_record_lock_duration_ms",
    "group_share_max_session_timeout_ms", "group_share_max_size", "group_share_min_heartbeat_interval_ms",
    "group_share_min_record_lock_duration_ms", "group_share_min_session_timeout_ms",
    "group_share_partition_max_record_locks", "group_share_record_lock_duration_ms", "group_share_session_timeout_ms",
    "log_cleaner_delete_retention_ms", "log_cleaner_max_compaction_lag_ms", "log_cleaner_min_cleanable_ratio",
    "log_cleaner_min_compaction_lag_ms", "log_cleanup_policy", "log_flush_interval_messages", "log_flush_interval_ms",
    "log_index_interval_bytes", "log_index_size_max_bytes", "log_local_retention_bytes", "log_local_retention_ms",
    "log_message_downconversion_enable", "log_message_timestamp_after_max_ms", "log_message_timestamp_before_max_ms",
    "log_message_timestamp_difference_max_ms", "log_message_timestamp_type", "log_preallocate", "log_retention_bytes",
    "log_retention_hours", "log_retention_ms", "log_roll_jitter_ms", "log_roll_ms", "log_segment_bytes",
    "log_segment_delete_delay_ms", "max_connections_per_ip", "max_incremental_fetch_session_cache_slots",
    "message_max_bytes", "min_insync_replicas", "num_partitions", "offsets_retention_minutes",
    "producer_purgatory_purge_interval_requests", "replica_fetch_max_bytes", "replica_fetch_response_max_bytes",
    "sasl_oauthbearer_expected_audience", "sasl_oauthbearer_expected_issuer", "sasl_oauthbearer_jwks_endpoint_url",
    "sasl_oauthbearer_sub_claim_name", "socket_request_max_bytes", "transaction_partition_verification_enable",
    "transaction_remove_expired_transaction_cleanup_interval_ms", "transaction_state_log_segment_bytes",
)
AIVEN_BLOCKS = {"audit_log": "Aiven's audit logging"}  # nested blocks of the kafka block, not Kafka keys
# kafka_user_config's blocks that configure other Aiven components: not the brokers.
AIVEN_OTHERS = {"kafka_rest_config": "the Karapace REST proxy", "kafka_connect_config": "Kafka Connect",
                "schema_registry_config": "the schema registry", "kafka_connect_secret_providers": "Kafka Connect"}
_MAJOR_MINOR = re.compile(r"(\d+)\.(\d+)")

# Confluent Cloud: the cluster settings a Dedicated cluster may change (Confluent's "Change cluster settings
# for Dedicated clusters"; the provider's editableClusterSettings), every other one read-only.
CONFLUENT_EDITABLE = ("auto.create.topics.enable", "ssl.enabled.protocols", "ssl.cipher.suites", "num.partitions",
                      "log.cleaner.max.compaction.lag.ms", "log.retention.ms")

# DigitalOcean provider 2.x, digitalocean_database_kafka_config's arguments besides cluster_id.
DIGITALOCEAN_KAFKA = (
    "group_initial_rebalance_delay_ms", "group_min_session_timeout_ms", "group_max_session_timeout_ms",
    "message_max_bytes", "log_cleaner_delete_retention_ms", "log_cleaner_min_compaction_lag_ms",
    "log_flush_interval_ms", "log_index_interval_bytes", "log_message_downconversion_enable",
    "log_message_timestamp_difference_max_ms", "log_preallocate", "log_retention_bytes", "log_retention_hours",
    "log_retention_ms", "log_roll_jitter_ms", "log_segment_delete_delay_ms", "auto_create_topics_enable",
)
# Arguments the provider parses as unsigned integers: a value that is not one is silently not sent.
DIGITALOCEAN_UNSIGNED = ("log_cleaner_min_compaction_lag_ms", "log_flush_interval_ms",
                         "log_message_timestamp_difference_max_ms", "log_roll_jitter_ms")
TERRAFORM_META = ("depends_on", "lifecycle", "provider", "timeouts")


def _unknown(label: str, argument: str, known: tuple[str, ...], line: int | None, out: ResourceReading) -> None:
    """An argument the provider's schema lacks: the closest one it has, or, when it names a Kafka key the
    service does not let users set, that."""
    close = difflib.get_close_matches(argument, known, n=1, cutoff=0.6)
    kafka_key = argument.replace("_", ".")
    if kafka_configs.catalogue().releases_of("broker", kafka_key) and kafka_key.replace(".", "_") not in known:
        hint = f"'{kafka_key}' is a Kafka setting this service does not let you set"
    else:
        hint = f"did you mean '{close[0]}'?" if close else f"the provider's arguments are {', '.join(known[:4])} ..."
    out.problem(f'{label}: an argument named "{argument}" is not expected here (Terraform refuses it): {hint}', line)


def _setting(label: str, key: str, e: Expr, out: ResourceReading, argument: str | None = None) -> None:
    """One broker setting as the provider sends it, or a note when Terraform would have to compute it;
    `argument` is the provider's name for it, when that is not Kafka's."""
    written = f"{argument} ({key})" if argument else key
    if (text := literal_text(f"{label}: {written}", e, out)) is not None:
        out.entries.append(RawEntry("broker", key, text, out.path, e.line, resource=label))


def _version(label: str, argument: str, e: Expr, service: str, out: ResourceReading) -> None:
    """A managed service's Kafka major.minor ("3.8") as the newest release of it kcliff knows."""
    if not e.literal:
        out.note(e.line, f"{label}: {not_literal(argument, e)}")
        return
    match = _MAJOR_MINOR.fullmatch(str(e.value).strip())
    if match is None:
        out.problem(f"{label}: {argument} {e.text} is not a Kafka version such as \"3.8\" ({service} runs "
                    "the newest patch release of a major.minor)", e.line)
        return
    release = newest_patch(*match.groups())
    out.note(e.line, f"{label}: {argument} {e.value} is a Kafka major.minor whose patch release {service} picks; "
                     f"kcliff reads the repo at its newest release it knows, {release}")
    out.version(release, e.line)


def read_aiven(res: ResourceBlock, out: ResourceReading) -> None:
    """aiven_kafka: kafka_user_config's kafka block as broker settings, its kafka_version as the release."""
    configs = res.blocks.get("kafka_user_config", [])
    if "kafka_user_config" in res.attributes:
        out.problem(f"{res.label}: kafka_user_config is a block (kafka_user_config {{ ... }}), not an argument",
                    line_of(res.attributes["kafka_user_config"]))
    if not configs:
        out.resources.append(Resource(res.label, res.line))
        return
    for extra in configs[1:]:
        out.problem(f"{res.label}: more than one kafka_user_config block (the provider takes one)", line_of(extra))
    attributes, blocks = body(configs[0], res.label, out)
    if "kafka_version" in attributes:
        _version(res.label, "kafka_version", expr(attributes["kafka_version"].expression), "Aiven", out)
    else:
        out.note(line_of(configs[0]), f"{res.label}: kafka_user_config sets no kafka_version, so Aiven runs its "
                                      "default; kcliff reads the repo at its own default Kafka release")
    for name, what in AIVEN_OTHERS.items():
        for block in blocks.get(name, []):
            out.note(line_of(block), f"{res.label}: {name} configures {what}, not the brokers; not read")
    if "kafka" in attributes:
        out.problem(f"{res.label}: kafka is a block (kafka {{ ... }}), not an argument", line_of(attributes["kafka"]))
    kafka = blocks.get("kafka", [])
    out.resources.append(Resource(res.label, line_of(kafka[0]) if kafka else line_of(configs[0])))
    for extra in kafka[1:]:
        out.problem(f"{res.label}: more than one kafka block (the provider takes one)", line_of(extra))
    if "dynamic" in blocks:
        out.note(line_of(blocks["dynamic"][0]), f"{res.label}: a dynamic block is generated by Terraform; kcliff does "
                                                "not expand it")
    if kafka:
        _aiven_kafka(res, kafka[0], out)


def _aiven_kafka(res: ResourceBlock, block: BlockRule, out: ResourceReading) -> None:
    """The kafka block: Aiven's arguments as Kafka's broker keys; one the provider lacks is bad input."""
    attributes, blocks = body(block, res.label, out)
    for name, found in blocks.items():
        what = AIVEN_BLOCKS.get(name)
        for nested in found:
            if what:
                out.note(line_of(nested), f"{res.label}: kafka {{ {name} }} configures {what}, not a Kafka setting; "
                                          "not read")
            else:
                _unknown(f"{res.label}: kafka", name, AIVEN_KAFKA, line_of(nested), out)
    for argument, attribute in attributes.items():
        if argument not in AIVEN_KAFKA:
            _unknown(f"{res.label}: kafka", argument, AIVEN_KAFKA, line_of(attribute), out)
        else:
            _setting(res.label, argument.replace("_", "."), expr(attribute.expression), out, argument)


def read_confluent(res: ResourceBlock, out: ResourceReading) -> None:
    """confluent_kafka_cluster_config: its config map, of the keys Confluent Cloud lets a cluster change."""
    attribute = res.attributes.get("config")
    out.resources.append(Resource(res.label, line_of(attribute) if attribute is not None else res.line))
    if "config" in res.blocks:
        out.problem(f"{res.label}: config is a map argument (config = {{ ... }}), not a block",
                    line_of(res.blocks["config"][0]))
        return
    if attribute is None:
        out.problem(f"{res.label}: 'config' is required (the cluster settings to change)", res.line)
        return
    elements = map_elements(attribute, res.label, "config", "none of this cluster's settings are read", out)
    if elements == []:
        out.problem(f"{res.label}: config is empty, which the provider refuses (set at least one of "
                    f"{', '.join(CONFLUENT_EDITABLE)})", line_of(attribute))
    for key, e in elements or []:
        if key in CONFLUENT_EDITABLE:
            _setting(res.label, key, e, out)
        else:
            out.problem(f"{res.label}: config '{key}' is a read-only cluster setting on Confluent Cloud (the provider "
                        f"refuses it); a Dedicated cluster may change only {', '.join(CONFLUENT_EDITABLE)}", e.line)


def read_digitalocean(res: ResourceBlock, out: ResourceReading) -> None:
    """digitalocean_database_kafka_config: one argument per broker setting."""
    out.resources.append(Resource(res.label, res.line))
    if "cluster_id" not in res.attributes:
        out.problem(f"{res.label}: 'cluster_id' is required (the Kafka cluster to configure)", res.line)
    for name, blocks in res.blocks.items():
        if name not in TERRAFORM_META:
            _unknown(res.label, name, DIGITALOCEAN_KAFKA, line_of(blocks[0]), out)
    for argument, attribute in res.attributes.items():
        if argument in ("cluster_id", *TERRAFORM_META):
            continue
        if argument not in DIGITALOCEAN_KAFKA:
            _unknown(res.label, argument, DIGITALOCEAN_KAFKA, line_of(attribute), out)
            continue
        e = expr(attribute.expression)
        if argument in DIGITALOCEAN_UNSIGNED and e.literal and not str(e.value).strip().isdigit():
            out.note(e.line, f"{res.label}: {argument} = {e.text} is not an unsigned whole number, which the provider "
                             "silently does not send; not read")
            continue
        _setting(res.label, argument.replace("_", "."), e, out, argument)


def read_digitalocean_cluster(res: ResourceBlock, out: ResourceReading) -> None:
    """digitalocean_database_cluster of engine "kafka": its version is the repo's Kafka version."""
    engine = expr(res.attributes["engine"].expression) if "engine" in res.attributes else None
    if engine is None or not engine.literal or engine.value != "kafka":
        return
    if "version" in res.attributes:
        _version(res.label, "version", expr(res.attributes["version"].expression), "DigitalOcean", out)
