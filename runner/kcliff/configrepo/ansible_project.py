"""Where an Ansible repo keeps a cluster's variables: its inventories and the group_vars/ and host_vars/
beside them, grouped into environments the way `ansible-playbook -i` runs them.

A file's project starts at the directory holding its group_vars/ or host_vars/ (an inventory file: its
own directory) and reaches up to the repo's usual roots: `inventories/<env>/` and `inventory/` sit
under the directory whose group_vars/ Ansible loads beside the playbook. Each `inventories/<env>/` is
an environment; inventory files in one directory are one environment when they share hosts (a split
inventory), separate ones otherwise (prod.yml and staging.yml beside shared group_vars/). Vars files
are found as Ansible finds them: `group_vars/<name>` (a directory of files, read in sorted order), else
`<name>.yml`, `.yaml`, `.json`: the first that exists, the others ignored. Nothing is read above a git
checkout's root or through a link leading out of the project.
"""

from __future__ import annotations

import configparser
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.configrepo.ansible_inventory import ALL, Inventory, is_yaml_inventory, looks_like_ini, read_ini, read_yaml
from kcliff.errors import InputError

VARS_DIRS = {"group_vars": "group", "host_vars": "host"}
VARS_SUFFIXES = ("", ".yml", ".yaml", ".json")
INVENTORY_SUFFIXES = ("", ".yml", ".yaml", ".json", ".ini")
NOT_INVENTORIES = {"ansible.cfg", "requirements.yml", "requirements.yaml", "galaxy.yml", "kcliff.yaml"}
VAULT_HEADER = "$ANSIBLE_VAULT;"


class Source(StrEnum):
    INVENTORY = "inventory"  # written in an inventory file
    VARS = "vars"  # written in a group_vars/ or host_vars/ file


@dataclass(frozen=True, eq=False)  # one place in one file: compared by identity (its value may be a mapping)
class Definition:
    """One place a variable is set for a group or a host."""

    var: str
    value: Any
    path: str
    line: int | None
    kind: str  # "group" | "host"
    name: str  # the group or host
    source: Source
    base: Path | None  # a vars file's base directory (its group_vars/ host_vars/ parent)
    seq: int  # its order within its source

    @property
    def label(self) -> str:
        if self.kind == "group":
            return ALL if self.name == ALL else f"group {self.name}"
        return f"host {self.name}"

    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass(frozen=True)
class VarsFile:
    """A group_vars/ or host_vars/ file: whose variables it holds and where Ansible puts it in order."""

    path: Path
    kind: str  # "group" | "host"
    name: str  # the group or host
    base: Path  # the directory holding group_vars/ and host_vars/
    seq: int  # its place among the entity's files (a directory's files in sorted order)


def _entity(name: str) -> str:
    """The group or host a group_vars/host_vars entry names: kafka_broker.yml is kafka_broker, and a file
    without a vars suffix (host_vars/kafka-1.example.com) is named whole."""
    stem, dot, suffix = name.rpartition(".")
    return stem if dot and f".{suffix}" in VARS_SUFFIXES else name


def vars_location(path: Path) -> tuple[str, str, Path] | None:
    """(kind, group or host name, base directory) when `path` lies in a group_vars/ or host_vars/ tree."""
    parts = path.parts
    for index in range(len(parts) - 2, -1, -1):
        if parts[index] in VARS_DIRS:
            base = Path(*parts[:index]) if index else Path(".")
            return VARS_DIRS[parts[index]], _entity(parts[index + 1]), base
    return None


def inside(path: Path, top: Path) -> bool:
    try:
        return path.resolve().is_relative_to(top.resolve())
    except (OSError, RuntimeError):
        return False


def _files(directory: Path, top: Path, recurse: bool) -> list[Path]:
    """A directory's files in sorted order (hidden ones and backups skipped), none leading out of `top`."""
    if not directory.is_dir() or not inside(directory, top):
        return []
    found: list[Path] = []
    for child in sorted(directory.iterdir()):
        if child.name.startswith(".") or child.name.endswith("~") or not inside(child, top):
            continue
        if child.is_dir() and recurse:
            found.extend(_files(child, top, True))
        elif child.is_file():
            found.append(child)
    return found


def vars_files(base: Path, top: Path) -> list[VarsFile]:
    """The files Ansible reads from base/group_vars and base/host_vars, each entity's in its order."""
    found: list[VarsFile] = []
    for folder, kind in VARS_DIRS.items():
        directory = base / folder
        if not directory.is_dir() or not inside(directory, top):
            continue
        names = sorted({_entity(p.name) for p in directory.iterdir() if not p.name.startswith(".")})
        for name in names:
            for suffix in VARS_SUFFIXES:  # the first that exists is read, as Ansible's find_vars_files does
                candidate = directory / f"{name}{suffix}"
                if candidate.exists() and inside(candidate, top):
                    paths = _files(candidate, top, True) if candidate.is_dir() else [candidate]
                    found.extend(VarsFile(p, kind, name, base, seq) for seq, p in enumerate(paths)
                                 if p.is_file() and (p == candidate or p.suffix in VARS_SUFFIXES))
                    break
    return found


def load_vars(path: Path) -> dict[Any, Any]:
    """A vars file's variables (YAML or JSON); an encrypted file reads as none (kcliff does not decrypt)."""
    text = yamlio.read_text(path)
    if text.lstrip().startswith(VAULT_HEADER):
        return {}
    data = yamlio.load(path) if text.strip() else None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError("an Ansible vars file must be a mapping of variable names to values", str(path), 1)
    return data


@dataclass
class Env:
    """One environment: the inventory files `ansible-playbook -i` is given and the vars bases it reads,
    lowest precedence first (beside the inventory, then beside the playbook)."""

    inventory_files: list[Path]
    bases: list[Path]
    inventory: Inventory = field(default_factory=Inventory)


def hash_merge(top: Path) -> tuple[str, int] | None:
    """Where ansible.cfg sets hash_behaviour = merge (dictionaries then merge instead of replacing)."""
    path = top / "ansible.cfg"
    if not path.is_file() or not inside(path, top):
        return None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except configparser.Error:
        return None
    if parser.get("defaults", "hash_behaviour", fallback="replace").strip().lower() != "merge":
        return None
    line = next((n for n, text in enumerate(path.read_text(errors="replace").splitlines(), 1) if "hash_behaviour" in text), 1)
    return str(path), line


def project_top(base: Path) -> Path:
    """The directory a vars base's project hangs from: inventories/<env>/ and inventory/ sit under it."""
    if (base / ".git").exists():
        return base
    if base.parent.name == "inventories" and not (base.parent / ".git").exists():
        return base.parent.parent
    if base.name in ("inventory", "inventories"):
        return base.parent
    return base


def _inventory_file(path: Path, inventory: Inventory, watched: frozenset[str]) -> bool:
    """Add `path` to `inventory` when it is a static inventory (or a dynamic one's configuration)."""
    if path.name in NOT_INVENTORIES or path.suffix.lower() not in INVENTORY_SUFFIXES:
        return False
    try:
        text = yamlio.read_text(path)
    except InputError:
        return False
    if path.suffix.lower() in ("", ".ini") and looks_like_ini(text):
        read_ini(inventory, path, text, watched)
        return True
    if path.suffix.lower() == ".ini":
        return False
    try:
        data = yamlio.load(path) if text.strip() else None
    except InputError:
        return False
    if isinstance(data, dict) and ("plugin" in data or is_yaml_inventory(data)):
        read_yaml(inventory, path, data, watched)
        return True
    return False


def _split(files: list[Path], bases: list[Path], watched: frozenset[str]) -> list[Env]:
    """Inventory files of one directory as environments: files sharing a host are one inventory."""
    envs: list[Env] = []
    for path in files:
        single = Inventory()
        if not _inventory_file(path, single, watched):
            continue
        env = next((e for e in envs if set(e.inventory.host_groups) & set(single.host_groups)
                    or not single.host_groups), None)
        if env is None:
            env = Env([], bases)
            envs.append(env)
        env.inventory_files.append(path)
        env.inventory.absorb(single)
    return envs


def environments(top: Path, watched: frozenset[str]) -> list[Env]:
    """Every environment of the project hanging from `top`."""
    inventories = top / "inventories"
    if inventories.is_dir():
        envs = [env for folder in sorted(p for p in inventories.iterdir() if p.is_dir() and not p.name.startswith("."))
                if inside(folder, top) for env in _split(_files(folder, top, False), [folder, top], watched)]
        if envs:
            return envs
    folder = top / "inventory"
    bases = [folder, top] if folder.is_dir() else [top]
    files = _files(top, top, False) + (_files(folder, top, True) if folder.is_dir() else [folder] if folder.is_file() else [])
    return _split([f for f in files if not set(f.parts) & set(VARS_DIRS)], bases, watched)


@dataclass
class Project:
    """Everything one Ansible project sets of the watched variables, and what could not be read."""

    top: Path
    envs: list[Env]
    definitions: list[Definition]
    vars_files: list[VarsFile]
    merge: tuple[str, int] | None  # where ansible.cfg sets hash_behaviour = merge
    problems: dict[str, InputError]  # resolved path -> why Ansible could not read that vars file


def _definitions(project: Project, watched: frozenset[str]) -> None:
    for env in project.envs:
        for site in env.inventory.sites:
            kind, name = ("group", site.group) if site.group is not None else ("host", site.host or "")
            project.definitions.append(Definition(site.var, site.value, site.path, site.line, kind, name,
                                                  Source.INVENTORY, None, site.seq))
    for vf in project.vars_files:
        try:
            data = load_vars(vf.path)
        except InputError as exc:
            project.problems[str(vf.path.resolve())] = exc
            continue
        for var, value in data.items():
            if var in watched:
                project.definitions.append(Definition(str(var), value, str(vf.path), yamlio.key_line(data, var),
                                                      vf.kind, vf.name, Source.VARS, vf.base, vf.seq))


def _signature(top: Path) -> tuple[tuple[str, int, int], ...]:
    """The project's files with their modification times and sizes: a changed file is read again."""
    files = _files(top, top, False) + _files(top / "inventory", top, True) + _files(top / "inventories", top, True)
    files += _files(top / "group_vars", top, True) + _files(top / "host_vars", top, True)
    stats = []
    for path in files:
        try:
            stat = path.stat()
        except OSError:
            continue
        stats.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(stats)


_CACHE: dict[tuple[str, frozenset[str], tuple[tuple[str, int, int], ...]], Project] = {}
_CACHE_SIZE = 8


def load_project(top: Path, base: Path, watched: frozenset[str]) -> Project:
    """The project hanging from `top`, with `base` (the vars base of the file being read) among its
    environments' vars bases; read once per state of its files, as each of its files is read in turn."""
    key = (str(top.resolve()) + "|" + str(base.resolve()), watched, _signature(top))
    if key in _CACHE:
        return _CACHE[key]
    envs = environments(top, watched)
    if not any(base in env.bases for env in envs):
        envs.append(Env([], [base] if base == top else [base, top]))
    bases = list(dict.fromkeys(b for env in envs for b in env.bases))
    project = Project(top, envs, [], [vf for b in bases for vf in vars_files(b, top)], hash_merge(top), {})
    _definitions(project, watched)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = project
    return project
