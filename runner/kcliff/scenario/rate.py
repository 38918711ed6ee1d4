"""A production rate: how fast a service's producer sends, in records/s or MB/s, as a config repo's
kcliff.yaml gives it. Latency is measured at this rate (issue #28), not flat out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

# MB as Kafka's perf tools count it (MB/sec = bytes / 1024 / 1024), so a rate reads like kcliff's throughput.
BYTES_PER_MB = 1024 * 1024
VALID_FORMS = "a positive number with a unit, e.g. '2000 records/s' or '1.5 MB/s'"
_RATE = re.compile(r"^\s*(?P<value>\d+(?:\.\d+)?|\.\d+)\s*(?P<unit>records/s|MB/s)\s*$")


class RateUnit(StrEnum):
    RECORDS_PER_S = "records/s"
    MB_PER_S = "MB/s"


@dataclass(frozen=True)
class Rate:
    value: float
    unit: RateUnit

    def records_per_s(self, record_size: int) -> float:
        """This rate in records/s of `record_size`-byte records."""
        if self.unit is RateUnit.RECORDS_PER_S:
            return self.value
        return self.value * BYTES_PER_MB / record_size

    def __str__(self) -> str:
        return f"{self.value:g} {self.unit}"


def parse_rate(text: object) -> Rate:
    """A rate from its text ('2000 records/s', '1.5 MB/s'); ValueError naming the valid forms."""
    found = _RATE.match(text) if isinstance(text, str) else None
    if found is None:
        raise ValueError(f"rate {text!r}: expected {VALID_FORMS}")
    value = float(found["value"])
    if value <= 0:
        raise ValueError(f"rate {text!r}: expected {VALID_FORMS}; a rate of 0 sends nothing")
    return Rate(value, RateUnit(found["unit"]))
