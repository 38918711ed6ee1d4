"""kcliff.yaml's account of how each producer runs in production: its rate (what its latency is
measured at), how many instances send at once, and sample records of what it sends.

    producers:
      producers/orders.properties:     # a producer file's path relative to kcliff.yaml
        rate: 2000 records/s           # or '1.5 MB/s'
        instances: 4                   # producer processes at once (default 1)
        latency: {p99: 50 ms}          # what it tolerates at its rate (scenario/latency_budget.py)
        samples: samples/orders.jsonl  # real messages (default: kcliff's built-in JSON events)
        round_trip_ms: 20              # its round trip to the brokers (default 0: beside them)
    rates:                             # the shorthand for a rate alone
      producers/audit.properties: 0.5 MB/s

Each entry is checked twice: its text when the manifest is read, its producer path once the repo's
producer files are known (it must name one of them)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.errors import InputError, Problems
from kcliff.scenario import samples as sample_files
from kcliff.scenario import settings
from kcliff.scenario.latency_budget import LatencyBudget, parse_budget
from kcliff.scenario.rate import Rate, parse_rate

PRODUCTION_KEYS = ("rate", "instances", "samples", "latency", "round_trip_ms")
MAX_ROUND_TRIP_MS = 1000
MAX_INSTANCES = settings.MAX_PRODUCERS  # as a scenario's `producers`


@dataclass(frozen=True)
class Production:
    path: str  # the producer file, as discovery names it (the repo directory joined with the key)
    where: str  # kcliff.yaml
    line: int | None
    rate: Rate | None = None
    instances: int = 1
    samples: str | None = None  # a file of real messages (its path); None: the built-in JSON events
    instances_line: int | None = None  # where `instances` is written, to annotate a change of it
    samples_line: int | None = None
    latency: LatencyBudget | None = None  # the service's latency budget at its rate
    # where it runs: a worker in another site or region waits this long on every request, which an in-flight
    # limit turns into throughput (check adds it as --client-rtt-ms does); 0: beside the brokers
    round_trip_ms: float = 0.0


def _relative(key: Any, root: Path, where: str, line: int | None, what: str) -> str:
    if not isinstance(key, str) or Path(key).is_absolute() or ".." in Path(key).parts:
        raise InputError(f"{what} {key!r} must be a path relative to {where} (inside the repo, no '..')", where, line)
    return str(root / key)


def read_production(producers: Any, rates: Any, data: dict[str, Any], root: Path, where: str,
                    found: Problems) -> tuple[Production, ...]:
    """`producers:` and the `rates:` shorthand of the manifest `data`; each bad entry goes to `found` with its line."""
    read: dict[str, Production] = {}
    for key, raw, line in _entries(producers, "producers", data, where, found):
        with found.catch():
            path = _relative(key, root, where, line, "producers:")
            read[path] = _production(path, raw, root, where, line, found)
    for key, text, line in _entries(rates, "rates", data, where, found):
        try:
            path = _relative(key, root, where, line, "rates:")
            if path in read and read[path].rate is not None:
                raise InputError(f"rates: {key} has its rate under producers: already; give it once", where, line)
            rate = parse_rate(text)
        except InputError as exc:
            found.add(exc)
            continue
        except ValueError as exc:
            found.add(InputError(f"rates: {key}: {exc}", where, line))
            continue
        old = read.get(path)
        read[path] = Production(path, where, line, rate) if old is None else replace(old, rate=rate)
    return tuple(read.values())


def _entries(block: Any, name: str, data: dict[str, Any], where: str,
             found: Problems) -> list[tuple[Any, Any, int | None]]:
    """The (key, value, line) pairs of the mapping `name`; not a mapping is one error on its line."""
    if block is None:
        return []
    line = yamlio.key_line(data, name)
    if not isinstance(block, dict):
        example = "'producers/orders.properties: {rate: 2000 records/s, instances: 4}'" if name == "producers" \
            else "'producers/orders.properties: 2000 records/s'"
        found.add(InputError(f"'{name}' must map producer files to how they run, e.g. {example}", where, line))
        return []
    return [(key, value, yamlio.key_line(block, key) or line) for key, value in block.items()]


def _production(path: str, raw: Any, root: Path, where: str, line: int | None, found: Problems) -> Production:
    if not isinstance(raw, dict):
        raise InputError(f"producers: {path}: expected a mapping of {', '.join(PRODUCTION_KEYS)}", where, line)
    for key in raw:
        if key not in PRODUCTION_KEYS:
            found.add(InputError(f"producers: unknown key '{key}': expected one of {', '.join(PRODUCTION_KEYS)}",
                                 where, yamlio.key_line(raw, key) or line))
    rate, instances, samples = None, 1, None
    if "rate" in raw:
        try:
            rate = parse_rate(raw["rate"])
        except ValueError as exc:
            found.add(InputError(f"producers: rate: {exc}", where, yamlio.key_line(raw, "rate") or line))
    if "instances" in raw:
        value = raw["instances"]
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_INSTANCES:
            found.add(InputError(f"producers: instances must be a whole number of producer processes from 1 to "
                                 f"{MAX_INSTANCES}, got {value!r}", where, yamlio.key_line(raw, "instances") or line))
        else:
            instances = value
    if "samples" in raw:
        samples_line = yamlio.key_line(raw, "samples") or line
        try:
            samples = _relative(raw["samples"], root, where, samples_line, "samples:")
        except InputError as exc:
            found.add(exc)
        else:
            if not Path(samples).is_file():
                found.add(InputError(f"producers: samples: {raw['samples']} is not a file: expected a file of real "
                                     "messages, JSON lines or one message per line", where, samples_line))
                samples = None
            else:
                with found.catch():  # each bad line of the file, on its own line
                    sample_files.read(Path(samples), settings.MAX_RECORD_SIZE)
    latency = None
    if "latency" in raw:
        try:
            latency = parse_budget(raw["latency"])
        except ValueError as exc:
            found.add(InputError(f"producers: {exc}", where, yamlio.key_line(raw, "latency") or line))
    return Production(path, where, line, rate, instances, samples, yamlio.key_line(raw, "instances"),
                      yamlio.key_line(raw, "samples"), latency, _round_trip(raw, where, line, found))


def _round_trip(raw: dict[str, Any], where: str, line: int | None, found: Problems) -> float:
    value = raw.get("round_trip_ms", 0.0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_ROUND_TRIP_MS:
        found.add(InputError(f"producers: round_trip_ms must be milliseconds from 0 to {MAX_ROUND_TRIP_MS} (the "
                             f"producer's round trip to the brokers), got {value!r}", where,
                             yamlio.key_line(raw, "round_trip_ms") or line))
        return 0.0
    return float(value)


def unknown_producers(productions: tuple[Production, ...], producers: list[str]) -> list[InputError]:
    """An entry naming no producer file the repo holds, on its line, with the files that would do."""
    shown = ", ".join(producers) or "none found"
    return [InputError(f"{p.path} is not a producer file of this repo: expected one of {shown}", p.where, p.line)
            for p in productions if p.path not in producers]


def production_of(productions: tuple[Production, ...], producer: str | None) -> Production | None:
    return next((p for p in productions if p.path == producer), None)
