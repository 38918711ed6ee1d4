"""librdkafka's catalogue (runner/kcliff/data/librdkafka-configs.json, docs/librdkafka.md): the committed
view of the librdkafka confluent-kafka installed is what that library prints; kcliff checks values as the
library's own rd_kafka_conf_set does; and facts from librdkafka's CONFIGURATION.md are in it."""

from __future__ import annotations

import ctypes
import json
import site
import sysconfig
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from kcliff.kafka import configs as kafka_configs
from kcliff.kafka import librdkafka_configs as rdk
from kcliff.kafka import librdkafka_dump
from kcliff.resources import DATA


def _installed() -> Path:
    for where in (sysconfig.get_paths()["purelib"], *site.getsitepackages()):
        found = librdkafka_dump.bundled_library(Path(where))
        if found:
            return found
    pytest.skip("no confluent-kafka wheel with a bundled librdkafka is installed")


@cache
def _committed() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / "librdkafka-configs.json").read_text(encoding="utf-8"))
    return data


def _view(release: str) -> dict[str, dict[str, dict[str, Any]]]:
    """The committed file's definitions of one release, as the dumper prints them."""
    releases = tuple(_committed()["releases"])
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for scope, props in _committed()["scopes"].items():
        out[scope] = {}
        for name, variants in props.items():
            for variant in variants:
                if release in rdk.expand_span(variant["releases"], releases):
                    out[scope][name] = {k: v for k, v in variant.items() if k != "releases"}
    return out


def test_the_installed_librdkafka_prints_exactly_the_committed_view_of_its_release() -> None:
    dumped = librdkafka_dump.dump(_installed())
    if dumped["release"] not in _committed()["releases"]:
        pytest.skip(f"librdkafka {dumped['release']} is not catalogued: rerun scripts/build-librdkafka-configs.py")
    committed = _view(dumped["release"])
    for scope in ("global", "topic"):
        assert dumped["properties"][scope] == committed[scope], scope


def test_the_file_holds_several_releases_in_order() -> None:
    doc = _committed()
    assert doc["schema"] == rdk.SCHEMA and doc["version"] == rdk.VERSION
    releases = doc["releases"]
    assert len(releases) >= 3 and "2.16.0" in releases
    assert releases == sorted(releases, key=kafka_configs.release_key)


def test_facts_of_librdkafka_configuration_md() -> None:
    cat = rdk.catalogue()
    linger = cat.lookup("linger.ms", "2.16.0")
    assert linger is not None and linger.alias_of == "queue.buffering.max.ms" and linger.type == "float"
    assert linger.client == "producer" and linger.range == (0, 900000) and linger.default == "5"
    batch = cat.lookup("batch.size", "2.16.0")
    assert batch is not None and batch.default == "1000000" and rdk.java_name(batch) == "batch.size"
    codec = cat.lookup("compression.codec", "2.16.0")  # the global one wins over the topic one
    assert codec is not None and codec.scope == "global" and codec.values == ("none", "gzip", "snappy", "lz4", "zstd")
    acks = cat.lookup("topic.acks", "2.16.0")
    assert acks is not None and acks.scope == "topic" and acks.alias_of == "request.required.acks"
    assert cat.lookup("auto.offset.reset", "2.16.0").client == "consumer"  # type: ignore[union-attr]
    buffering = cat.lookup("queue.buffering.max.ms", "2.16.0")
    assert buffering is not None and cat.aliases(buffering, "2.16.0") == ["linger.ms"]
    assert cat.aliases(linger, "2.16.0") == ["queue.buffering.max.ms"]
    assert cat.lookup("metadata.recovery.strategy", "2.8.0") is None  # new in the catalogue at 2.10.1
    assert cat.releases_of("metadata.recovery.strategy")[0] == "2.10.1"


def test_every_java_name_is_a_java_client_key_and_every_mapped_property_exists() -> None:
    cat, kafka = rdk.catalogue(), kafka_configs.catalogue()
    for name, java in rdk.JAVA_NAMES.items():
        assert cat.releases_of(name), name
        assert kafka.releases_of("producer", java) or kafka.releases_of("consumer", java), java


@pytest.mark.parametrize("release", rdk.catalogue().releases)
def test_every_property_at_its_default_is_valid(release: str) -> None:
    for prop in rdk.catalogue().properties(release):
        if prop.type != "api" and prop.default is not None:
            assert prop.parse(prop.default)[1] is None, (prop.name, prop.default)


# --- kcliff's checks against the library's own rd_kafka_conf_set ------------------------------------------

@cache
def _library() -> ctypes.CDLL:
    lib = ctypes.CDLL(str(_installed()))
    lib.rd_kafka_conf_new.restype = ctypes.c_void_p
    lib.rd_kafka_conf_destroy.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_conf_set.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                      ctypes.c_size_t]
    return lib


def _library_accepts(name: str, value: str) -> bool:
    lib = _library()
    conf = lib.rd_kafka_conf_new()
    error = ctypes.create_string_buffer(512)
    try:
        return int(lib.rd_kafka_conf_set(conf, name.encode(), value.encode(), error, 512)) == 0
    finally:
        lib.rd_kafka_conf_destroy(conf)


# Defaults this build of librdkafka refuses: builtin.features asks the build for features (the wheel's has no
# sasl_gssapi, which the default names); ssl.ca.certificate.stores is read on Windows only.
BUILD_DEPENDENT = ("builtin.features", "ssl.ca.certificate.stores")


def _bad_values(prop: rdk.Property) -> list[str]:
    if prop.type == "boolean":
        return ["yes", "2", ""]
    if prop.type in ("enum", "flags"):
        return ["not-a-value", ""]
    if prop.type in ("integer", "float") and prop.range:
        low, high = (int(b) for b in prop.range)
        return ["abc", str(low - 1), str(high + 1) if high < 2 ** 31 - 1 else "abc", ""]
    return []


def test_kcliff_accepts_and_refuses_what_the_installed_librdkafka_does() -> None:
    release = librdkafka_dump.release_of(_installed())
    if release not in rdk.catalogue().releases:
        pytest.skip(f"librdkafka {release} is not catalogued")
    checked = 0
    for prop in rdk.catalogue().properties(release):
        if prop.type == "api":
            continue
        name = rdk.catalogue().written_name(prop, release)
        if prop.default is not None and prop.name not in BUILD_DEPENDENT:
            assert _library_accepts(name, prop.default), name
        for bad in _bad_values(prop):
            assert not _library_accepts(name, bad), (name, bad)
            assert prop.parse(bad)[1] is not None, (prop.name, bad)
            checked += 1
    for name, good in (("acks", "all"), ("socket.keepalive.enable", "TRUE"), ("socket.keepalive.enable", "t"),
                       ("compression.codec", "ZSTD"), ("debug", "broker, topic"), ("linger.ms", "0.5")):
        assert _library_accepts(name, good) and rdk.catalogue().lookup(name, release).parse(good)[1] is None  # type: ignore[union-attr]
    assert checked > 100


def test_where_the_java_default_differs() -> None:
    cat = rdk.catalogue()

    def differs(name: str, kafka: str) -> object:
        prop = cat.lookup(name, cat.newest)
        assert prop is not None, name
        return rdk.java_default(prop, kafka)

    assert differs("batch.size", "4.2.0") == ("batch.size", 16384)
    assert differs("enable.idempotence", "4.2.0") == ("enable.idempotence", True)
    assert differs("message.timeout.ms", "4.2.0") == ("delivery.timeout.ms", 120000)
    assert differs("queue.buffering.max.ms", "4.2.0") is None  # 5 ms both, from Kafka 4.0
    assert differs("queue.buffering.max.ms", "3.9.0") == ("linger.ms", 0)
    assert differs("auto.offset.reset", "4.2.0") is None  # librdkafka's largest is Java's latest
    assert differs("request.required.acks", "4.2.0") is None  # -1 is all
    assert differs("batch.num.messages", "4.2.0") is None  # no Java key means the same
