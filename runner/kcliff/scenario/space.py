"""The settings space a pairwise suite covers: settings with their levels, constraints and seeded rows.

A space file (scenarios/space.yaml; its format is in docs/pairwise.md, "The space file") names
settings from kcliff's catalogue (scenario/settings.py) with the levels to cover and a reason for each,
optional constraints (partial rows no scenario may contain) and optional seeds (rows that must
appear as given). Every problem is an InputError naming the file and line.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.errors import InputError, Problems
from kcliff.scenario import settings

TOP_KEYS = ("description", "settings", "constraints", "seeds")
SETTING_KEYS = ("scope", "name", "short", "levels")
LEVEL_KEYS = ("value", "reason")
CONSTRAINT_KEYS = ("forbid", "reason")
SEED_KEYS = ("name", "reason", *settings.SCOPES)
SHORT_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]{0,30}$")

Cells = tuple[tuple[int, int], ...]  # ((setting index, level index), ...) sorted by setting index


@dataclass(frozen=True)
class Level:
    value: Any
    reason: str
    line: int | None = None


@dataclass(frozen=True)
class SpaceSetting:
    scope: str
    name: str
    short: str
    levels: tuple[Level, ...]
    line: int | None = None

    @property
    def label(self) -> str:
        return f"{self.scope} {self.name}"

    def values(self) -> list[Any]:
        return [level.value for level in self.levels]


@dataclass(frozen=True)
class Constraint:
    """One forbidden partial row (a `forbid:` with value lists becomes one Constraint per combination)."""

    cells: Cells
    reason: str
    line: int | None = None


@dataclass(frozen=True)
class Seed:
    name: str
    reason: str
    cells: Cells
    line: int | None = None


@dataclass(frozen=True)
class Space:
    path: str
    description: str
    settings: tuple[SpaceSetting, ...]
    constraints: tuple[Constraint, ...] = ()
    seeds: tuple[Seed, ...] = ()
    digest: str = ""  # sha256 of the file, so a generated suite can name the space it came from

    def index(self, scope: str, name: str) -> int | None:
        for i, s in enumerate(self.settings):
            if s.scope == scope and s.name == name:
                return i
        return None

    def describe(self, cells: Cells) -> str:
        """`scope name=value, ...` for messages."""
        return ", ".join(f"{self.settings[i].label}={self.settings[i].levels[v].value}" for i, v in cells)

    def allows(self, cells: Cells) -> bool:
        """Can some full row holding `cells` avoid every constraint? (Backtracking over the levels.)"""
        row: list[int | None] = [None] * len(self.settings)
        for i, v in cells:
            row[i] = v
        return self._extend(row, 0)

    def _extend(self, row: list[int | None], start: int) -> bool:
        if self._forbidden(row):
            return False
        free = next((i for i in range(start, len(row)) if row[i] is None), None)
        if free is None:
            return True
        for value in range(len(self.settings[free].levels)):
            row[free] = value
            if self._extend(row, free + 1):
                row[free] = None
                return True
        row[free] = None
        return False

    def _forbidden(self, row: list[int | None]) -> bool:
        return any(all(row[i] == v for i, v in c.cells) for c in self.constraints)


def load(path: str | Path) -> Space:
    path_s = str(path)
    raw_bytes = Path(path).read_bytes() if Path(path).is_file() else b""
    data = yamlio.load(path)
    if not isinstance(data, dict):
        raise InputError("a space file is a mapping with description, settings, constraints, seeds", path_s, 1)
    problems = Problems()
    for key in data:
        if key not in TOP_KEYS:
            problems.add(_error(f"unknown key '{key}': expected one of {', '.join(TOP_KEYS)}", path_s, data, key))
    problems.raise_all()
    description = data.get("description", "")
    if not isinstance(description, str):
        raise _error("description must be text", path_s, data, "description")
    if "settings" not in data:
        raise InputError("no 'settings:' list: a space needs at least two settings with levels", path_s, 1)
    found = _parse_settings(data["settings"], path_s, data)
    space = Space(path_s, description.strip(), found, digest=hashlib.sha256(raw_bytes).hexdigest())
    constraints = _parse_constraints(data.get("constraints"), space, data)
    space = Space(path_s, space.description, found, constraints, digest=space.digest)
    _check_satisfiable(space, data)
    seeds = _parse_seeds(data.get("seeds"), space, data)
    return Space(path_s, space.description, found, constraints, seeds, space.digest)


def plain(value: Any) -> Any:
    """ruamel's round-trip types (ScalarInt for 0, ScalarString, ...) as plain Python values."""
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return str(value)
    return value


def _error(message: str, path: str, node: Any, key: Any = None) -> InputError:
    line = yamlio.key_line(node, key) if key is not None else yamlio.node_line(node)
    return InputError(message, path, line)


def _text(raw: dict[str, Any], key: str, what: str, path: str, parent: Any, parent_key: Any) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        where = (raw, key) if key in raw else (parent, parent_key)
        raise _error(f"{what} needs a '{key}:' (a short sentence)", path, *where)
    return value.strip()


def _parse_settings(raw: Any, path: str, parent: Any) -> tuple[SpaceSetting, ...]:
    if not isinstance(raw, list) or len(raw) < 2:
        raise _error("'settings' must be a list of at least two settings, each with scope, name, levels",
                     path, parent, "settings")
    found: list[SpaceSetting] = []
    first_line: dict[tuple[str, str], int | None] = {}
    shorts: dict[str, int | None] = {}
    problems = Problems()  # every bad setting of the space, reported together
    for i, entry in enumerate(raw):
        with problems.catch():
            item = _parse_setting(entry, path, raw, i)
            if (item.scope, item.name) in first_line:
                raise InputError(f"duplicate setting {item.label} (first at line {first_line[item.scope, item.name]})",
                                 path, item.line)
            if item.short in shorts:
                raise _error(f"duplicate short label '{item.short}' (first at line {shorts[item.short]}); "
                             "give each setting its own 'short:'", path, entry, "short" if "short" in entry else "name")
            first_line[item.scope, item.name] = item.line
            shorts[item.short] = item.line
            found.append(item)
    problems.raise_all()
    return tuple(found)


def _parse_setting(entry: Any, path: str, parent: list[Any], index: int) -> SpaceSetting:
    if not isinstance(entry, dict):
        raise _error("each setting is a mapping with scope, name, short, levels", path, parent, index)
    for key in entry:
        if key not in SETTING_KEYS:
            raise _error(f"unknown key '{key}' in a setting: expected one of {', '.join(SETTING_KEYS)}",
                         path, entry, key)
    scope = entry.get("scope")
    if scope not in settings.SCOPES:
        where = (entry, "scope") if "scope" in entry else (parent, index)
        raise _error(f"setting scope must be one of {', '.join(settings.SCOPES)}, got {scope!r}", path, *where)
    name = entry.get("name")
    if not isinstance(name, str):
        where = (entry, "name") if "name" in entry else (parent, index)
        raise _error("setting needs a 'name:' from kcliff's settings catalogue", path, *where)
    if name in settings.INVARIANTS.get(scope, {}):
        raise _error(f"{scope} setting '{name}' is fixed by kcliff's invariants (acks=all, RF 3, "
                     "min.insync.replicas=2) and cannot be varied", path, entry, "name")
    known = settings.lookup(scope, name)
    if known is None:
        raise _error(f"unknown {scope} setting '{name}': {settings.suggest(scope, name)}", path, entry, "name")
    short = entry.get("short", name)
    if not isinstance(short, str) or not SHORT_PATTERN.match(short):
        raise _error(f"short label must match {SHORT_PATTERN.pattern}, got {short!r}", path, entry, "short")
    levels = _parse_levels(entry.get("levels"), known, path, entry)
    return SpaceSetting(scope, name, short, levels, yamlio.key_line(parent, index))


def _parse_levels(raw: Any, known: settings.Setting, path: str, entry: dict[str, Any]) -> tuple[Level, ...]:
    label = f"{known.scope} {known.name}"
    if "levels" not in entry:
        raise _error(f"{label} has no 'levels:' list", path, entry, "name")
    if not isinstance(raw, list) or not raw:
        raise _error(f"{label} has an empty level list: give at least two levels, each with value and reason",
                     path, entry, "levels")
    levels: list[Level] = []
    seen: dict[Any, int | None] = {}
    problems = Problems()  # every bad level, reported together
    for i, item in enumerate(raw):
        with problems.catch():
            line = yamlio.key_line(raw, i)
            if not isinstance(item, dict) or "value" not in item:
                raise InputError(f"{label}: each level is a mapping with value and reason, got {item!r}", path, line)
            for key in item:
                if key not in LEVEL_KEYS:
                    raise _error(f"unknown key '{key}' in a level: expected value, reason", path, item, key)
            value = plain(item["value"])
            problem = known.check(value)
            if problem:
                raise InputError(f"{label}: {problem}", path, line)
            marker = (type(value).__name__, value)
            if marker in seen:
                raise InputError(f"{label}: duplicate level {value!r} (first at line {seen[marker]})", path, line)
            seen[marker] = line
            reason = item.get("reason")
            if not isinstance(reason, str) or not reason.strip():
                raise InputError(f"{label}: level {value!r} needs a 'reason:' (why this level is worth running)",
                                 path, line)
            levels.append(Level(value, reason.strip(), line))
    problems.raise_all()
    if len(levels) < 2:
        raise _error(f"{label} has one level: a setting that does not vary belongs in every scenario, "
                     "not in the space; give at least two levels", path, entry, "levels")
    return tuple(levels)


def _assignment(raw: Any, space: Space, path: str, parent: Any, parent_key: Any, what: str,
                lists: bool, skip: tuple[str, ...] = ()) -> list[list[tuple[int, int]]]:
    """scope -> {name: value} (or a list of values when `lists`) as per-setting options of (setting, level).

    Keys in `skip` are the caller's own (a seed's name and reason)."""
    if not isinstance(raw, dict) or not [k for k in raw if k not in skip]:
        raise _error(f"{what} must map scopes ({', '.join(settings.SCOPES)}) to settings and values",
                     path, parent, parent_key)
    options: list[list[tuple[int, int]]] = []
    for scope, block in raw.items():
        if scope in skip:
            continue
        if scope not in settings.SCOPES:
            raise _error(f"{what}: unknown scope '{scope}': expected one of {', '.join(settings.SCOPES)}",
                         path, raw, scope)
        if not isinstance(block, dict) or not block:
            raise _error(f"{what}: '{scope}' must map setting names to values", path, raw, scope)
        for name, value in block.items():
            index = space.index(scope, str(name))
            if index is None:
                here = [s.name for s in space.settings if s.scope == scope]
                close = difflib.get_close_matches(str(name), here, n=1, cutoff=0.6)
                hint = f"did you mean '{close[0]}'?" if close else f"{scope} settings in this space: {', '.join(here) or 'none'}"
                raise _error(f"{what} names {scope} setting '{name}', which is not in the space: {hint}",
                             path, block, name)
            values = [plain(v) for v in (value if lists and isinstance(value, list) else [value])]
            if not values:
                raise _error(f"{what}: {scope} {name} has an empty value list", path, block, name)
            levels = space.settings[index].values()
            picked = []
            for v in values:
                matches = [li for li, lv in enumerate(levels) if type(lv) is type(v) and lv == v]
                if not matches:
                    raise _error(f"{what}: {v!r} is not a level of {scope} {name}: levels are "
                                 f"{', '.join(str(x) for x in levels)}", path, block, name)
                picked.append((index, matches[0]))
            options.append(picked)
    return options


def _parse_constraints(raw: Any, space: Space, parent: Any) -> tuple[Constraint, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _error("'constraints' must be a list of {forbid: ..., reason: ...}", space.path, parent, "constraints")
    found: list[Constraint] = []
    problems = Problems()  # every bad constraint, reported together
    for i, entry in enumerate(raw):
        with problems.catch():
            line = yamlio.key_line(raw, i)
            if not isinstance(entry, dict):
                raise InputError("each constraint is a mapping with forbid and reason", space.path, line)
            for key in entry:
                if key not in CONSTRAINT_KEYS:
                    raise _error(f"unknown key '{key}' in a constraint: expected forbid, reason", space.path,
                                 entry, key)
            if "forbid" not in entry:
                raise InputError("constraint needs a 'forbid:' mapping of scope -> {setting: value}", space.path, line)
            options = _assignment(entry["forbid"], space, space.path, entry, "forbid", "constraint", lists=True)
            if len({index for opts in options for index, _ in opts}) < 2:
                raise _error("a constraint on one setting only removes levels: delete those levels instead, "
                             "or forbid a combination of two or more settings", space.path, entry, "forbid")
            reason = _text(entry, "reason", "constraint", space.path, raw, i)
            for combo in itertools.product(*options):
                found.append(Constraint(tuple(sorted(combo)), reason, line))
    problems.raise_all()
    return tuple(found)


def _check_satisfiable(space: Space, data: Any) -> None:
    if not space.constraints:
        return
    lines = ", ".join(str(x) for x in sorted({c.line for c in space.constraints if c.line}))
    if not space.allows(()):
        raise _error(f"the constraints (lines {lines}) forbid every combination: no scenario is left",
                     space.path, data, "constraints")
    for i, s in enumerate(space.settings):
        for v, level in enumerate(s.levels):
            if not space.allows(((i, v),)):
                raise InputError(f"{s.label}={level.value} can appear in no allowed scenario: the constraints "
                                 f"(lines {lines}) rule out every row holding it", space.path, level.line)


def _parse_seeds(raw: Any, space: Space, parent: Any) -> tuple[Seed, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _error("'seeds' must be a list of rows, each with reason and broker/topic/producer values",
                     space.path, parent, "seeds")
    found: list[Seed] = []
    problems = Problems()  # every bad seed, reported together
    for i, entry in enumerate(raw):
        with problems.catch():
            line = yamlio.key_line(raw, i)
            if not isinstance(entry, dict):
                raise InputError("each seed is a mapping with name, reason and broker/topic/producer", space.path, line)
            for key in entry:
                if key not in SEED_KEYS:
                    raise _error(f"unknown key '{key}' in a seed: expected one of {', '.join(SEED_KEYS)}",
                                 space.path, entry, key)
            name = entry.get("name", f"seed-{i + 1}")
            if not isinstance(name, str) or not SHORT_PATTERN.match(name):
                raise _error(f"seed name must match {SHORT_PATTERN.pattern}, got {name!r}", space.path, entry, "name")
            reason = _text(entry, "reason", "seed", space.path, raw, i)
            options = _assignment(entry, space, space.path, raw, i, "seed", lists=False, skip=("name", "reason"))
            cells = tuple(sorted(opt[0] for opt in options))
            for c in space.constraints:
                if all(cell in cells for cell in c.cells):
                    raise InputError(f"seed '{name}' breaks the constraint at line {c.line} "
                                     f"({space.describe(c.cells)}: {c.reason})", space.path, line)
            if not space.allows(cells):
                raise InputError(f"seed '{name}' cannot be completed into a row the constraints allow", space.path,
                                 line)
            for other in found:
                if other.cells == cells:
                    raise InputError(f"seed '{name}' repeats seed '{other.name}' (line {other.line})", space.path, line)
                if other.name == name:
                    raise InputError(f"duplicate seed name '{name}' (first at line {other.line})", space.path, line)
            found.append(Seed(name, reason, cells, line))
    problems.raise_all()
    return tuple(found)
