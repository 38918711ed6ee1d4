"""A scenario's payload (issue #29): random letters by default and then no trace in the settings hash;
json-events or a samples file otherwise, recorded by content and made into the files the tools read."""

import base64
import shutil
from pathlib import Path

import pytest
from kcliff.errors import InputError
from kcliff.scenario import payload_files
from kcliff.scenario.payload import JSON_EVENTS_MEDIAN, Payload, PayloadKind
from kcliff.scenario.suites import Scenario, load_file

KEYED = '{"key": "order-1", "value": {"id": 1}}\n{"value": "line one\\nline two"}\n'


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    # json-events are made into the machine's cache as a run makes them (2-3 s once); samples into the test's own
    monkeypatch.setenv("KCLIFF_CACHE", str(tmp_path / "cache"))


def _suite(tmp_path: Path, body: str) -> list[Scenario]:
    path = tmp_path / "suite.yaml"
    path.write_text(body)
    return load_file(path)


def test_constructors_as_the_config_repo_side_calls_them():
    assert Payload.random() == Payload() and Payload.random().is_random
    assert Payload.json_events().kind is PayloadKind.JSON_EVENTS
    assert Payload.samples("x.jsonl") == Payload(PayloadKind.SAMPLES, "x.jsonl")
    with pytest.raises(ValueError):
        Payload(PayloadKind.SAMPLES)
    with pytest.raises(ValueError):
        Payload(PayloadKind.RANDOM, "x")


def test_random_letters_leave_the_applied_settings_and_their_hash_as_they_were(tmp_path):
    (plain, said) = _suite(tmp_path, "scenarios:\n  - id: a\n  - id: b\n    payload: random\n")
    assert plain.payload == said.payload == Payload.random()
    assert "payload" not in plain.as_applied() and plain.as_applied()["record_size"] == 1024
    assert plain.settings_hash() == said.settings_hash() == Scenario("b", "").settings_hash()
    assert plain.prepared_payload() is None and plain.bytes_per_record() == 1024


def test_samples_are_found_beside_the_suite_file_and_recorded_by_content_never_path(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "orders.jsonl").write_text(KEYED)
    (sc,) = _suite(tmp_path, "id: s\npayload: {samples: data/orders.jsonl}\n")
    assert sc.payload == Payload.samples(str(tmp_path / "data" / "orders.jsonl"))
    applied = sc.as_applied()["payload"]
    assert applied["kind"] == "samples" and applied["records"] == 2 and applied["keyed"]
    assert applied["bytes"] == {"min": 8, "median": 12.5, "mean": 12.5, "max": 17}
    assert sc.bytes_per_record() == sc.as_applied()["record_size"] == 12
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.copy(tmp_path / "data" / "orders.jsonl", moved / "o.jsonl")
    (again,) = _suite(moved, "id: s\npayload: {samples: o.jsonl}\n")
    assert again.settings_hash() == sc.settings_hash()
    (moved / "o.jsonl").write_text(KEYED + '{"value": 3}\n')
    (changed,) = _suite(moved, "id: s\npayload: {samples: o.jsonl}\n")
    assert changed.settings_hash() != sc.settings_hash()


def test_the_files_both_tools_read_hold_the_same_values_and_the_keys_for_the_load_generator(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(KEYED)
    prepared = payload_files.prepare(Payload.samples(str(path)), 1024, 1_000_000)
    assert prepared is not None
    assert prepared.delimiter == "\x1e"  # a value holds a newline
    values = prepared.values_file.read_bytes().split(prepared.delimiter.encode())
    assert values == [b'{"id":1}', b"line one\nline two"]
    lines = prepared.records_file.read_bytes().splitlines()
    decoded = [[base64.b64decode(part) for part in line.split(b"\t")] for line in lines]
    assert decoded == [[b"order-1", b'{"id":1}'], [b"line one\nline two"]]


def test_files_staged_under_a_relative_workdir_are_named_by_absolute_paths(tmp_path, monkeypatch):
    """The compose backend mounts a tool's files at their absolute host paths and its container starts
    elsewhere: a relative --workdir (the step action's .kcliff-work) must not reach the tool's argv."""
    path = tmp_path / "s.jsonl"
    path.write_text(KEYED)
    prepared = payload_files.prepare(Payload.samples(str(path)), 1024, 1_000_000)
    assert prepared is not None
    monkeypatch.chdir(tmp_path)
    staged = prepared.staged(Path(".kcliff-work") / "runs" / "perf")
    assert staged.values_file.is_absolute() and staged.records_file.is_absolute()
    assert staged.values_file.read_bytes() == prepared.values_file.read_bytes()


def test_json_events_centre_on_their_median_unless_record_size_says(tmp_path, monkeypatch):
    monkeypatch.delenv("KCLIFF_CACHE")  # the machine's cache: made once, as a run makes it
    default, sized = _suite(tmp_path, "scenarios:\n  - id: e\n    payload: json-events\n"
                                      "  - id: f\n    payload: json-events\n    record_size: 1024\n")
    assert default.record_size == JSON_EVENTS_MEDIAN and sized.record_size == 1024
    applied = default.as_applied()
    assert applied["payload"]["kind"] == "json-events" and applied["payload"]["records"] == 10_000
    assert abs(applied["payload"]["bytes"]["median"] - JSON_EVENTS_MEDIAN) < 30
    assert applied["record_size"] == default.bytes_per_record() == round(applied["payload"]["bytes"]["mean"])
    assert default.settings_hash() != sized.settings_hash() != Scenario("e", "").settings_hash()
    prepared = default.prepared_payload()
    assert prepared is not None and prepared.delimiter == "\n"
    assert len(prepared.values_file.read_bytes().splitlines()) == 10_000


@pytest.mark.parametrize("text,line,needle", [
    ("id: a\npayload: letters\n", 2, "payload must be random, json-events or {samples: path"),
    ("id: a\npayload: {samples: 3}\n", 2, "payload must be"),
    ("id: a\npayload: {samples: x, other: y}\n", 2, "payload must be"),
    ("id: a\npayload: {samples: missing.txt}\n", 2, "payload samples file not found"),
    ("id: a\npayload: {samples: s.txt}\nrecord_size: 200\n", 3, "record_size does not apply to payload samples"),
    ("id: a\npayload: json-events\nrecord_size: 100\n", 3, "record_size must be a whole number of bytes the json-events"),
])
def test_a_bad_payload_names_the_scenario_file_and_line(tmp_path, text, line, needle):
    (tmp_path / "s.txt").write_text("one\ntwo\n")
    with pytest.raises(InputError) as caught:
        _suite(tmp_path, text)
    assert caught.value.path == str(tmp_path / "suite.yaml")
    assert caught.value.line == line, str(caught.value)
    assert needle in str(caught.value)


def test_a_bad_samples_file_is_refused_when_the_suite_is_read_naming_its_own_lines(tmp_path):
    (tmp_path / "s.jsonl").write_text('{"value": 1}\n{"value": \n')
    with pytest.raises(InputError) as caught:
        _suite(tmp_path, "scenarios:\n  - id: a\n    payload: {samples: s.jsonl}\n  - id: b\n    producers: 0\n")
    where = {(Path(p.path).name, p.line) for p in caught.value.problems}
    assert where == {("s.jsonl", 2), ("suite.yaml", 5)}
