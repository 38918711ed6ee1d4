variable "aws_region" {
  description = "Region of the orders platform's MSK cluster."
  type        = string
  default     = "eu-west-1"
}

variable "environment" {
  description = "Deployment environment: prefixes the audit topic and names the MSK resources."
  type        = string
  default     = "prod"
}

variable "private_subnet_ids" {
  description = "One private subnet per availability zone for the brokers."
  type        = list(string)
}

variable "kafka_security_group_id" {
  description = "Security group admitting the services' VPCs on the IAM listener (9098)."
  type        = string
}

variable "default_retention_ms" {
  description = "Retention of event topics that keep Kafka's weekly default unless told otherwise."
  type        = number
  default     = 604800000
}

variable "audit_topic_partitions" {
  description = "Partitions of the audit log topic."
  type        = number
  default     = 3
}
