"""Payload samples files: the records they hold, and every bad line refused at once with file and line."""

from pathlib import Path

import pytest
from kcliff.errors import InputError
from kcliff.scenario import samples

LIMIT = 1_000_000


def _read(tmp_path: Path, text: str | bytes, name: str = "s.txt") -> list[samples.Record]:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return samples.read(path, LIMIT)


def test_json_lines_keys_optional_strings_as_text_other_values_as_compact_json(tmp_path):
    got = _read(tmp_path, '{"key": "order-1", "value": {"id": 1, "total": "9.90"}}\n'
                          '\n'
                          '{"value": "plain \\u00e9 text"}\r\n'
                          '{"key": 42, "value": [1, 2]}\n')
    assert [(r.key, r.value, r.line) for r in got] == [
        (b"order-1", b'{"id":1,"total":"9.90"}', 1), (None, "plain é text".encode(), 3), (b"42", b"[1,2]", 4)]


def test_plain_text_is_one_value_a_line_as_it_is_bare_json_documents_too(tmp_path):
    got = _read(tmp_path, 'first message\n{"orderId": 7,  "x": 1}\n  indented\n')
    assert [(r.key, r.value) for r in got] == [(None, b"first message"), (None, b'{"orderId": 7,  "x": 1}'),
                                               (None, b"  indented")]


@pytest.mark.parametrize("name,text,line,needle", [
    ("empty file", "", None, "no records"),
    ("only blank lines", "\n  \n", None, "no records"),
    ("not json in a json-lines file", '{"value": 1}\n{"value": 2\n', 2, "not valid JSON"),
    ("an event among envelopes", '{"value": 1}\n{"id": 2}\n', 2, "mixed shapes"),
    ("an envelope among text", 'hello\n{"key": "k", "value": "v"}\n', 2, "mixed shapes"),
    ("a tombstone", '{"key": "k", "value": null}\n', 1, "null"),
    ("an empty value", '{"value": ""}\n', 1, "empty value"),
    ("not utf-8", b"ok\n\xff\xfe\n", 2, "not UTF-8"),
    ("text in a .jsonl file", '{"id": 1}\nnot json\n', 2, "not valid JSON (.jsonl file)"),
])
def test_a_bad_file_names_file_line_and_why(tmp_path, name, text, line, needle):
    path_name = "s.jsonl" if "jsonl" in name else "s.txt"
    with pytest.raises(InputError) as caught:
        _read(tmp_path, text, path_name)
    assert caught.value.path == str(tmp_path / path_name)
    assert caught.value.line == line, str(caught.value)
    assert needle in str(caught.value)


def test_an_over_size_record_counts_its_key_too(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text('{"key": "kk", "value": "' + "v" * 99 + '"}\n')
    with pytest.raises(InputError, match="record of 101 bytes .* over 100"):
        samples.read(path, 100)
    assert samples.read(path, 101)[0].key == b"kk"


def test_every_bad_line_is_reported_at_once_and_a_wrong_file_stops_after_enough(tmp_path):
    with pytest.raises(InputError) as caught:
        _read(tmp_path, '{"value": 1}\n{"value": 2\nfine?\n{"value": ""}\n')
    assert [p.line for p in caught.value.problems] == [2, 3, 4]
    with pytest.raises(InputError) as caught:
        _read(tmp_path, '{"value": 1}\n' + "nope\n" * 100)
    assert len(caught.value.problems) == samples.MAX_PROBLEMS + 1
    assert "stopped after" in caught.value.problems[-1].message
