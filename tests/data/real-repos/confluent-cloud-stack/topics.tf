resource "confluent_kafka_topic" "payments" {
  kafka_cluster {
    id = confluent_kafka_cluster.payments.id
  }
  topic_name       = "payments"
  partitions_count = 12
  rest_endpoint    = confluent_kafka_cluster.payments.rest_endpoint

  config = {
    "cleanup.policy"      = "delete"
    "retention.ms"        = "1209600000"
    "min.insync.replicas" = "2"
    "max.message.bytes"   = "2097164"
    "message.timestamp.type" = "CreateTime"
    "confluent.value.schema.validation" = "true"
  }

  credentials {
    key    = confluent_api_key.app_manager_kafka.id
    secret = confluent_api_key.app_manager_kafka.secret
  }
}

resource "confluent_kafka_topic" "payment_state" {
  kafka_cluster {
    id = confluent_kafka_cluster.payments.id
  }
  topic_name       = "payment-state"
  partitions_count = 6
  rest_endpoint    = confluent_kafka_cluster.payments.rest_endpoint

  config = {
    "cleanup.policy"        = "compact"
    "delete.retention.ms"   = "86400000"
    "min.compaction.lag.ms" = "0"
    "segment.ms"            = "604800000"
  }

  credentials {
    key    = confluent_api_key.app_manager_kafka.id
    secret = confluent_api_key.app_manager_kafka.secret
  }
}
