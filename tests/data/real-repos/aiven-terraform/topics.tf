# Topics of the events service.
resource "aiven_kafka_topic" "orders" {
  project                = var.aiven_project
  service_name           = aiven_kafka.events.service_name
  topic_name             = "orders"
  partitions             = 24
  replication            = 3
  termination_protection = true

  config {
    cleanup_policy        = "delete"
    retention_ms          = 604800000
    min_insync_replicas   = 2
    compression_type      = "zstd"
    max_message_bytes     = 1048588
    segment_bytes         = 536870912
  }
}

resource "aiven_kafka_topic" "customers" {
  project      = var.aiven_project
  service_name = aiven_kafka.events.service_name
  topic_name   = "customers"
  partitions   = 12
  replication  = 3

  config {
    cleanup_policy            = "compact"
    min_cleanable_dirty_ratio = 0.2
    delete_retention_ms       = 86400000
    min_compaction_lag_ms     = 60000
  }
}

resource "aiven_kafka_topic" "audit" {
  project      = var.aiven_project
  service_name = aiven_kafka.events.service_name
  topic_name   = "audit-${var.environment}"
  partitions   = 6
  replication  = 3

  config {
    retention_ms = 2592000000
  }
}
