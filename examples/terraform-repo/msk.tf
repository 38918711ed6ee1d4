# The orders platform's MSK cluster and the broker configuration it runs with.

resource "aws_msk_configuration" "orders" {
  name           = "orders-${var.environment}"
  description    = "Broker configuration of the orders MSK cluster"
  kafka_versions = ["4.1.x.kraft"]

  server_properties = <<PROPERTIES
auto.create.topics.enable=false
default.replication.factor=3
min.insync.replicas=2
num.io.threads=8
num.network.threads=5
num.partitions=1
num.replica.fetchers=2
socket.receive.buffer.bytes=102400
socket.request.max.bytes=104857600
socket.send.buffer.bytes=102400
unclean.leader.election.enable=false
log.retention.hours=168
log.segment.bytes=1073741824
compression.type=producer
message.max.bytes=1048588
PROPERTIES
}

resource "aws_msk_cluster" "orders" {
  cluster_name           = "orders-${var.environment}"
  kafka_version          = "4.1.x.kraft"
  number_of_broker_nodes = 3

  broker_node_group_info {
    instance_type   = "kafka.m7g.large"
    client_subnets  = var.private_subnet_ids
    security_groups = [var.kafka_security_group_id]

    storage_info {
      ebs_storage_info {
        volume_size = 1000
      }
    }
  }

  configuration_info {
    arn      = aws_msk_configuration.orders.arn
    revision = aws_msk_configuration.orders.latest_revision
  }

  client_authentication {
    sasl {
      iam = true
    }
  }

  encryption_info {
    encryption_in_transit {
      client_broker = "TLS"
      in_cluster    = true
    }
  }
}
