"""Which definition of an Ansible variable a host gets, in Ansible's order of precedence (lowest first):

    1  the inventory file's group vars: all, then the host's groups by depth, ansible_group_priority, name
    2  group_vars/all files (beside the inventory, then beside the playbook)
    3  group_vars/<group> files, the host's groups in the same order
    4  the inventory file's host vars (each appearance, in order)
    5  host_vars/<host> files

A dictionary set at several of them is replaced by the highest one whole (Ansible's default
hash_behaviour); with `hash_behaviour = merge` in ansible.cfg the keys merge, the higher one winning
each key. A value that is not a dictionary (a Jinja expression, a vault-encrypted string) replaces
whatever is below it either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from kcliff.configrepo.ansible_inventory import ALL, Inventory
from kcliff.configrepo.ansible_project import Definition, Env, Source


def order(d: Definition, env: Env, inv: Inventory) -> tuple[Any, ...]:
    """Where `d` stands in Ansible's precedence for this environment (a later one wins)."""
    if d.source is Source.INVENTORY:
        return (1, *inv.sort_key(d.name), d.seq) if d.kind == "group" else (4, d.seq)
    adjacency = env.bases.index(d.base) if d.base in env.bases else 0
    if d.kind == "host":
        return (5, adjacency, d.seq)
    return (2, adjacency, d.seq) if d.name == ALL else (3, adjacency, *inv.sort_key(d.name), d.seq)


def in_env(d: Definition, env: Env) -> bool:
    if d.source is Source.INVENTORY:
        return Path(d.path) in env.inventory_files
    return d.base in env.bases


def applicable(defs: list[Definition], env: Env, inv: Inventory, host: str) -> list[Definition]:
    """The definitions reaching `host` in this environment, lowest precedence first."""
    groups = inv.groups_of(host)
    found = [d for d in defs if in_env(d, env) and ((d.kind == "group" and d.name in groups) or
                                                     (d.kind == "host" and d.name == host))]
    return sorted(found, key=lambda d: order(d, env, inv))


@dataclass
class Layered:
    """A dictionary variable on one host: each key with the definition that sets it, or the definition
    whose value is not a literal dictionary and so stands for all of it; and, when a higher one replaced
    lower ones whole, those lower definitions."""

    keys: dict[str, Definition] = field(default_factory=dict)
    whole: Definition | None = None
    replaced: list[Definition] = field(default_factory=list)


def layered(defs: list[Definition], merge: bool, mapping: Callable[[Definition], dict[str, Any] | None]) -> Layered:
    """The keys a host gets of a dictionary variable defined by `defs` (lowest first); `mapping` gives a
    definition's literal dictionary, or None when it is not one."""
    out = Layered()
    for d in defs:
        items = mapping(d)
        if items is None:
            out = Layered(whole=d, replaced=[x for x in defs if x is not d and defs.index(x) < defs.index(d)])
            continue
        if not merge or out.whole is not None:
            below = [x for x in defs[: defs.index(d)]]
            out = Layered(replaced=below)
        out.keys.update({key: d for key in items})
    return out
