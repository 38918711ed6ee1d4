"""Independent coverage check of a suite against a settings space.

Deliberately shares no code with the generator (covering.py, pairwise.py): it works on setting
values, not level numbers, and decides which tuples are required by plain enumeration instead of the
generator's backtracking, so a bug in one is unlikely to be repeated in the other.

A tuple (t settings, one value each) is required when some full row holding it breaks no
constraint. Only settings named in constraints can make a tuple impossible, so the check enumerates
the combinations of those settings alone and keeps the ones no constraint forbids.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kcliff.errors import InputError
from kcliff.scenario import settings
from kcliff.scenario import suites as scenario
from kcliff.scenario.space import Space

Key = tuple[str, str]  # (scope, setting name)
MAX_ENUMERATION = 2_000_000


@dataclass
class Report:
    strength: int
    rows: int
    required: int  # tuples the suite must cover
    missing: list[tuple[tuple[Key, Any], ...]] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # rows breaking a constraint
    invalid: list[str] = field(default_factory=list)  # values that are not levels, settings not in the space

    @property
    def ok(self) -> bool:
        return not (self.missing or self.broken or self.invalid)

    @property
    def covered_share(self) -> float:
        return 1.0 if not self.required else (self.required - len(self.missing)) / self.required


def format_tuple(cells: tuple[tuple[Key, Any], ...]) -> str:
    return " + ".join(f"{scope} {name}={settings.as_kafka_value(value)}" for (scope, name), value in cells)


def _plain(value: Any) -> Any:
    """YAML loaders may hand back int/str subclasses; compare as plain bool, int or str."""
    for kind in (bool, int, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def _same(a: Any, b: Any) -> bool:
    a, b = _plain(a), _plain(b)
    return type(a) is type(b) and a == b


def _forbidden_sets(space: Space) -> list[dict[Key, Any]]:
    out = []
    for c in space.constraints:
        out.append({(space.settings[i].scope, space.settings[i].name): space.settings[i].levels[v].value
                    for i, v in c.cells})
    return out


def _breaks(row: dict[Key, Any], forbid: dict[Key, Any]) -> bool:
    return all(k in row and _same(row[k], v) for k, v in forbid.items())


def _possible_partials(space: Space, values: dict[Key, list[Any]], forbids: list[dict[Key, Any]],
                       strength: int) -> set[tuple[tuple[Key, Any], ...]] | None:
    """Every assignment of at most `strength` constrained settings that some allowed row contains.
    None when nothing is constrained (every tuple is then possible)."""
    constrained = sorted(_constrained_keys(forbids))
    if not constrained:
        return None
    size = math.prod(len(values[k]) for k in constrained)
    if size > MAX_ENUMERATION:
        raise InputError(f"the constraints involve {len(constrained)} settings ({size} combinations); the "
                         f"checker enumerates at most {MAX_ENUMERATION}", space.path)
    possible: set[tuple[tuple[Key, Any], ...]] = set()
    for combo in itertools.product(*(values[k] for k in constrained)):
        row = dict(zip(constrained, combo))
        if any(_breaks(row, f) for f in forbids):
            continue
        items = tuple(zip(constrained, combo))
        for size_ in range(strength + 1):
            possible.update(itertools.combinations(items, size_))
    return possible


def required_tuples(space: Space, strength: int) -> list[tuple[tuple[Key, Any], ...]]:
    keys = [(s.scope, s.name) for s in space.settings]
    values = {(s.scope, s.name): s.values() for s in space.settings}
    forbids = _forbidden_sets(space)
    possible = _possible_partials(space, values, forbids, strength)
    constrained = _constrained_keys(forbids)
    required = []
    for combo in itertools.combinations(keys, strength):
        for chosen in itertools.product(*(values[k] for k in combo)):
            cells = tuple(zip(combo, chosen))
            if possible is not None:
                part = tuple(sorted(((k, v) for k, v in cells if k in constrained), key=lambda kv: kv[0]))
                if part not in possible:
                    continue
            required.append(cells)
    return required


def _constrained_keys(forbids: list[dict[Key, Any]]) -> set[Key]:
    return {k for f in forbids for k in f}


def _marker(value: Any) -> tuple[str, Any]:
    value = _plain(value)
    return (type(value).__name__, value)


def check_rows(space: Space, rows: list[tuple[str, dict[Key, Any]]], strength: int = 2) -> Report:
    """`rows` are (row id, {(scope, name): value}). Reports missing tuples, broken constraints, bad values."""
    if strength not in (2, 3):
        raise InputError(f"strength must be 2 or 3, got {strength}")
    if strength > len(space.settings):
        raise InputError(f"strength {strength} needs at least {strength} settings; the space has "
                         f"{len(space.settings)}", space.path)
    keys = [(s.scope, s.name) for s in space.settings]
    values = {(s.scope, s.name): s.values() for s in space.settings}
    report = Report(strength, len(rows), 0)
    forbids = _forbidden_sets(space)
    covered: set[tuple[tuple[Key, tuple[str, Any]], ...]] = set()
    for rid, row in rows:
        for key, value in row.items():
            known = settings.lookup(*key)
            problem = known.check(value) if known else f"unknown {key[0]} setting"
            if problem:
                report.invalid.append(f"{rid}: {key[0]} {key[1]}: {problem}")
            elif key not in values:
                report.invalid.append(f"{rid}: sets {key[0]} {key[1]}, which is not a setting of the space")
            elif not any(_same(value, v) for v in values[key]):
                levels = ", ".join(settings.as_kafka_value(v) for v in values[key])
                report.invalid.append(f"{rid}: {key[0]} {key[1]}={settings.as_kafka_value(value)} is not a "
                                      f"level (levels: {levels})")
        for key in keys:
            if key not in row:
                report.invalid.append(f"{rid}: does not set {key[0]} {key[1]}")
        for forbid, c in zip(forbids, space.constraints):
            if _breaks(row, forbid):
                report.broken.append(f"{rid}: breaks the constraint at {space.path}:{c.line} ({c.reason})")
        present = [k for k in keys if k in row]
        for combo in itertools.combinations(present, strength):
            covered.add(tuple((k, _marker(row[k])) for k in combo))
    required = required_tuples(space, strength)
    report.required = len(required)
    report.missing = [cells for cells in required
                      if tuple((k, _marker(v)) for k, v in cells) not in covered]
    return report


def rows_of_suite(path: str | Path) -> list[tuple[str, dict[Key, Any]]]:
    """A suite file's scenarios as (id, {(scope, name): value}); bad files raise InputError."""
    found = scenario.load_file(path)
    return [(sc.id, {(scope, name): value for scope in settings.SCOPES
                     for name, value in sc.settings_in(scope).items()}) for sc in found]


def check_file(space: Space, path: str | Path, strength: int = 2) -> Report:
    return check_rows(space, rows_of_suite(path), strength)
