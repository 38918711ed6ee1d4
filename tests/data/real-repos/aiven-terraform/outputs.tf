output "kafka_service_uri" {
  value     = aiven_kafka.events.service_uri
  sensitive = true
}

output "kafka_host" {
  value = aiven_kafka.events.service_host
}
