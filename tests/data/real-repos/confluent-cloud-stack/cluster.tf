resource "confluent_environment" "production" {
  display_name = "production"

  stream_governance {
    package = "ESSENTIALS"
  }
}

# A Dedicated cluster: the only type whose cluster settings may be changed.
resource "confluent_kafka_cluster" "payments" {
  display_name = "payments"
  availability = "MULTI_ZONE"
  cloud        = "AWS"
  region       = var.region

  dedicated {
    cku = 2
  }

  environment {
    id = confluent_environment.production.id
  }
}

resource "confluent_service_account" "app_manager" {
  display_name = "app-manager"
  description  = "Manages the payments cluster's topics and settings"
}

resource "confluent_role_binding" "app_manager_admin" {
  principal   = "User:${confluent_service_account.app_manager.id}"
  role_name   = "CloudClusterAdmin"
  crn_pattern = confluent_kafka_cluster.payments.rbac_crn
}

resource "confluent_api_key" "app_manager_kafka" {
  display_name = "app-manager-kafka-api-key"
  owner {
    id          = confluent_service_account.app_manager.id
    api_version = confluent_service_account.app_manager.api_version
    kind        = confluent_service_account.app_manager.kind
  }
  managed_resource {
    id          = confluent_kafka_cluster.payments.id
    api_version = confluent_kafka_cluster.payments.api_version
    kind        = confluent_kafka_cluster.payments.kind
    environment {
      id = confluent_environment.production.id
    }
  }
  depends_on = [confluent_role_binding.app_manager_admin]
}

# Cluster-wide settings (Confluent Cloud lets a Dedicated cluster change six of them).
resource "confluent_kafka_cluster_config" "payments" {
  kafka_cluster {
    id = confluent_kafka_cluster.payments.id
  }
  rest_endpoint = confluent_kafka_cluster.payments.rest_endpoint

  config = {
    "auto.create.topics.enable"         = "false"
    "num.partitions"                    = "12"
    "log.retention.ms"                  = var.retention_days * 86400000
    "log.cleaner.max.compaction.lag.ms" = "604800000"
    "ssl.enabled.protocols"             = "TLSv1.3"
    "ssl.cipher.suites"                 = "TLS_AES_256_GCM_SHA384,TLS_AES_128_GCM_SHA256"
  }

  credentials {
    key    = confluent_api_key.app_manager_kafka.id
    secret = confluent_api_key.app_manager_kafka.secret
  }
}
