resource "aiven_kafka_topic" "orders" {
  project      = var.aiven_project
  service_name = aiven_kafka.shop.service_name
  topic_name   = "orders"
  partitions   = 12
  replication  = 3

  config {
    cleanup_policy    = "delete"
    retention_ms      = 604800000
    segment_bytes     = 536870912
    max_message_bytes = 1048588
  }
}

resource "aiven_kafka_topic" "carts" {
  project      = var.aiven_project
  service_name = aiven_kafka.shop.service_name
  topic_name   = "carts"
  partitions   = 6
  replication  = 3

  config {
    cleanup_policy = "compact"
  }
}
