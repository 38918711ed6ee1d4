# The events Kafka service: Aiven for Apache Kafka, Kafka 3.8, three racks in europe-west1.
resource "aiven_kafka" "events" {
  project                 = var.aiven_project
  cloud_name              = "google-europe-west1"
  plan                    = var.plan
  service_name            = "events-${var.environment}"
  maintenance_window_dow  = "sunday"
  maintenance_window_time = "02:00:00"
  termination_protection  = true

  kafka_user_config {
    kafka_version   = "3.8"
    kafka_rest      = true
    kafka_connect   = false
    schema_registry = true
    ip_filter_string = ["10.20.0.0/16", "10.30.0.0/16"]

    kafka_authentication_methods {
      certificate = true
      sasl        = true
    }

    # Broker settings (Aiven's names: Kafka's keys with "_" for ".").
    kafka {
      # topic defaults
      auto_create_topics_enable      = false
      num_partitions                 = 12
      default_replication_factor     = 3
      min_insync_replicas            = 2
      compression_type               = "producer"
      log_cleanup_policy             = "delete"

      # retention and segments
      log_retention_hours            = 168
      log_retention_bytes            = -1
      log_segment_bytes              = 1073741824
      log_segment_delete_delay_ms    = 60000
      log_index_interval_bytes       = 4096
      log_index_size_max_bytes       = 10485760
      log_preallocate                = false
      log_message_timestamp_type     = "CreateTime"
      log_message_downconversion_enable = false
      log_message_timestamp_after_max_ms = 3600000

      # compaction
      log_cleaner_delete_retention_ms   = 86400000
      log_cleaner_min_cleanable_ratio   = 0.5
      log_cleaner_min_compaction_lag_ms = 0
      log_cleaner_max_compaction_lag_ms = 604800000

      # flush: left to replication; this only bounds a single replica's loss on a crash
      log_flush_interval_ms          = 60000

      # requests and connections
      message_max_bytes              = var.max_message_bytes
      replica_fetch_max_bytes        = 4194304
      replica_fetch_response_max_bytes = 10485760
      socket_request_max_bytes       = 104857600
      connections_max_idle_ms        = 540000
      max_connections_per_ip         = 2000
      max_incremental_fetch_session_cache_slots = 2000
      producer_purgatory_purge_interval_requests = 1000

      # consumer groups and transactions
      group_initial_rebalance_delay_ms = 3000
      group_min_session_timeout_ms     = 6000
      group_max_session_timeout_ms     = 1800000
      offsets_retention_minutes        = 10080
      transaction_state_log_segment_bytes = 104857600
      transaction_remove_expired_transaction_cleanup_interval_ms = 3600000
    }

    kafka_rest_config {
      producer_acks         = "all"
      producer_linger_ms    = 5
      consumer_enable_auto_commit = true
    }

    public_access {
      kafka_rest = false
      prometheus = true
    }
  }

  tag {
    key   = "team"
    value = "platform"
  }
}
