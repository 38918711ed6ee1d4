# Topics of the orders platform, created on the MSK cluster (msk.tf) by Mongey's kafka provider.

locals {
  # Each tenant gets its own event topic, sized by its traffic.
  tenant_topics = {
    "tenant-acme-events"   = 6
    "tenant-globex-events" = 3
  }

  event_topic_config = {
    "cleanup.policy"      = "delete"
    "min.insync.replicas" = "2"
    "retention.ms"        = tostring(var.default_retention_ms)
  }
}

resource "kafka_topic" "orders" {
  name               = "orders"
  partitions         = 12
  replication_factor = 3

  config = {
    "cleanup.policy"         = "delete"
    "compression.type"       = "producer"
    "min.insync.replicas"    = "2"
    "retention.ms"           = "604800000" # 7 days
    "segment.bytes"          = "536870912" # 512 MiB
    "max.message.bytes"      = "1048588"
    "message.timestamp.type" = "CreateTime"
  }
}

resource "kafka_topic" "order_events" {
  name               = "order-events"
  partitions         = 6
  replication_factor = 3

  config = {
    "cleanup.policy"      = "delete"
    "min.insync.replicas" = 2
    "retention.ms"        = var.default_retention_ms
    "segment.ms"          = 86400000 # roll daily, so retention frees a day at a time
  }
}

resource "kafka_topic" "payments" {
  name               = "payments"
  partitions         = 12
  replication_factor = 3

  config = {
    "min.insync.replicas"            = "2"
    "retention.ms"                   = "1209600000" # 14 days: the reconciliation window
    "unclean.leader.election.enable" = "false"
    "compression.type"               = "producer"
  }
}

# The latest profile of each customer, keyed by customer id.
resource "kafka_topic" "customer_profiles" {
  name               = "customer-profiles"
  partitions         = 6
  replication_factor = 3

  config = {
    "cleanup.policy"            = "compact"
    "min.compaction.lag.ms"     = "60000"
    "delete.retention.ms"       = "86400000"
    "min.cleanable.dirty.ratio" = 0.5
    "segment.ms"                = "3600000"
    "min.insync.replicas"       = "2"
  }
}

resource "kafka_topic" "audit_log" {
  name               = "${var.environment}.audit-log"
  partitions         = var.audit_topic_partitions
  replication_factor = 3

  config = {
    "retention.ms" = "-1" # kept forever
  }
}

resource "kafka_topic" "tenant_events" {
  for_each = local.tenant_topics

  name               = each.key
  partitions         = each.value
  replication_factor = 3
  config             = local.event_topic_config
}
