# The shop's Kafka service on Aiven: Kafka 4.1, three nodes.
resource "aiven_kafka" "shop" {
  project                 = var.aiven_project
  cloud_name              = "aws-eu-west-1"
  plan                    = "business-4"
  service_name            = "shop-${var.environment}"
  maintenance_window_dow  = "sunday"
  maintenance_window_time = "03:00:00"

  kafka_user_config {
    kafka_version   = "4.1"
    schema_registry = true

    # The brokers' settings: Aiven's names are Kafka's keys with "_" for ".".
    kafka {
      auto_create_topics_enable  = false
      num_partitions             = 6
      default_replication_factor = 3
      min_insync_replicas        = 2
      log_retention_hours        = 168
      log_segment_bytes          = 1073741824
      message_max_bytes          = 2097152
      replica_fetch_max_bytes    = 4194304
      socket_request_max_bytes   = 104857600
      group_initial_rebalance_delay_ms = 3000
      offsets_retention_minutes  = 10080
    }
  }
}
