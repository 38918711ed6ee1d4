"""Interleaved sides share one topic wherever their topics are the same."""

from kcliff.measure.plan import shared_topics
from kcliff.scenario.suites import Scenario


def scenario(sid: str, producer: dict | None = None, topic: dict | None = None) -> Scenario:
    return Scenario(sid, sid, {}, topic or {"partitions": 6}, producer or {})


def test_sides_with_the_same_topic_share_it_and_a_different_topic_gets_its_own():
    base = scenario("base", {"linger.ms": 5})
    head = scenario("head", {"linger.ms": 10})
    other = scenario("other", topic={"partitions": 12})
    names = shared_topics([base, head, other])
    assert names[0] == names[1] and names[2] != names[0]
    assert names[0].startswith("kcliff-base-") and names[2].startswith("kcliff-other-")


def test_a_topic_config_difference_is_a_different_topic():
    plain = scenario("plain")
    zstd = scenario("zstd", topic={"partitions": 6, "compression.type": "zstd"})
    assert len(set(shared_topics([plain, zstd]))) == 2
