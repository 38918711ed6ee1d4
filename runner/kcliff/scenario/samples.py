"""A file of a service's real messages, one a line, read into the records kcliff sends (issue #29).

Two shapes, told apart by the first record line:
- JSON lines of `{"key": ..., "value": ...}` objects (`key` optional): a string value or key is sent as
  its UTF-8 text, any other JSON value as its compact JSON.
- plain text: each line is one message's value, as it is (no key). A `.jsonl`/`.ndjson` file of bare
  JSON documents is this shape too, but every line must then be valid JSON.
Blank lines are skipped. Every bad line is reported at once (up to MAX_PROBLEMS), naming file and line.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kcliff.errors import InputError, Problems

ENVELOPE_KEYS = frozenset({"key", "value"})
JSON_SUFFIXES = (".jsonl", ".ndjson")
MAX_FILE_BYTES = 64 * 2 ** 20  # both tools hold every sample in their producer JVM's heap (512 MB here)
MAX_PROBLEMS = 20  # a wrong file (a binary, a CSV) would otherwise be reported line by line


@dataclass(frozen=True)
class Record:
    key: bytes | None
    value: bytes
    line: int


class Shape(enum.Enum):
    ENVELOPE = "a {key, value} object"
    JSON = "a JSON document"
    TEXT = "plain text"


def read(path: Path, max_record: int) -> list[Record]:
    """The file's records; InputError(s) naming each bad line: not UTF-8, not valid JSON in a JSON-lines
    file, a shape other than the first record's, an empty or null value, a record over `max_record`
    bytes (key and value), or no record at all."""
    where = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read payload samples: {exc.strerror}", where) from None
    if len(raw) > MAX_FILE_BYTES:
        raise InputError(f"payload samples file is {len(raw):,} bytes; kcliff reads up to {MAX_FILE_BYTES:,} "
                         f"(both tools keep every sample in memory): keep a representative part", where)
    found = Problems()
    records: list[Record] = []
    first: Shape | None = None
    json_only = path.suffix.lower() in JSON_SUFFIXES
    for number, chunk in enumerate(raw.split(b"\n"), start=1):
        if len(found.found) >= MAX_PROBLEMS:
            found.add(InputError(f"stopped after {MAX_PROBLEMS} problems: is this a file of messages, one a line?",
                                 where, number))
            break
        chunk = chunk.removesuffix(b"\r")
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            found.add(InputError(f"not UTF-8 text (byte {exc.start} of the line): Kafka's perf tool reads payloads "
                                 f"as UTF-8", where, number))
            continue
        if not text.strip():
            continue
        shape, parsed, why = _shape(text)
        if first is None:
            first = shape
        if first is Shape.ENVELOPE and shape is not Shape.ENVELOPE:
            found.add(InputError(f"not valid JSON: {why}" if shape is Shape.TEXT else
                                 f"mixed shapes: the first record is {Shape.ENVELOPE.value}, this line is "
                                 f"{shape.value} (its keys must be key and value)", where, number))
            continue
        if first is not Shape.ENVELOPE and shape is Shape.ENVELOPE:
            found.add(InputError(f"mixed shapes: the first record is {first.value}, this line is "
                                 f"{Shape.ENVELOPE.value}: give every line as one or the other", where, number))
            continue
        if json_only and shape is Shape.TEXT:
            found.add(InputError(f"not valid JSON ({path.suffix} file): {why}", where, number))
            continue
        with found.catch():
            record = _envelope(parsed, where, number) if shape is Shape.ENVELOPE else Record(None, chunk, number)
            _check_size(record, max_record, where)
            records.append(record)
    if not records and not found:
        found.add(InputError("no records: expected one message a line, as plain text or as JSON lines of "
                             '{"key": ..., "value": ...}', where))
    found.raise_all()
    return records


def _shape(text: str) -> tuple[Shape, Any, str]:
    """What one line is, its parsed JSON (None for text), and why it is no JSON (for text)."""
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        return Shape.TEXT, None, f"{exc.msg} at column {exc.colno}"
    if isinstance(parsed, dict) and "value" in parsed and set(parsed) <= ENVELOPE_KEYS:
        return Shape.ENVELOPE, parsed, ""
    return Shape.JSON, parsed, ""


def _bytes(value: Any) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _envelope(parsed: dict[str, Any], where: str, number: int) -> Record:
    value = parsed["value"]
    if value is None:
        raise InputError("value is null (a tombstone): the perf tool cannot send one; give the message", where, number)
    key = parsed.get("key")
    return Record(None if key is None else _bytes(key), _bytes(value), number)


def _check_size(record: Record, max_record: int, where: str) -> None:
    if not record.value:
        raise InputError("empty value: every sample must be a message of at least one byte", where, record.line)
    size = len(record.value) + len(record.key or b"")
    if size > max_record:
        raise InputError(f"record of {size:,} bytes (key and value) is over {max_record:,}, the most one may be "
                         f"(max.request.size and message.max.bytes at their defaults)", where, record.line)
