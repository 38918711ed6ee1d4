"""Interleaved sides share one topic wherever their topics have the same shape, and switch its configs."""

import pytest
from kcliff.errors import ClusterError
from kcliff.measure import apply
from kcliff.measure.plan import shared_topics
from kcliff.measure.sites import Site, topic_configs
from kcliff.scenario.suites import Scenario

from tests.measure.test_suite_faults import StandInAdmin


def scenario(sid: str, producer: dict | None = None, topic: dict | None = None) -> Scenario:
    return Scenario(sid, sid, {}, topic or {"partitions": 6}, producer or {})


def test_sides_with_the_same_topic_share_it_and_a_different_topic_gets_its_own():
    base = scenario("base", {"linger.ms": 5})
    head = scenario("head", {"linger.ms": 10})
    other = scenario("other", topic={"partitions": 12})
    names = shared_topics([base, head, other])
    assert names[0] == names[1] and names[2] != names[0]
    assert names[0].startswith("kcliff-base-") and names[2].startswith("kcliff-other-")


def test_sides_that_differ_in_topic_configs_only_share_the_topic_and_retention_does_not():
    """Two topics made the same way read 1.20x and 0.93x of each other over whole checks: a topic
    change is measured on one topic, its configs switched per side. Retention would delete what the
    other side wrote, so it keeps its own topic, as a partition count does."""
    plain = scenario("plain")
    zstd = scenario("zstd", topic={"partitions": 6, "compression.type": "zstd", "segment.bytes": 1048576})
    short = scenario("short", topic={"partitions": 6, "retention.ms": 60000})
    names = shared_topics([plain, zstd, short])
    assert names[0] == names[1] and names[2] != names[0]


class TopicAdmin(StandInAdmin):
    """The suite's stand-in admin, recording each topic change; `refuse` names a config it drops silently."""

    def __init__(self, refuse: str | None = None) -> None:
        super().__init__()
        self.altered: list[dict[str, str | None]] = []
        self.refuse = refuse

    def alter_topic_configs(self, name: str, changes: dict[str, str | None]) -> None:
        self.altered.append(changes)
        super().alter_topic_configs(name, {k: v for k, v in changes.items() if k != self.refuse or v is None})


def site(admin: TopicAdmin) -> Site:
    return Site.open(None, admin, lambda bootstrap: admin)  # type: ignore[arg-type]


def test_a_shared_topic_takes_each_sides_configs_exactly_and_only_what_changed_is_sent():
    admin = TopicAdmin()
    here = site(admin)
    plain = scenario("plain", topic={"partitions": 6, "segment.bytes": 536870912})
    zstd = scenario("zstd", topic={"partitions": 6, "compression.type": "zstd"})
    here.create_topic(plain, "t")
    here.switch_topic(plain, "t")
    assert admin.altered == []  # created with plain's configs: nothing to switch
    here.switch_topic(zstd, "t")
    assert admin.configs["t"] == topic_configs(zstd) and admin.configs["t"]["compression.type"] == "zstd"
    assert admin.altered == [{"segment.bytes": None, "compression.type": "zstd"}]  # min.insync.replicas alike
    here.switch_topic(plain, "t")
    assert admin.configs["t"] == topic_configs(plain) and "compression.type" not in admin.configs["t"]


def test_a_topic_config_kafka_did_not_take_stops_the_measuring(monkeypatch):
    admin = TopicAdmin(refuse="compression.type")
    here = site(admin)
    monkeypatch.setattr(apply, "READBACK_TIMEOUT_S", 0.0)
    here.create_topic(scenario("plain"), "t")
    with pytest.raises(ClusterError, match="compression.type"):
        here.switch_topic(scenario("zstd", topic={"partitions": 6, "compression.type": "zstd"}), "t")
