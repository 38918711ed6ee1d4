"""kcliff: continuous performance regression testing for Kafka configurations."""

__version__ = "0.1.0"
