"""The committed catalogue of Kafka's own config definitions (runner/kcliff/data/kafka-configs.json,
built by scripts/build-kafka-configs.sh; docs/kafka-configs.md): it parses, its shape holds for every
variant, and facts known from Kafka's release notes and sources are in it as Kafka states them."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from kcliff.resources import DATA

CATALOGUE = DATA / "kafka-configs.json"
SCOPES = ("broker", "topic", "producer", "consumer")
# Every kafka_2.13 x.y.z release on Maven Central from 3.3.0 on when the file was first built.
RELEASES = ("3.3.0 3.3.1 3.3.2 3.4.0 3.4.1 3.5.0 3.5.1 3.5.2 3.6.0 3.6.1 3.6.2 3.7.0 3.7.1 3.7.2 3.8.0 "
            "3.8.1 3.9.0 3.9.1 3.9.2 4.0.0 4.0.1 4.0.2 4.1.0 4.1.1 4.1.2 4.2.0 4.2.1 4.2.2 4.3.0 4.3.1 "
            "4.4.0").split()
TYPES = {"BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD"}
VALIDATOR_KINDS = {"range", "one_of", "list_of", "non_empty_string", "non_empty_string_without_control_chars",
                   "non_null", "all", "opaque"}


@cache
def catalogue(path: Path = CATALOGUE) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def expand(span: str, releases: list[str]) -> list[str]:
    """The releases a span names: "a..b" runs of `releases`, or "a" alone, joined by ","."""
    out: list[str] = []
    for run in span.split(","):
        first, _, last = run.partition("..")
        out += releases[releases.index(first):releases.index(last or first) + 1]
    return out


def view(doc: dict[str, Any], release: str) -> dict[str, Any]:
    """One release as the catalogue holds it, in ConfigDump.java's per-release shape."""
    releases = doc["releases"]

    def pick(entries: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
        chosen = {}
        for key, variants in entries.items():
            for variant in variants:
                if release in expand(variant["releases"], releases):
                    chosen[key] = {k: v for k, v in variant.items() if k != "releases"}
        return chosen

    return {"release": release,
            "scopes": {scope: pick(doc["scopes"][scope]) for scope in SCOPES},
            "topic_synonyms": {k: v["broker"] for k, v in pick(doc["topic_synonyms"]).items()},
            "broker_update_modes": {k: v["mode"] for k, v in pick(doc["broker_update_modes"]).items()}}


@cache
def at(release: str) -> dict[str, Any]:
    return view(catalogue(), release)


def test_header_and_every_release_from_3_3_0_ascending() -> None:
    doc = catalogue()
    assert (doc["schema"], doc["version"]) == ("kcliff.kafka-configs", 1)
    assert "scripts/build-kafka-configs.sh" in doc["source"]
    releases = doc["releases"]
    assert set(RELEASES) <= set(releases)
    as_tuples = [tuple(int(p) for p in r.split(".")) for r in releases]
    assert as_tuples == sorted(set(as_tuples)) and as_tuples[0] == (3, 3, 0)
    assert set(doc) == {"schema", "version", "source", "releases", "scopes", "topic_synonyms",
                        "broker_update_modes"}
    assert set(doc["scopes"]) == set(SCOPES)


def check_validator(v: dict[str, Any]) -> None:
    kinds = set(v) & VALIDATOR_KINDS
    assert len(kinds) == 1, v
    kind = kinds.pop()
    if kind == "range":
        assert len(v["range"]) == 2 and v["range"] != [None, None]
    elif kind == "one_of":
        assert v["one_of"] and isinstance(v["case_insensitive"], bool)
    elif kind == "list_of":
        assert set(v) == {"list_of", "empty_allowed", "null_allowed", "unique"}
    elif kind == "all":
        for inner in v["all"]:
            check_validator(inner)
    elif kind == "opaque":
        assert set(v) == {"opaque", "class"} and "@" not in v["opaque"]  # no identity hash codes
    else:
        assert v == {kind: True}


def test_every_variant_is_well_formed_and_variants_of_a_key_never_overlap() -> None:
    doc = catalogue()
    releases = doc["releases"]
    for scope in SCOPES:
        keys = list(doc["scopes"][scope])
        assert keys == sorted(keys), scope
        for key, variants in doc["scopes"][scope].items():
            held: list[str] = []
            for v in variants:
                assert set(v) <= {"releases", "type", "default", "validator", "importance", "internal"}
                assert v["type"] in TYPES and v["importance"] in {"HIGH", "MEDIUM", "LOW"}
                assert v.get("internal", True) is True
                if "validator" in v:
                    check_validator(v["validator"])
                held += expand(v["releases"], releases)
            assert len(held) == len(set(held)), f"{scope} {key}: variants overlap"
            firsts = [releases.index(expand(v["releases"], releases)[0]) for v in variants]
            assert firsts == sorted(firsts), f"{scope} {key}: variants not ordered by first release"
            assert len({json.dumps({k: x for k, x in v.items() if k != "releases"}, sort_keys=True)
                        for v in variants}) == len(variants), f"{scope} {key}: two variants alike"


def test_every_release_has_a_real_sized_config_set() -> None:
    smallest = {"broker": 250, "topic": 25, "producer": 80, "consumer": 80}
    for release in catalogue()["releases"]:
        scopes = at(release)["scopes"]
        for scope, least in smallest.items():
            assert len(scopes[scope]) >= least, (release, scope)
        assert at(release)["broker_update_modes"].keys() == scopes["broker"].keys()


def test_zookeeper_connect_ends_with_3_9_and_kraft_keys_are_there_throughout() -> None:
    assert "zookeeper.connect" in at("3.9.2")["scopes"]["broker"]
    for release in ("4.0.0", "4.2.0", "4.4.0"):
        assert "zookeeper.connect" not in at(release)["scopes"]["broker"]
    for release in ("3.3.0", "3.9.2", "4.4.0"):
        assert {"process.roles", "node.id", "controller.quorum.voters"} <= set(at(release)["scopes"]["broker"])


def test_message_downconversion_is_a_topic_key_in_3_9_only() -> None:
    for release in ("3.9.0", "3.9.1", "3.9.2"):
        assert at(release)["scopes"]["topic"]["message.downconversion.enable"] == {
            "type": "BOOLEAN", "default": True, "importance": "LOW"}
    for release in catalogue()["releases"]:
        if release.startswith("4."):
            assert "message.downconversion.enable" not in at(release)["scopes"]["topic"]


def test_log_flush_interval_messages_is_long_max_with_minimum_one() -> None:
    for release in catalogue()["releases"]:
        assert at(release)["scopes"]["broker"]["log.flush.interval.messages"] == {
            "type": "LONG", "default": 9223372036854775807, "validator": {"range": [1, None]},
            "importance": "HIGH"}
        assert at(release)["scopes"]["topic"]["flush.messages"]["default"] == 9223372036854775807


def test_linger_ms_default_went_from_0_to_5_in_4_0() -> None:
    for release in ("3.9.0", "3.9.2"):
        assert at(release)["scopes"]["producer"]["linger.ms"]["default"] == 0
    for release in ("4.0.0", "4.2.0", "4.4.0"):
        assert at(release)["scopes"]["producer"]["linger.ms"]["default"] == 5


def test_acks_accepts_all_minus_one_zero_and_one() -> None:
    for release in ("3.3.0", "4.2.0", "4.4.0"):
        acks = at(release)["scopes"]["producer"]["acks"]
        assert acks["default"] == "all"
        assert set(acks["validator"]["one_of"]) == {"all", "-1", "0", "1"}


@pytest.mark.parametrize("topic,broker", [
    ("flush.messages", "log.flush.interval.messages"), ("segment.ms", "log.roll.ms"),
    ("cleanup.policy", "log.cleanup.policy"), ("retention.ms", "log.retention.ms"),
    ("max.message.bytes", "message.max.bytes")])
def test_topic_keys_default_from_their_broker_synonyms(topic: str, broker: str) -> None:
    for release in catalogue()["releases"]:
        view_ = at(release)
        assert view_["topic_synonyms"][topic] == broker
        assert topic in view_["scopes"]["topic"] and broker in view_["scopes"]["broker"]


def test_required_keys_have_no_default_and_internal_keys_are_marked() -> None:
    producer = at("4.2.0")["scopes"]["producer"]
    assert "default" not in producer["key.serializer"]  # no default: the client must set it
    assert producer["partitioner.class"]["default"] is None  # a default of null is not "required"
    assert "default" not in at("4.2.0")["scopes"]["broker"]["process.roles"]
    assert at("3.9.2")["scopes"]["broker"]["process.roles"]["default"] == []
    consumer = at("4.2.0")["scopes"]["consumer"]
    assert consumer["internal.throw.on.fetch.stable.offset.unsupported"]["internal"] is True
    assert "internal" not in consumer["group.id"]


def test_valid_list_rejects_duplicates_from_4_2() -> None:
    old = at("4.1.2")["scopes"]["topic"]["cleanup.policy"]["validator"]
    new = at("4.2.0")["scopes"]["topic"]["cleanup.policy"]["validator"]
    assert old == {"list_of": ["compact", "delete"], "empty_allowed": True, "null_allowed": False,
                   "unique": False}
    assert new == {**old, "unique": True}


def test_update_modes_as_kafkas_docs_give_them() -> None:
    modes = at("4.2.0")["broker_update_modes"]
    assert modes["log.dirs"] == "read-only"
    assert modes["listeners"] == "per-broker"
    assert modes["num.io.threads"] == "cluster-wide"
