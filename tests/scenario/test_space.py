"""Loading and validating settings space files: the committed one, and every kind of bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from kcliff.errors import InputError
from kcliff.scenario import settings, space

ROOT = Path(__file__).resolve().parents[2]

SMALL = """\
description: a small space for tests
settings:
  - scope: broker
    name: log.flush.interval.messages
    short: flush
    levels:
      - {value: 1, reason: fsync per message}
      - {value: 10000, reason: rare fsync}
  - scope: topic
    name: partitions
    levels:
      - {value: 3, reason: one per broker}
      - {value: 6, reason: two per broker}
      - {value: 12, reason: four per broker}
  - scope: producer
    name: linger.ms
    short: linger
    levels:
      - {value: 0, reason: send at once}
      - {value: 20, reason: batch up}
  - scope: producer
    name: compression.type
    short: compression
    levels:
      - {value: none, reason: default}
      - {value: lz4, reason: fast codec}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "space.yaml"
    path.write_text(text)
    return path


def load_error(tmp_path: Path, text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        space.load(write(tmp_path, text))
    return caught.value


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    seen = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not in text")


def test_committed_space_has_the_study_shape_and_reasons():
    loaded = space.load(ROOT / "scenarios" / "space.yaml")
    assert len(loaded.settings) == 10
    assert sorted(len(s.levels) for s in loaded.settings) == [3] * 6 + [4] * 4
    for s in loaded.settings:
        known = settings.lookup(s.scope, s.name)
        assert known is not None and known.apply != "restart", s.label  # no broker restarts
        assert all(level.reason and known.check(level.value) is None for level in s.levels)
    by_name = {s.name: s.values() for s in loaded.settings}
    assert by_name["batch.size"] == [16384, 65536, 262144, 1048576]
    assert by_name["linger.ms"] == [0, 5, 20, 100]
    assert by_name["log.flush.interval.messages"] == [1, 1000, 10000]
    assert by_name["max.in.flight.requests.per.connection"] == [1, 2, 5]
    assert by_name["num.network.threads"] == [2, 4, 8]
    assert [s.name for s in loaded.seeds] == ["study-best"]


def test_small_space_loads_with_constraints_and_seeds(tmp_path):
    text = SMALL + """\
constraints:
  - forbid:
      producer: {linger.ms: 0, compression.type: [none, lz4]}
      topic: {partitions: 12}
    reason: pointless
seeds:
  - name: prod
    reason: what production runs
    broker: {log.flush.interval.messages: 10000}
    producer: {linger.ms: 20}
"""
    loaded = space.load(write(tmp_path, text))
    assert [s.short for s in loaded.settings] == ["flush", "partitions", "linger", "compression"]
    assert len(loaded.constraints) == 2  # the value list expands to one forbidden row per value
    assert loaded.constraints[0].cells == ((1, 2), (2, 0), (3, 0))
    assert loaded.seeds[0].cells == ((0, 1), (2, 1))
    assert len(loaded.digest) == 64


@pytest.mark.parametrize("old,new,needle,message", [
    ("name: linger.ms", "name: linger.msec", "linger.msec", "did you mean 'linger.ms'"),
    ("name: partitions", "name: batch.size", "batch.size", "'batch.size' is a producer setting"),
    ("{value: 12, reason: four per broker}", "{value: 6, reason: again}", "value: 6, reason: again",
     "duplicate level 6 (first at line"),
    ("    levels:\n      - {value: 0, reason: send at once}\n      - {value: 20, reason: batch up}\n", "",
     "name: linger.ms", "linger.ms has no 'levels:'"),
    ("      - {value: 0, reason: send at once}\n      - {value: 20, reason: batch up}\n",
     "      - {value: 0, reason: only}\n", "levels:", "has one level"),
    ("{value: 20, reason: batch up}", "{value: -3, reason: negative}", "value: -3", "out of range"),
    ("{value: lz4, reason: fast codec}", "{value: lz5, reason: typo}", "value: lz5", "one of none, gzip"),
    ("{value: lz4, reason: fast codec}", "{value: lz4}", "value: lz4", "needs a 'reason:'"),
    ("name: compression.type", "name: acks", "name: acks", "fixed by kcliff's invariants"),
    ("scope: topic", "scope: client", "scope: client", "scope must be one of broker, topic, producer"),
])
def test_bad_settings_name_the_line(tmp_path, old, new, needle, message):
    assert old in SMALL
    text = SMALL.replace(old, new, 1)
    err = load_error(tmp_path, text)
    assert message in err.message
    occurrence = 3 if needle == "levels:" else 1
    assert err.line == line_of(text, needle, occurrence), (err.line, str(err))
    assert str(err).startswith(f"{tmp_path / 'space.yaml'}:{err.line}: ")


def test_empty_level_list(tmp_path):
    text = SMALL.replace("    short: linger\n    levels:\n      - {value: 0, reason: send at once}\n"
                         "      - {value: 20, reason: batch up}\n", "    short: linger\n    levels: []\n")
    err = load_error(tmp_path, text)
    assert "empty level list" in err.message and err.line == line_of(text, "levels: []")


def test_duplicate_setting(tmp_path):
    text = SMALL + """\
  - scope: producer
    name: linger.ms
    short: linger2
    levels: [{value: 1, reason: a}, {value: 2, reason: b}]
"""
    err = load_error(tmp_path, text)
    assert "duplicate setting producer linger.ms" in err.message and err.line == line_of(text, "name: linger.ms", 2) - 1


@pytest.mark.parametrize("constraint,needle,message", [
    ("producer: {linger.ms: 7, compression.type: lz4}", "linger.ms: 7",
     "7 is not a level of producer linger.ms: levels are 0, 20"),
    ("producer: {linger.ms: 0, batch.size: 16384}", "batch.size", "not in the space"),
    ("producer: {lingr.ms: 0, compression.type: lz4}", "lingr.ms", "did you mean 'linger.ms'"),
    ("producer: {linger.ms: 0}", "forbid:", "one setting only removes levels"),
    ("network: {linger.ms: 0}", "network", "unknown scope 'network'"),
])
def test_bad_constraints_name_the_line(tmp_path, constraint, needle, message):
    text = SMALL + f"constraints:\n  - forbid:\n      {constraint}\n    reason: test\n"
    err = load_error(tmp_path, text)
    assert message in err.message, err.message
    assert err.line == line_of(text, needle)


def test_constraints_that_forbid_everything(tmp_path):
    text = SMALL + """\
constraints:
  - forbid: {producer: {linger.ms: [0, 20], compression.type: [none, lz4]}}
    reason: nothing left
"""
    err = load_error(tmp_path, text)
    assert "forbid every combination" in err.message and err.line == line_of(text, "constraints:")


def test_constraints_that_kill_one_level(tmp_path):
    text = SMALL + """\
constraints:
  - forbid: {producer: {linger.ms: 0, compression.type: none}}
    reason: a
  - forbid: {producer: {linger.ms: 0, compression.type: lz4}}
    reason: b
"""
    err = load_error(tmp_path, text)
    assert "linger.ms=0 can appear in no allowed scenario" in err.message
    assert err.line == line_of(text, "value: 0, reason: send at once")


def test_seed_breaking_a_constraint(tmp_path):
    text = SMALL + """\
constraints:
  - forbid: {producer: {linger.ms: 0, compression.type: lz4}}
    reason: pointless
seeds:
  - name: prod
    reason: production
    producer: {linger.ms: 0, compression.type: lz4}
"""
    err = load_error(tmp_path, text)
    assert "seed 'prod' breaks the constraint at line" in err.message
    assert err.line == line_of(text, "- name: prod")


def test_seed_with_a_value_that_is_not_a_level(tmp_path):
    text = SMALL + "seeds:\n  - reason: production\n    topic: {partitions: 24}\n"
    err = load_error(tmp_path, text)
    assert "24 is not a level of topic partitions" in err.message and err.line == line_of(text, "partitions: 24")


@pytest.mark.parametrize("text,message", [
    ("settings: []\n", "at least two settings"),
    ("- a\n- b\n", "a space file is a mapping"),
    ("description: x\nsetting: []\n", "unknown key 'setting'"),
    ("description: x\n", "no 'settings:' list"),
])
def test_bad_top_level(tmp_path, text, message):
    assert message in load_error(tmp_path, text).message


def test_every_bad_level_of_every_setting_is_reported_at_once(tmp_path):
    text = (SMALL.replace("{value: 20, reason: batch up}", "{value: -5, reason: batch up}")
            .replace("{value: lz4, reason: fast codec}", "{value: brotli, reason: not a codec}")
            .replace("{value: 6, reason: two per broker}", "{value: 6}"))
    error = load_error(tmp_path, text)
    found = [(p.line, p.message) for p in error.problems]
    assert [line for line, _ in found] == [line_of(text, "value: 6}"), line_of(text, "value: -5"),
                                           line_of(text, "value: brotli")], found
    assert "needs a 'reason:'" in found[0][1] and "out of range" in found[1][1] and "brotli" in found[2][1]
