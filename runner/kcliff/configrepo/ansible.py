"""cp-ansible repos: the Kafka settings Confluent's Ansible collection writes into the brokers'
server.properties, read from the inventories, group_vars/ and host_vars/ that set them.

A YAML file is one of these by where it is and what it says: a file under group_vars/ or host_vars/
(extension .yml, .yaml, .json or none), or an inventory (a mapping of groups with `hosts:` or
`children:` mappings), that sets one of cp-ansible's variables kcliff reads by name
(`kafka_broker_custom_properties`, `confluent_package_version` ...; configrepo/ansible_cp.py). Other
Ansible repos never use those names, so their files are not taken for Kafka's.

Each definition is weighed against the others the way Ansible's variable precedence does
(configrepo/ansible_precedence.py): a host_vars/ dictionary replaces the group's on that host, a
group_vars/kafka_broker.yml one replaces group_vars/all.yml's, so a definition that no broker gets is
noted and not read, and each key is read on the line that the brokers get it from. Which hosts are
brokers comes from the inventory's kafka_broker group; without one (a dynamic inventory) kcliff
assumes every broker is in all and kafka_broker, and says so.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from kcliff import yamlio
from kcliff.configrepo import ansible_cp as cp
from kcliff.configrepo.ansible_inventory import ALL, Inventory
from kcliff.configrepo.ansible_precedence import Layered, applicable, in_env, layered
from kcliff.configrepo.ansible_project import (Definition, Env, Project, inside, load_project, project_top,
                                               vars_location)
from kcliff.configrepo.model import Note, ReadResult
from kcliff.configrepo.reading import ResourceReading
from kcliff.errors import InputError

ROLE = "kafka_broker"  # the inventory group cp-ansible installs and configures brokers on
SNIFFED = (cp.PROPERTIES, "kafka_controller_custom_properties", cp.VERSION, cp.SERVER, cp.BROKER_RF, cp.DEFAULT_RF)
WATCHED = frozenset((*cp.READ, *cp.OTHERS))
_NAMES = re.compile(r"^[ \t]*[\"']?(?:" + "|".join(SNIFFED) + r")[\"']?[ \t]*:", re.MULTILINE)
_GROUPS = re.compile(r"^[ \t]+(?:hosts|children):[ \t]*(?:#.*)?$", re.MULTILINE)
# Substrings every sniffed name holds: a plain `in` test rules out almost every file before any regex.
_SNIPPETS = ("_custom_properties", "confluent_", "internal_replication_factor")
NOT_VARS = (".md", ".txt", ".rst", ".j2", ".sh", ".py", ".cfg", ".ini", ".orig", ".bak", ".swp", ".retry")


def _inventory_text(text: str) -> bool:
    """An inventory's text: a mapping (not a playbook's list) with a group's hosts or children below it."""
    first = next((line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
                  and line.strip() != "---"), "")
    return not first.startswith("-") and _GROUPS.search(text) is not None


def holds_settings(path: Path) -> bool:
    """Whether a file sets cp-ansible variables kcliff reads: a group_vars/host_vars file or a YAML
    inventory naming one of them (a text check; nothing is parsed)."""
    location = vars_location(path)
    if location is None and path.suffix.lower() not in (".yml", ".yaml"):
        return False
    if location is not None and (path.suffix.lower() in NOT_VARS or not inside(path, project_top(location[2]))):
        return False
    try:
        text = yamlio.read_text(path)
    except InputError:
        return False
    if not any(snippet in text for snippet in _SNIPPETS):
        return False
    return _NAMES.search(text) is not None and (location is not None or _inventory_text(text))


class _Reach:
    """Which broker hosts each definition reaches, and what each broker gets, across the environments."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.defs = {var: [d for d in project.definitions if d.var == var] for var in cp.READ}
        self.hosts: dict[str, tuple[Env, Inventory, str]] = {}
        self.assumed: list[Env] = []
        for env in project.envs:
            inventory = env.inventory
            if not inventory.members(ROLE):
                inventory = self._assumed(env)
                self.assumed.append(env)
            for host in inventory.members(ROLE):
                key = host if len(project.envs) == 1 else f"{host} ({_env_name(env, project.top)})"
                self.hosts[key] = (env, inventory, host)
        self._chains: dict[tuple[str, str], list[Definition]] = {}

    def _assumed(self, env: Env) -> Inventory:
        """Without an inventory of the brokers: every broker in all and kafka_broker, the hosts of another
        group_vars group among them (as a child of kafka_broker), and each host_vars host a broker."""
        inventory = Inventory()
        inventory.add_host(f"every {ROLE} host", ROLE)
        mine = [d for d in self.project.definitions if in_env(d, env)]
        for group in sorted({d.name for d in mine if d.kind == "group"} - {ALL, ROLE}):
            inventory.add_group(group, ROLE)
            inventory.add_host(f"a host of group {group}", group)
        for host in sorted({d.name for d in mine if d.kind == "host"}):
            inventory.add_host(host, ROLE)
        return inventory

    def chain(self, var: str, key: str) -> list[Definition]:
        if (var, key) not in self._chains:
            env, inventory, host = self.hosts[key]
            self._chains[var, key] = applicable(self.defs.get(var, []), env, inventory, host)
        return self._chains[var, key]

    def hosts_of(self, d: Definition) -> list[str]:
        return [k for k in self.hosts if d in self.chain(d.var, k)]

    def winners(self, var: str) -> dict[str, Definition]:
        return {k: chain[-1] for k in self.hosts if (chain := self.chain(var, k))}

    def layers(self, var: str) -> dict[str, Layered]:
        return {k: layered(self.chain(var, k), self.project.merge is not None, cp.mapping) for k in self.hosts}

    def top(self, var: str, key: str) -> Definition | None:
        chain = self.chain(var, key)
        return chain[-1] if chain else None

    def peers(self, key: str) -> list[str]:
        return [k for k, (env, _, _) in self.hosts.items() if env is self.hosts[key][0]]

    def broker_count(self, key: str) -> int | None:
        return None if self.hosts[key][0] in self.assumed else len(self.peers(key))


def _env_name(env: Env, top: Path) -> str:
    """An environment as messages name it: its inventory files (relative to the project), else its vars base."""
    if not env.inventory_files:
        return str(env.bases[0])
    return ", ".join(str(f.relative_to(top)) if f.is_relative_to(top) else str(f) for f in env.inventory_files)


def _owner(project: Project) -> Path | None:
    """The file that reports what concerns the whole project (one of its files kcliff reads by itself)."""
    files = [vf.path for vf in project.vars_files] + [f for env in project.envs for f in env.inventory_files]
    found = sorted(str(f.resolve()) for f in files if holds_settings(f))
    return Path(found[0]) if found else None


def _project_notes(project: Project, reach: _Reach, out: ResourceReading) -> None:
    if project.merge:
        out.notes.append(Note(*project.merge, "hash_behaviour = merge: a dictionary set at several levels (all, "
                                              "a group, a host) merges key by key, the higher level winning each key"))
    for env in reach.assumed:
        out.note(None, f"no inventory listing the {ROLE} group's hosts was found for {_env_name(env, project.top)} "
                       "(a dynamic inventory, or one kcliff does not find): kcliff assumes every broker is in groups "
                       f"all and {ROLE}, another group_vars group's hosts are brokers too, and each host_vars host is one")
    for env in project.envs:
        out.notes.extend(Note(path, None, "a dynamic inventory's configuration: its hosts are not in the repo")
                         for path in env.inventory.dynamic)
        out.notes.extend(Note(path, line, message) for path, line, message in env.inventory.skipped)
        out.notes.extend(Note(path, line, f"{var} is set in an INI inventory, where a dictionary fits only as a "
                                          "Python literal on one line: kcliff reads INI inventories for their hosts "
                                          "and groups only; set it in group_vars/ or host_vars/ YAML to have it read")
                         for var, path, line in env.inventory.ini_sites)
    for d in project.definitions:  # other components' settings in files kcliff does not read by themselves
        if d.var in cp.OTHERS and not holds_settings(Path(d.path)):
            out.notes.append(Note(d.path, d.line, _other(d)))
    if reach.hosts and not reach.winners(cp.VERSION):
        out.note(None, f"{cp.VERSION} is not set for the brokers: cp-ansible installs the Confluent Platform release "
                       "it ships with, which the repo does not say; kcliff reads it at its default Kafka release")
    for path, problem in sorted(project.problems.items()):
        if not holds_settings(Path(path)):
            out.problems.append(problem)


def _other(d: Definition) -> str:
    return f"{d.var} configures {cp.OTHERS[d.var]}, not the brokers kcliff measures; not read"


HANDLERS: dict[str, Callable[[Definition, cp.Reaching, ResourceReading], None]] = {
    cp.PROPERTIES: cp.broker_properties, cp.VERSION: cp.version, cp.SERVER: cp.server,
    cp.BROKER_RF: cp.replication, cp.DEFAULT_RF: cp.replication}


class AnsibleReader:
    format = "ansible"
    roles = ("ansible",)

    def read(self, path: Path, role: str) -> ReadResult:
        out = ResourceReading(str(path))
        location = vars_location(path)
        base = location[2] if location else path.parent
        project = load_project(project_top(base), base, WATCHED)
        here = path.resolve()
        if location is None and all(f.resolve() != here for env in project.envs for f in env.inventory_files):
            raise InputError("not an Ansible inventory (a mapping of groups with hosts:, children: and vars:) nor a "
                             "group_vars/ or host_vars/ file: kcliff reads cp-ansible's variables from those", str(path))
        if location is not None and all(vf.path.resolve() != here for vf in project.vars_files):
            out.note(None, f"Ansible does not read this file: of group_vars/{location[1]}/, {location[1]}.yml, .yaml "
                           "and .json it reads the first that exists")
            return out.result()
        if (problem := project.problems.get(str(here))) is not None:
            raise InputError(problem.message, str(path), problem.line)
        reach = _Reach(project)
        if _owner(project) == here:
            _project_notes(project, reach, out)
        for d in (d for d in project.definitions if Path(d.path).resolve() == here):
            if d.var in HANDLERS:
                HANDLERS[d.var](d, reach, out)
            else:
                out.note(d.line, _other(d))
        return out.result()
