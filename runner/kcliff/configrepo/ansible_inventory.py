"""Ansible's static inventories as its own plugins read them: which hosts are in which groups (children
too), the groups' depth and priority, and where each watched variable is set in an inventory file.

YAML inventories (the `yaml` plugin: `all:` with `vars:`/`children:`/`hosts:`, or groups at the top
level, host patterns such as `kafka-[1:3].example.com`) give membership and variables with their
lines. INI inventories (`[kafka_broker]`, `[kafka_broker:children]`, `[kafka_broker:vars]`) give
membership; a watched variable written in one is only recorded by name and line (the caller notes it:
a dictionary fits an INI line only as a Python literal, so kcliff asks for it in YAML). A YAML file
holding `plugin:` is a dynamic inventory's configuration: its hosts are not knowable from the repo.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.errors import InputError

ALL = "all"
SECTIONS = ("vars", "children", "hosts")
_RANGE = re.compile(r"^(?P<head>.*?)\[(?P<range>[^\]]+)\](?P<tail>.*)$")
_PORT = re.compile(r"^(?P<host>[^:\[\]]+):(?P<port>\d+)$")


@dataclass(frozen=True)
class VarSite:
    """One place an inventory file sets a watched variable: the group or host entry it belongs to."""

    var: str
    value: Any  # the YAML node as loaded (a mapping, a scalar, a tagged scalar)
    path: str
    line: int | None
    group: str | None  # set for a group's `vars:`
    host: str | None  # set for a host's entry under `hosts:`
    seq: int  # order of appearance in the inventory, for Ansible's "later one wins"


@dataclass
class Inventory:
    """The groups and hosts of one environment's inventory files, merged as Ansible merges sources."""

    parents: dict[str, set[str]] = field(default_factory=lambda: {ALL: set()})  # group -> its parent groups
    host_groups: dict[str, set[str]] = field(default_factory=dict)  # host -> groups it is listed in
    priority: dict[str, int] = field(default_factory=dict)  # ansible_group_priority
    sites: list[VarSite] = field(default_factory=list)
    ini_sites: list[tuple[str, str, int]] = field(default_factory=list)  # (var, path, line) in INI files
    dynamic: list[str] = field(default_factory=list)  # plugin configurations: hosts unknown
    skipped: list[tuple[str, int | None, str]] = field(default_factory=list)  # what Ansible warns of and skips

    def absorb(self, other: Inventory) -> None:
        """Add another source's groups, hosts and variables after this one's, as Ansible loads sources."""
        for group, parents in other.parents.items():
            self.parents.setdefault(group, set()).update(parents)
        for host, groups in other.host_groups.items():
            self.host_groups.setdefault(host, set()).update(groups)
        self.priority.update(other.priority)
        self.sites.extend(replace(site, seq=len(self.sites) + index) for index, site in enumerate(other.sites))
        self.ini_sites.extend(other.ini_sites)
        self.dynamic.extend(other.dynamic)
        self.skipped.extend(other.skipped)

    def add_group(self, name: str, parent: str = ALL) -> None:
        self.parents.setdefault(name, set())
        if name != ALL and parent != name:
            self.parents[name].add(parent)

    def add_host(self, host: str, group: str) -> None:
        self.add_group(group)
        self.host_groups.setdefault(host, set()).add(group)

    def depth(self, group: str, seen: frozenset[str] = frozenset()) -> int:
        """Ansible's group depth: all is 0, a group one more than its deepest parent."""
        if group == ALL or group in seen:
            return 0
        return 1 + max((self.depth(p, seen | {group}) for p in self.parents.get(group) or {ALL}), default=0)

    def sort_key(self, group: str) -> tuple[int, int, str]:
        """The order Ansible combines a host's groups in (a later one wins): depth, priority, name."""
        return self.depth(group), self.priority.get(group, 1), group

    def ancestors(self, group: str) -> set[str]:
        found, todo = {group, ALL}, [group]
        while todo:
            for parent in self.parents.get(todo.pop(), set()):
                if parent not in found:
                    found.add(parent)
                    todo.append(parent)
        return found

    def groups_of(self, host: str) -> set[str]:
        return {g for listed in self.host_groups.get(host, set()) for g in self.ancestors(listed)}

    def members(self, group: str) -> list[str]:
        return sorted(h for h in self.host_groups if group in self.groups_of(h))


def expand_hosts(pattern: str) -> list[str]:
    """A host pattern as Ansible expands it: `kafka-[01:03]` is kafka-01 to kafka-03, `[a:c]` letters,
    `[1:9:2]` with a step; a trailing `:port` is dropped."""
    port = _PORT.match(pattern)
    if port:
        pattern = port["host"]
    match = _RANGE.match(pattern)
    if match is None:
        return [pattern]
    bounds = match["range"].split(":")
    if len(bounds) not in (2, 3):
        return [pattern]
    start, end, step = bounds[0], bounds[1], int(bounds[2]) if len(bounds) == 3 and bounds[2].isdigit() else 1
    if start.isdigit() and end.isdigit():
        width = len(start) if start.startswith("0") else 0
        items = [str(i).zfill(width) for i in range(int(start), int(end) + 1, max(step, 1))]
    elif len(start) == 1 and len(end) == 1 and start.isalpha() and end.isalpha():
        items = [chr(c) for c in range(ord(start), ord(end) + 1, max(step, 1))]
    else:
        return [pattern]
    return [f"{match['head']}{item}{tail}" for item in items for tail in expand_hosts(match["tail"])]


def is_yaml_inventory(data: Any) -> bool:
    """Whether a YAML document has the yaml plugin's shape: a mapping of groups, each empty or a mapping
    of vars/children/hosts, at least one group listing hosts or children."""
    if not isinstance(data, dict) or not data or "plugin" in data:
        return False
    groups = [g for g in data.values() if g is not None]
    return all(isinstance(g, dict) and set(g) <= set(SECTIONS) for g in groups) and \
        any("hosts" in g or "children" in g for g in groups)


class _YamlReader:
    """One YAML inventory file into an Inventory, as the yaml plugin walks it."""

    def __init__(self, inventory: Inventory, path: str, watched: frozenset[str]) -> None:
        self.inventory, self.path, self.watched = inventory, path, watched

    def group(self, name: str, data: Any, parent: str, line: int | None) -> None:
        inv = self.inventory
        if data is not None and not isinstance(data, dict):
            inv.skipped.append((self.path, line, f"group '{name}' is not a mapping of vars, children and hosts: "
                                                 "Ansible warns and skips it"))
            return
        inv.add_group(str(name), parent)
        if data is None:
            return
        for section in SECTIONS:
            value = data.get(section)
            if value is not None and not isinstance(value, (dict, str)):
                raise InputError(f'Invalid "{section}" entry for "{name}" group: Ansible requires a mapping',
                                 self.path, yamlio.key_line(data, section))
        for var, value in _mapping(data.get("vars")).items():
            self.site(str(var), value, yamlio.key_line(data["vars"], var), group=str(name))
            if var == "ansible_group_priority" and isinstance(value, int) and not isinstance(value, bool):
                inv.priority[str(name)] = value
        children = _mapping(data.get("children"))
        for child, child_data in children.items():
            self.group(str(child), child_data, str(name), yamlio.key_line(children, child))
        hosts = _mapping(data.get("hosts"))
        for pattern, host_vars in hosts.items():
            for host in expand_hosts(str(pattern)):
                inv.add_host(host, str(name))
                for var, value in _mapping(host_vars).items():
                    self.site(str(var), value, yamlio.key_line(host_vars, var), host=host)

    def site(self, var: str, value: Any, line: int | None, group: str | None = None, host: str | None = None) -> None:
        if var in self.watched:
            self.inventory.sites.append(VarSite(var, value, self.path, line, group, host, len(self.inventory.sites)))


def _mapping(value: Any) -> dict[Any, Any]:
    """A section as Ansible reads it: a mapping, nothing, or a lone name standing for {name: None}."""
    if isinstance(value, str):
        return {value: None}
    return value if isinstance(value, dict) else {}


def read_yaml(inventory: Inventory, path: Path, data: Any, watched: frozenset[str]) -> None:
    """Add a parsed YAML inventory file's groups, hosts and watched variables to `inventory`."""
    if isinstance(data, dict) and "plugin" in data:
        inventory.dynamic.append(str(path))
        return
    reader = _YamlReader(inventory, str(path), watched)
    for name, group in data.items():
        reader.group(str(name), group, ALL, yamlio.key_line(data, name))


_SECTION = re.compile(r"^\[(?P<name>[^\]:]+)(?::(?P<kind>\w+))?\]\s*$")


def looks_like_ini(text: str) -> bool:
    """An INI inventory's text: a `[group]` section header on a line of its own."""
    return any(_SECTION.match(line.strip()) for line in text.splitlines())


def read_ini(inventory: Inventory, path: Path, text: str, watched: frozenset[str]) -> None:
    """Add an INI inventory's groups and hosts to `inventory`; watched variables only by name and line."""
    group, kind = "ungrouped", "hosts"
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        section = _SECTION.match(line)
        if section:
            group, kind = section["name"], section["kind"] or "hosts"
            inventory.add_group(group)
            continue
        try:
            tokens = shlex.split(line, comments=True)
        except ValueError:
            tokens = line.split()
        if not tokens:
            continue
        if kind == "children":
            inventory.add_group(tokens[0], group)
            continue
        names = [t.split("=", 1)[0] for t in (tokens if kind == "vars" else tokens[1:]) if "=" in t]
        inventory.ini_sites.extend((name, str(path), number) for name in names if name in watched)
        if kind == "hosts":
            for host in expand_hosts(tokens[0]):
                inventory.add_host(host, group)
