terraform {
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.80"
    }
    kafka = {
      source  = "Mongey/kafka"
      version = "~> 0.8"
    }
  }

  backend "s3" {
    bucket = "acme-terraform-state"
    key    = "kafka/orders-platform.tfstate"
    region = "eu-west-1"
  }
}

provider "aws" {
  region = var.aws_region
}

# Topics are created through the MSK cluster's IAM-authenticated listener.
provider "kafka" {
  bootstrap_servers = split(",", aws_msk_cluster.orders.bootstrap_brokers_sasl_iam)
  tls_enabled       = true
  sasl_mechanism    = "aws-iam"
  sasl_aws_region   = var.aws_region
}
