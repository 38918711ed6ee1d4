terraform {
  required_providers {
    digitalocean = {
      source  = "digitalocean/digitalocean"
      version = "~> 2.58"
    }
  }
}

provider "digitalocean" {}

locals {
  region = "fra1"
  tags   = ["kafka", "events"]
}

resource "digitalocean_vpc" "events" {
  name     = "events-vpc"
  region   = local.region
  ip_range = "10.110.0.0/20"
}

# The managed Kafka cluster: three nodes, Kafka 3.7.
resource "digitalocean_database_cluster" "events" {
  name                 = "events-kafka"
  engine               = "kafka"
  version              = "3.7"
  size                 = "gd-2vcpu-8gb"
  region               = local.region
  node_count           = 3
  private_network_uuid = digitalocean_vpc.events.id
  tags                 = local.tags
}

# The reporting database beside it (not Kafka).
resource "digitalocean_database_cluster" "reporting" {
  name       = "reporting-pg"
  engine     = "pg"
  version    = "16"
  size       = "db-s-2vcpu-4gb"
  region     = local.region
  node_count = 1
}

resource "digitalocean_database_firewall" "events" {
  cluster_id = digitalocean_database_cluster.events.id

  rule {
    type  = "tag"
    value = "events-workers"
  }
}
