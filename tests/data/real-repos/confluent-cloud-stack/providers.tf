terraform {
  required_providers {
    confluent = {
      source  = "confluentinc/confluent"
      version = "2.12.0"
    }
  }
}

provider "confluent" {
  cloud_api_key    = var.confluent_cloud_api_key    # or CONFLUENT_CLOUD_API_KEY
  cloud_api_secret = var.confluent_cloud_api_secret # or CONFLUENT_CLOUD_API_SECRET
}
