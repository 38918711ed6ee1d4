variable "aiven_api_token" {
  description = "Aiven API token of the platform team's service user."
  type        = string
  sensitive   = true
}

variable "aiven_project" {
  description = "Aiven project the event streaming services live in."
  type        = string
  default     = "acme-events"
}

variable "environment" {
  description = "prod or staging."
  type        = string
  default     = "prod"
}

variable "plan" {
  description = "Aiven plan of the Kafka service."
  type        = string
  default     = "business-8"
}

variable "max_message_bytes" {
  description = "Largest record the brokers accept."
  type        = number
  default     = 2097152
}
