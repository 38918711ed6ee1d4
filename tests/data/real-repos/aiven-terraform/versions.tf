terraform {
  required_version = ">= 1.5"

  required_providers {
    aiven = {
      source  = "aiven/aiven"
      version = "~> 4.30"
    }
  }

  backend "gcs" {
    bucket = "acme-terraform-state"
    prefix = "kafka/events"
  }
}

provider "aiven" {
  api_token = var.aiven_api_token
}
