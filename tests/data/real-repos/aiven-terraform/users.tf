resource "aiven_kafka_user" "orders_service" {
  project      = var.aiven_project
  service_name = aiven_kafka.events.service_name
  username     = "orders-service"
}

resource "aiven_kafka_acl" "orders_write" {
  project      = var.aiven_project
  service_name = aiven_kafka.events.service_name
  topic        = aiven_kafka_topic.orders.topic_name
  permission   = "write"
  username     = aiven_kafka_user.orders_service.username
}
