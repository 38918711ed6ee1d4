"""Bitnami's kafka chart 20 to 23: its camelCase values, each one KAFKA_CFG_* variable of the one
statefulset, which Bitnami's image writes into server.properties (templates/statefulset.yaml).

Chart 24.0.0 removed them (its upgrade notes: "use extraConfig"); before 20 the same keys existed
(with `logRetentionCheckIntervalMs` misspelt into an unknown Kafka key up to 17) and are read as 20
reads them. The chart prints each with `quote`, so a number of a million or more reaches Kafka in
exponent form (helm_values.py), and passes five through `replace "_" ""`, which takes only a string:
helm refuses a number there, and the chart's own defaults are written `_10000` for that reason.
`config` (a whole server.properties) and `existingConfigmap` replace every one of them.
"""

from __future__ import annotations

from kcliff.configrepo.helm_values import (Values, exponent_problem, go_text, printed_as_exponent, properties_text,
                                           setting)

# values key -> the broker key its KAFKA_CFG_* variable sets (chart 23.0.7, templates/statefulset.yaml)
LEGACY = {
    "deleteTopicEnable": "delete.topic.enable", "autoCreateTopicsEnable": "auto.create.topics.enable",
    "logFlushIntervalMessages": "log.flush.interval.messages", "logFlushIntervalMs": "log.flush.interval.ms",
    "logRetentionBytes": "log.retention.bytes", "logRetentionCheckIntervalMs": "log.retention.check.interval.ms",
    "logRetentionHours": "log.retention.hours", "logSegmentBytes": "log.segment.bytes", "logsDirs": "log.dirs",
    "maxMessageBytes": "message.max.bytes", "defaultReplicationFactor": "default.replication.factor",
    "offsetsTopicReplicationFactor": "offsets.topic.replication.factor",
    "transactionStateLogReplicationFactor": "transaction.state.log.replication.factor",
    "transactionStateLogMinIsr": "transaction.state.log.min.isr", "numIoThreads": "num.io.threads",
    "numNetworkThreads": "num.network.threads", "numPartitions": "num.partitions",
    "numRecoveryThreadsPerDataDir": "num.recovery.threads.per.data.dir",
    "socketReceiveBufferBytes": "socket.receive.buffer.bytes", "socketRequestMaxBytes": "socket.request.max.bytes",
    "socketSendBufferBytes": "socket.send.buffer.bytes",
    "zookeeperConnectionTimeoutMs": "zookeeper.connection.timeout.ms", "authorizerClassName": "authorizer.class.name",
    "allowEveryoneIfNoAclFound": "allow.everyone.if.no.acl.found", "superUsers": "super.users",
}
# The keys the template passes through `replace "_" ""` before `quote`.
STRING_ONLY = ("logFlushIntervalMessages", "logRetentionBytes", "logSegmentBytes", "maxMessageBytes",
               "socketRequestMaxBytes")
# The chart's defaults that differ from Kafka's: set on every broker whose values leave them out.
CHART_DEFAULTS = {"deleteTopicEnable": "false", "logFlushIntervalMessages": "10000", "logFlushIntervalMs": "1000",
                  "logRetentionBytes": "1073741824", "offsetsTopicReplicationFactor": "1",
                  "transactionStateLogReplicationFactor": "1", "transactionStateLogMinIsr": "1"}


def legacy_keys(values: Values) -> list[str]:
    return [key for key in LEGACY if key in values.node]


def _setting(values: Values, camel: str, label: str) -> None:
    raw, key = values.get(camel), LEGACY[camel]
    what = f"{values.name(camel)} ({key})"
    if camel in STRING_ONLY:
        if not isinstance(raw, str):
            values.problem(camel, f"{what}: chart 20-23 passes it through `replace \"_\" \"\"`, which takes a string, "
                                  f"so helm refuses {raw!r} (\"wrong type for value; expected string\"); write it "
                                  f"as a string: \"{raw}\" (the chart writes its own defaults as \"_10000\", the "
                                  "underscores dropped)")
            return
        text = raw.replace("_", "")
    else:
        printed = printed_as_exponent(raw)
        if printed is not None:
            values.problem(camel, exponent_problem(what, raw, printed))
            return
        text = go_text(raw)
    setting(values, "broker", key, text, values.line(camel), what, label)


def read_brokers(values: Values, label: str) -> None:
    """The brokers' settings as chart 20-23 sets them: `existingConfigmap`, else `config`, else the
    camelCase keys (with a note naming the chart defaults this file leaves in force)."""
    written = legacy_keys(values)
    existing = values.get("existingConfigmap")
    if existing:
        values.note("existingConfigmap", f"{label}: server.properties comes from ConfigMap '{existing}' "
                                         f"({values.name('existingConfigmap')}), which replaces every other setting "
                                         "here; kcliff reads that ConfigMap where the repo holds it")
        return
    if values.get("config"):
        properties_text(values, "config", label)
        if written:
            values.note(written[0], f"{label}: {values.name('config')} replaces the KAFKA_CFG_* variables, so the chart "
                                    f"ignores {', '.join(values.name(k) for k in written)}; not read")
        return
    for camel in written:
        _setting(values, camel, label)
    unset = [f"{LEGACY[k]}={v}" for k, v in CHART_DEFAULTS.items() if k not in values.node]
    if unset:
        values.note(None, f"{label}: chart 20-23 also sets, from its own defaults, what this file leaves out "
                          f"({', '.join(unset)}); kcliff reads only what the file sets")
