# Advanced configuration of the events cluster (DigitalOcean's names: Kafka's keys with "_" for ".").
resource "digitalocean_database_kafka_config" "events" {
  cluster_id = digitalocean_database_cluster.events.id

  # consumer groups
  group_initial_rebalance_delay_ms = 3000
  group_min_session_timeout_ms     = 6000
  group_max_session_timeout_ms     = 1800000

  # requests
  message_max_bytes = 2097152

  # compaction
  log_cleaner_delete_retention_ms   = 86400000
  log_cleaner_min_compaction_lag_ms = "0"

  # flush left to the OS and to replication
  log_flush_interval_ms = "9223372036854775807"

  # segments and indexes
  log_index_interval_bytes                = 4096
  log_message_downconversion_enable       = false
  log_message_timestamp_difference_max_ms = "9223372036854775807"
  log_preallocate                         = false
  log_roll_jitter_ms                      = "0"
  log_segment_delete_delay_ms             = 60000

  # retention: three days, no size bound
  log_retention_bytes = "-1"
  log_retention_hours = 72
  log_retention_ms    = "259200000"

  auto_create_topics_enable = false
}

resource "digitalocean_database_kafka_topic" "orders" {
  cluster_id         = digitalocean_database_cluster.events.id
  name               = "orders"
  partition_count    = 12
  replication_factor = 3

  config {
    cleanup_policy = "delete"
    retention_ms   = "259200000"
  }
}
