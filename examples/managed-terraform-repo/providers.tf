terraform {
  required_providers {
    aiven = {
      source  = "aiven/aiven"
      version = "~> 4.30"
    }
  }
}

provider "aiven" {
  api_token = var.aiven_api_token
}
