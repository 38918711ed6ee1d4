"""kcliff's measured settings are a layer on Kafka's own definitions: each is a key of the default
release with Kafka's default, and each broker key is applied the way Kafka lets it change."""

from kcliff.kafka import configs as kafka_configs
from kcliff.kafka import dist as kafka_dist
from kcliff.scenario import settings

RELEASE = kafka_dist.DEFAULT_VERSION
# How kcliff applies a broker setting, by the update mode Kafka gives it (DynamicBrokerConfig).
APPLY_BY_MODE = {"cluster-wide": ("dynamic", "stepped"), "per-broker": ("dynamic", "stepped"), "read-only": ("restart",)}
# The controller elects by it: kcliff sets broker configs per broker (librdkafka refuses the cluster-wide entity),
# which a controller apart from the brokers never reads, so it is written into every node's file, the controller's too.
ELECTED_BY_THE_CONTROLLER = {"unclean.leader.election.enable"}


def test_every_measured_setting_is_a_kafka_key_with_kafkas_default():
    catalogue = kafka_configs.catalogue()
    for setting in settings.CATALOGUE:
        if (setting.scope, setting.name) == ("topic", "partitions"):  # a topic's creation field, not a config
            continue
        definition = catalogue.lookup(setting.scope, setting.name, RELEASE)
        assert definition is not None, f"{setting.scope} {setting.name} is not a Kafka {RELEASE} key"
        assert definition.default == setting.default, (setting.scope, setting.name)


def test_each_broker_setting_is_applied_as_kafka_lets_it_change():
    catalogue = kafka_configs.catalogue()
    for setting in settings.CATALOGUE:
        if setting.scope == "broker":
            mode = catalogue.update_mode(setting.name, RELEASE)
            if setting.name in ELECTED_BY_THE_CONTROLLER:
                assert (mode, setting.apply) == ("cluster-wide", "restart")
                continue
            assert mode is not None and setting.apply in APPLY_BY_MODE[mode], (setting.name, mode, setting.apply)
