"""From a settings space to a committed suite file: build the covering array, order it, write YAML.

The YAML is written here by hand, not by a YAML dumper, because the file must be byte-identical
whenever the inputs are: every scalar it writes is an integer, a boolean or a catalogue enum name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any, Sequence

from kcliff.errors import InputError
from kcliff.pairwise import covering
from kcliff.scenario import settings
from kcliff.scenario.space import Space
from kcliff.scenario.suites import parse_scenario

ID_PREFIX = {2: "pw", 3: "pw3"}
_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9._-]*$")
_YAML_WORDS = {"null", "true", "false", "yes", "no", "on", "off", "y", "n"}


@dataclass
class Generated:
    space: Space
    strength: int
    seed: int
    rows: list[tuple[int, ...]]  # level indices, in suite order
    seed_of_row: dict[int, str]  # suite row -> seed name
    result: covering.Result


def model_of(space: Space) -> covering.Model:
    return covering.Model(
        levels=tuple(len(s.levels) for s in space.settings),
        forbids=tuple(c.cells for c in space.constraints),
        seeds=tuple(s.cells for s in space.seeds),
    )


def generate(space: Space, strength: int = 2, seed: int = 1, max_steps: int = covering.DEFAULT_MAX_STEPS,
             stall_steps: int = covering.DEFAULT_STALL_STEPS) -> Generated:
    if strength > len(space.settings):
        raise InputError(f"strength {strength} needs at least {strength} settings; the space has "
                         f"{len(space.settings)}", space.path)
    result = covering.generate(model_of(space), strength, seed, max_steps=max_steps, stall_steps=stall_steps)
    order = broker_friendly_order(space, result.rows)
    seed_rows = {result.seed_rows[i]: s.name for i, s in enumerate(space.seeds)}
    rows = [result.rows[i] for i in order]
    seed_of_row = {new: seed_rows[old] for new, old in enumerate(order) if old in seed_rows}
    return Generated(space, strength, seed, rows, seed_of_row, result)


def broker_friendly_order(space: Space, rows: Sequence[tuple[int, ...]]) -> list[int]:
    """Row indices in run order: starting from Kafka's defaults, always the row whose broker settings
    differ in the fewest places from the previous one (then the lowest row), so rows sharing broker
    settings run back to back and a run makes fewer dynamic broker changes."""
    broker = [i for i, s in enumerate(space.settings) if s.scope == "broker"]
    current: tuple[Any, ...] = tuple(settings.require("broker", space.settings[i].name).default for i in broker)
    left = sorted(range(len(rows)), key=lambda r: rows[r])
    order: list[int] = []
    while left:
        def distance(r: int) -> int:
            values = [space.settings[i].levels[rows[r][i]].value for i in broker]
            return sum(a != b for a, b in zip(values, current))
        nxt = min(left, key=distance)  # min keeps the first of equals: `left` is sorted by levels
        left.remove(nxt)
        order.append(nxt)
        current = tuple(space.settings[i].levels[rows[nxt][i]].value for i in broker)
    return order


def short_value(value: Any) -> str:
    """16384 -> 16K, 1073741824 -> 1G; other values as Kafka writes them."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1024:
        for unit, size in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
            if value % size == 0:
                return f"{value // size}{unit}"
    return settings.as_kafka_value(value)


def describe_row(space: Space, row: Sequence[int]) -> str:
    return " ".join(f"{s.short}={short_value(s.levels[v].value)}" for s, v in zip(space.settings, row))


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    return text if _PLAIN.match(text) and text.lower() not in _YAML_WORDS else json.dumps(text)


def render(gen: Generated, command: str) -> str:
    space, rows = gen.space, gen.rows
    width = max(2, len(str(len(rows))))
    prefix = ID_PREFIX[gen.strength]
    what = "pair" if gen.strength == 2 else "triple"
    bound = covering.lower_bound([len(s.levels) for s in space.settings], gen.strength)
    start = (f"allpairspy alone: {gen.result.allpairspy_rows}" if gen.result.allpairspy_rows is not None
             else f"greedy start: {gen.result.start_rows}")
    lines = [
        "# GENERATED FILE - do not edit by hand: change the space and regenerate.",
        f"# From: {space.path} (sha256 {space.digest[:12]}), strength {gen.strength}, seed {gen.seed},",
        f"#       kcliff covering search with allpairspy {version('allpairspy')} as the start ({start} rows).",
        f"# Regenerate: {command}",
        f"# Check:      kcliff scenarios check <this file> --space {space.path} --strength {gen.strength}",
        f"# Every allowed {what} of levels of the {len(space.settings)} settings appears in {len(rows)} "
        f"scenarios (lower bound {bound}).",
        "# Rows are ordered so consecutive scenarios change few broker settings.",
        f"description: {_scalar(f'Every {what} of levels in {space.path} ({len(rows)} scenarios)')}",
        "scenarios:",
    ]
    for n, row in enumerate(rows, start=1):
        desc = describe_row(space, row)
        if n - 1 in gen.seed_of_row:
            desc += f" (seed {gen.seed_of_row[n - 1]})"
        lines.append(f"  - id: {prefix}-{n:0{width}d}")
        lines.append(f"    description: {_scalar(desc)}")
        for scope in settings.SCOPES:
            cells = [(s.name, s.levels[v].value) for s, v in zip(space.settings, row) if s.scope == scope]
            if cells:
                lines.append(f"    {scope}:")
                lines.extend(f"      {name}: {_scalar(value)}" for name, value in cells)
    return "\n".join(lines) + "\n"


def validate_rows(gen: Generated) -> None:
    """Each row must also pass scenario validation (combination rules live there, not in the space)."""
    for n, row in enumerate(gen.rows, start=1):
        raw: dict[str, Any] = {"id": f"row-{n}", "description": ""}
        for s, v in zip(gen.space.settings, row):
            raw.setdefault(s.scope, {})[s.name] = s.levels[v].value
        try:
            parse_scenario(raw, gen.space.path)
        except InputError as exc:
            raise InputError(f"generated row {describe_row(gen.space, row)} is not a valid scenario: "
                             f"{exc.message}; add a constraint to the space to rule it out", gen.space.path) from None
