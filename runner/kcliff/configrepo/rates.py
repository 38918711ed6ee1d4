"""kcliff.yaml's `rates:`: each producer's production rate, the rate its latency is measured at.

    rates:
      producers/orders.properties: 2000 records/s   # a path relative to kcliff.yaml
      producers/audit.properties: 0.5 MB/s

A rate is checked twice: its text when the manifest is read, its path once the repo's producer
files are known (it must name one of them)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.errors import InputError, Problems
from kcliff.scenario.rate import Rate, parse_rate


@dataclass(frozen=True)
class ProducerRate:
    path: str  # the producer file, as discovery names it (the repo directory joined with the key)
    rate: Rate
    where: str  # kcliff.yaml
    line: int | None


def read_rates(data: Any, line: int | None, root: Path, where: str, found: Problems) -> tuple[ProducerRate, ...]:
    """The `rates:` mapping (at `line` of the manifest `where`); each bad entry is added to `found` with its line."""
    if data is None:
        return ()
    if not isinstance(data, dict):
        found.add(InputError("'rates' must map producer files to their rates, e.g. "
                             "'producers/orders.properties: 2000 records/s'", where, line))
        return ()
    rates = []
    for key, text in data.items():
        line = yamlio.key_line(data, key) or line
        if not isinstance(key, str) or Path(key).is_absolute() or ".." in Path(key).parts:
            found.add(InputError(f"rates: {key!r} must be a producer file's path relative to {where} "
                                 "(inside the repo, no '..')", where, line))
            continue
        try:
            rates.append(ProducerRate(str(root / key), parse_rate(text), where, line))
        except ValueError as exc:
            found.add(InputError(f"rates: {key}: {exc}", where, line))
    return tuple(rates)


def unknown_producers(rates: tuple[ProducerRate, ...], producers: list[str]) -> list[InputError]:
    """A rate naming no producer file the repo holds, on its line, with the files that would do."""
    shown = ", ".join(producers) or "none found"
    return [InputError(f"rates: {r.path} is not a producer file of this repo: expected one of {shown}", r.where,
                       r.line) for r in rates if r.path not in producers]


def rate_of(rates: tuple[ProducerRate, ...], producer: str | None) -> Rate | None:
    return next((r.rate for r in rates if r.path == producer), None)
