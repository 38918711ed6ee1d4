variable "aiven_api_token" {
  type      = string
  sensitive = true
}

variable "aiven_project" {
  type    = string
  default = "shop-platform"
}

variable "environment" {
  type    = string
  default = "prod"
}
