"""A payload made into the files both tools read, once, cached by content under
$KCLIFF_CACHE/payloads/ (docs/measurements.md, "Payloads"):

- the perf tool's `--payload-file`: the values, one after another with a delimiter (`\\n` unless a
  value holds one). Kafka's tool sends values only: it has no key option.
- the load generator's `--payload-file`: a line per record, the value in base64, or the key and the
  value in base64 separated by a tab. So both send the very same value bytes, and the load generator
  the keys too.

Random letters need no file: the tools make them (`--record-size`).
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import os
import shutil
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kcliff.errors import InputError
from kcliff.kafka import dist
from kcliff.scenario import json_events, samples
from kcliff.scenario.payload import Payload, PayloadKind

VALUES, RECORDS, EVENTS = "values.txt", "records.b64", "events.jsonl"
# delimiters the perf tool's payload file can take: it splits on a regex, and these match only themselves
DELIMITERS = ("\n", "\x1e", "\x1f", "\x1d", "\x1c")


@dataclass(frozen=True)
class PreparedPayload:
    """A payload's files and what its records are: `sha256` of its source file (the samples file as
    given, or the generated events' JSON lines), and the sizes of the values the tools send."""

    kind: PayloadKind
    sha256: str
    records: int
    keyed: bool  # some records have a key (the load generator sends it; the perf tool cannot)
    min_bytes: int
    median_bytes: float
    mean_bytes: float
    max_bytes: int
    values_file: Path
    delimiter: str
    records_file: Path

    def staged(self, directory: Path) -> PreparedPayload:
        """The same payload with its files in `directory` (hard links where it can, else copies), where
        the tools' properties files are: the compose backend mounts a tool's files at their host paths,
        and the cache is often in a home the image's user cannot enter (docs/compose.md). Absolute: a
        container starts in its own working directory, so a relative --workdir's path would miss the mount."""
        target = directory.resolve() / "payloads"
        target.mkdir(parents=True, exist_ok=True)
        return dataclasses.replace(self, values_file=_linked(self.values_file, target / f"{self.sha256[:16]}-values"),
                                   records_file=_linked(self.records_file, target / f"{self.sha256[:16]}-records"))

    def applied(self) -> dict[str, Any]:
        """What a scenario's applied settings say of it: content, never a path, so its hash follows the bytes."""
        return {"kind": self.kind.value, "sha256": self.sha256, "records": self.records, "keyed": self.keyed,
                "bytes": {"min": self.min_bytes, "median": self.median_bytes, "mean": round(self.mean_bytes, 1),
                          "max": self.max_bytes}}


def payloads_dir() -> Path:
    return dist.cache_dir() / "payloads"


def prepare(payload: Payload, record_size: int, max_record: int) -> PreparedPayload | None:
    """The payload's files and figures (None for random letters). A samples file is read and checked
    every time its content may have changed (InputErrors naming its bad lines); json-events are made
    once per generator source and median."""
    if payload.kind is PayloadKind.RANDOM:
        return None
    if payload.kind is PayloadKind.JSON_EVENTS:
        return _events(payloads_dir(), record_size, _generator_key(record_size))
    assert payload.path is not None  # Payload's own check
    path = Path(payload.path)
    try:
        stat = path.stat()
    except OSError as exc:
        raise InputError(f"cannot read payload samples: {exc.strerror}", str(path)) from None
    return _samples(payloads_dir(), path.resolve(), stat.st_size, stat.st_mtime_ns, max_record)


def _generator_key(median: int) -> str:
    """Names the generated files by the generator's own source and its arguments: an edit to it makes new ones."""
    source = Path(json_events.__file__).read_bytes()
    return hashlib.sha256(source + f"\0{median}\0{json_events.SEED}".encode()).hexdigest()[:16]


@functools.lru_cache(maxsize=8)
def _events(root: Path, median: int, key: str) -> PreparedPayload:
    directory = root / f"json-events-{key}"
    if not (directory / ".complete").exists():
        events = json_events.generate(median)
        _write(directory, {EVENTS: b"\n".join(events) + b"\n",
                           RECORDS: b"".join(base64.b64encode(e) + b"\n" for e in events)})
    data = (directory / EVENTS).read_bytes()
    values = data.rstrip(b"\n").split(b"\n")
    return _prepared(PayloadKind.JSON_EVENTS, hashlib.sha256(data).hexdigest(), values, False,
                     directory / EVENTS, "\n", directory / RECORDS)


@functools.lru_cache(maxsize=8)
def _samples(root: Path, path: Path, size: int, mtime_ns: int, max_record: int) -> PreparedPayload:
    """`size` and `mtime_ns` key the cache only: a file changed since is read again."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    records = samples.read(path, max_record)
    values = [r.value for r in records]
    delimiter = next((d for d in DELIMITERS if not any(d.encode() in v for v in values)), None)
    if delimiter is None:
        raise InputError("every delimiter the perf tool's payload file could use (newline, ASCII 28-31) occurs in "
                         "some message", str(path))
    directory = root / f"samples-{digest[:16]}"
    if not (directory / ".complete").exists():
        _write(directory, {VALUES: delimiter.encode().join(values),
                           RECORDS: b"".join(_loadgen_line(r) for r in records)})
    return _prepared(PayloadKind.SAMPLES, digest, values, any(r.key is not None for r in records),
                     directory / VALUES, delimiter, directory / RECORDS)


def _loadgen_line(record: samples.Record) -> bytes:
    value = base64.b64encode(record.value)
    return (value if record.key is None else base64.b64encode(record.key) + b"\t" + value) + b"\n"


def _prepared(kind: PayloadKind, digest: str, values: list[bytes], keyed: bool, values_file: Path, delimiter: str,
              records_file: Path) -> PreparedPayload:
    sizes = [len(v) for v in values]
    return PreparedPayload(kind, digest, len(values), keyed, min(sizes), statistics.median(sizes),
                           statistics.fmean(sizes), max(sizes), values_file, delimiter, records_file)


def _linked(source: Path, target: Path) -> Path:
    if not target.exists():
        staging = target.with_name(f".{target.name}.{os.getpid()}")
        try:
            os.link(source, staging)
        except OSError:  # another filesystem
            shutil.copyfile(source, staging)
        os.replace(staging, target)
    return target


def _write(directory: Path, files: dict[str, bytes]) -> None:
    """The files into `directory`, whole or not at all: another kcliff may be writing the same ones."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory.parent, prefix=".payload-") as tmp:
        staged = Path(tmp) / "out"
        staged.mkdir()
        for name, data in files.items():
            (staged / name).write_bytes(data)
        (staged / ".complete").touch()
        try:
            os.replace(staged, directory)
        except OSError:
            if not (directory / ".complete").exists():  # not another kcliff's copy of the same files
                raise
