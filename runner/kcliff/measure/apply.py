"""Bring the running cluster's dynamic broker settings to what a scenario asks, and prove it.

Changes are made per broker without a restart. Thread pools only accept half..double of their
current size per change, so they are stepped. Every change is read back from every broker before
measuring: a silently rejected change would make a scenario measure the wrong thing.
"""

from __future__ import annotations

import time
from typing import Any, Callable, TypeVar

from kcliff.backends.admin import Admin
from kcliff.errors import ClusterError
from kcliff.scenario import settings

READBACK_TIMEOUT_S = 30.0
T = TypeVar("T")


def steps(current: int, target: int) -> list[int]:
    """Values to pass through from `current` to `target`, each within half..double of the last."""
    out = []
    value = current
    while value != target:
        value = min(value * 2, target) if target > value else max((value + 1) // 2, target)
        out.append(value)
    return out


class BrokerState:
    """What kcliff has set dynamically on the brokers, so the next scenario changes only the difference
    and `restore` puts back what was there before kcliff started."""

    def __init__(self, admin: Admin, node_ids: list[int]) -> None:
        self.admin = admin
        self.node_ids = node_ids
        self.original = {n: self._settled_overrides(n) for n in node_ids}
        # Effective values before kcliff changed anything: what a removed override falls back to. Not
        # for a name some broker already overrides dynamically (a cluster a crashed run or its operator
        # left so): removing it falls back to a static value no admin call shows, so it is not checked.
        self.initial: dict[str, str | None] = admin.broker_config(node_ids[0])
        for values in self.original.values():
            for name in values:
                self.initial[name] = None
        self.applied: dict[str, Any] = {}

    def _settled_overrides(self, node: int) -> dict[str, str]:
        """`node`'s dynamic overrides, read until two readings agree. While a broker applies a change,
        describe can pair the new override's source with the old value (seen in 25 of 5928 reads
        taken during changes), and restore would then put back a value nobody set."""
        last: list[dict[str, str]] = []

        def read() -> dict[str, str]:
            last.append(self.admin.broker_dynamic(node))
            return last[-1]

        done, seen = read_until(read, lambda seen: len(last) > 1 and last[-2] == seen)
        if not done:
            raise ClusterError(f"broker {node}: its dynamic overrides kept changing for "
                               f"{READBACK_TIMEOUT_S:.0f}s; last read {seen}")
        return seen

    def apply(self, wanted: dict[str, Any]) -> None:
        """Make the dynamic broker settings exactly `wanted` (others back to their defaults)."""
        for name in sorted(set(self.applied) | set(wanted)):
            if self.applied.get(name) == wanted.get(name) and name in wanted:
                continue
            setting = settings.require("broker", name)
            if setting.apply == "stepped":
                initial = int(self.initial.get(name) or setting.default)
                self._step(name, int(self.applied.get(name, initial)), int(wanted.get(name, initial)))
            self._set(name, wanted.get(name))  # None removes the override

    def _step(self, name: str, current: int, target: int) -> None:
        for value in steps(current, target)[:-1]:
            self._set(name, value)

    def _set(self, name: str, value: Any) -> None:
        text = None if value is None else settings.as_kafka_value(value)
        self.admin.alter_broker_configs(self.node_ids, {name: text})
        expected = text if text is not None else self.initial.get(name)
        self._read_back(name, expected)
        if value is None:
            self.applied.pop(name, None)
        else:
            self.applied[name] = value

    def _read_back(self, name: str, expected: str | None) -> None:
        done, seen = read_until(lambda: {n: self.admin.broker_config(n).get(name) for n in self.node_ids},
                           lambda seen: expected is None or all(v == expected for v in seen.values()))
        if not done:
            raise ClusterError(f"broker setting {name}: expected {expected} on every broker, read back {seen}")

    def restore(self) -> None:
        """Undo kcliff's changes: defaults first (stepping thread pools), then the original values."""
        self.apply({})
        for node, values in self.original.items():
            if values:
                self.admin.alter_broker_configs([node], dict(values))
                self._wait_for_dynamic(node, values)

    def _wait_for_dynamic(self, node: int, values: dict[str, str]) -> None:
        """Until `node` reports `values` as its own overrides (brokers apply changes asynchronously)."""
        done, seen = read_until(lambda: self.admin.broker_dynamic(node),
                           lambda seen: all(seen.get(k) == v for k, v in values.items()))
        if not done:
            raise ClusterError(f"broker {node}: could not put back {values}; it reports {seen}")


def read_until(read: Callable[[], T], done: Callable[[T], bool]) -> tuple[bool, T]:
    """Read every 0.3 s until `done` accepts the reading or READBACK_TIMEOUT_S pass; whether it did,
    and the last reading."""
    deadline = time.monotonic() + READBACK_TIMEOUT_S
    while True:
        seen = read()
        if done(seen):
            return True, seen
        if time.monotonic() >= deadline:
            return False, seen
        time.sleep(0.3)

