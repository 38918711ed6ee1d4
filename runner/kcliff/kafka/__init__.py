"""What Kafka itself defines, per release: its config definitions, its tools, its jars."""
