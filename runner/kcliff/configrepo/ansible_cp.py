"""What cp-ansible (Confluent's Ansible collection) makes of the inventory variables kcliff reads, one
definition at a time, once precedence has said which hosts it reaches (configrepo/ansible.py):

    kafka_broker_custom_properties   each key a line of the brokers' server.properties, written by
                                     cp-ansible's template as `{{key}}={{value}}` (so YAML true is True)
    confluent_package_version        the Confluent Platform release -> the Kafka release it ships
    confluent_server_enabled         false: the community confluent-kafka package (noted)
    kafka_broker_default_internal_replication_factor, default_internal_replication_factor
                                     -> offsets.topic.replication.factor, transaction.state.log.
                                     replication.factor and transaction.state.log.min.isr (min 2),
                                     unless kafka_broker_custom_properties sets them

Values Ansible would template (`{{ }}`, `{% %}`) or decrypt (`!vault`) are noted, not guessed.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from kcliff import yamlio
from kcliff.configrepo.ansible_precedence import Layered
from kcliff.configrepo.ansible_project import Definition
from kcliff.configrepo.cfk import kafka_of_platform
from kcliff.configrepo.model import Note, NoteLevel, RawEntry, Resource
from kcliff.configrepo.reading import ResourceReading
from kcliff.configrepo.version_file import newest_patch

PROPERTIES = "kafka_broker_custom_properties"
VERSION = "confluent_package_version"
SERVER = "confluent_server_enabled"
BROKER_RF = "kafka_broker_default_internal_replication_factor"
DEFAULT_RF = "default_internal_replication_factor"
# cp-ansible's other components' settings: read by those, never by the brokers kcliff measures.
OTHERS = {
    "kafka_controller_custom_properties": "the KRaft controllers (cp-ansible's kafka_controller group)",
    "zookeeper_custom_properties": "ZooKeeper",
    "kafka_broker_custom_client_properties": "the brokers' own admin client (client.properties for the CLI tools)",
    "kafka_connect_custom_properties": "the Kafka Connect workers", "kafka_rest_custom_properties": "the REST Proxy",
    "schema_registry_custom_properties": "Schema Registry", "ksql_custom_properties": "ksqlDB",
    "control_center_next_gen_custom_properties": "Control Center", "control_center_custom_properties": "Control Center",
    "kafka_connect_replicator_custom_properties": "Replicator",
    "kafka_connect_replicator_consumer_custom_properties": "Replicator's consumer",
    "kafka_connect_replicator_producer_custom_properties": "Replicator's producer",
}
READ = (PROPERTIES, VERSION, SERVER, BROKER_RF, DEFAULT_RF)
# The internal topics' settings cp-ansible derives from the replication factor variables.
DERIVED = ("offsets.topic.replication.factor", "transaction.state.log.replication.factor",
           "transaction.state.log.min.isr")
# Keys that are each broker's own: their values are meant to differ between brokers.
PER_BROKER = ("broker.id", "node.id", "broker.rack", "listeners", "advertised.listeners")
_TEMPLATE = re.compile(r"\{\{|\{%|\{#")
YAML_TAGS = "tag:yaml.org,2002:"
# YAML 1.1's booleans, which Ansible's loader (PyYAML) reads as true/false and kcliff's (YAML 1.2) as text.
YAML11_BOOLS = {**dict.fromkeys(("yes", "Yes", "YES", "on", "On", "ON"), "True"),
                **dict.fromkeys(("no", "No", "NO", "off", "Off", "OFF"), "False")}


class Reaching(Protocol):
    """What precedence says of a variable (configrepo/ansible.py's reading of the project)."""

    def hosts_of(self, d: Definition) -> list[str]: ...  # broker hosts it reaches

    def winners(self, var: str) -> dict[str, Definition]: ...  # broker host -> the definition it gets

    def layers(self, var: str) -> dict[str, Layered]: ...  # broker host -> a dictionary's keys

    def top(self, var: str, host: str) -> Definition | None: ...  # what that host gets of var

    def peers(self, host: str) -> list[str]: ...  # the broker hosts of that host's environment

    def broker_count(self, host: str) -> int | None: ...  # brokers in that host's environment, if known


def opaque(value: Any) -> str | None:
    """Why Ansible would not hand `value` over as written (templating, vault), or None for a literal."""
    tag = getattr(value, "tag", None)
    if tag is not None and hasattr(value, "value") and not isinstance(value, (dict, list)):
        name = str(getattr(tag, "value", tag))
        if name == "!unsafe" or name.startswith(YAML_TAGS):  # !unsafe is not templated; !!str is plain YAML
            return None
        return "vault-encrypted (!vault): kcliff does not decrypt it" if name == "!vault" else \
            f"tagged {name}: kcliff does not read it"
    if isinstance(value, str) and _TEMPLATE.search(value):
        return f"a Jinja expression ({value.strip()}): not a literal; kcliff does not guess it"
    return None


def plain(value: Any) -> Any:
    """A literal as Python sees it (an !unsafe string's text)."""
    return value.value if getattr(value, "tag", None) is not None and hasattr(value, "value") and \
        not isinstance(value, (dict, list)) else value


def rendered(value: Any, path: str | None = None, line: int | None = None) -> str:
    """A value as cp-ansible's template writes it into server.properties: Jinja's str() of what Ansible
    loaded (an unquoted `yes` on `path`:`line` is YAML 1.1's true, so True)."""
    text = str(plain(value))
    if text in YAML11_BOOLS and path and line and not _quoted(path, line):
        return YAML11_BOOLS[text]
    return text


def _quoted(path: str, line: int) -> bool:
    """Whether the value written on that line (after its key's colon) is quoted."""
    lines = yamlio.read_text(path).splitlines()
    value = lines[line - 1].split(":", 1)[-1].strip() if line <= len(lines) else ""
    return value[:1] in ("'", '"')


def mapping(d: Definition) -> dict[str, Any] | None:
    """A custom-properties definition's literal dictionary (key -> value node), else None."""
    return {str(k): v for k, v in d.value.items()} if isinstance(d.value, dict) else None


def _key_line(d: Definition, key: str) -> int | None:
    node = d.value
    original = next((k for k in node if str(k) == key), key) if isinstance(node, dict) else key
    return yamlio.key_line(node, original) or d.line


def _elsewhere(defs: list[Definition]) -> str:
    return ", ".join(sorted({f"{d.label} at {d.where()}" for d in defs}))


def broker_properties(d: Definition, reach: Reaching, out: ResourceReading) -> None:
    """One kafka_broker_custom_properties definition: its keys that reach a broker, each on its line."""
    label = f"{PROPERTIES} ({d.label})"
    out.resources.append(Resource(label, d.line))
    hosts = reach.hosts_of(d)
    if why := opaque(d.value):
        out.note(d.line, f"{label} is {why}")
        return
    if not hosts:
        out.note(d.line, f"{label} reaches no kafka_broker host in the inventories kcliff read; not read")
        return
    layers = reach.layers(PROPERTIES)
    items = mapping(d)
    if items is None:  # refused only where a broker gets it: a higher definition replaces it elsewhere
        if any(layers[h].whole is d for h in hosts):
            out.problem(f"{label} must be a mapping of Kafka keys to values, got {plain(d.value)!r}: cp-ansible's "
                        "combine() refuses it", d.line)
        else:
            out.note(d.line, f"{label} is overridden on every broker it reaches; not read")
        return
    overridden = []
    for key, value in items.items():
        line = _key_line(d, key)
        won = [h for h in hosts if layers[h].keys.get(key) is d]
        if not won:
            overridden.append(key)
        elif why := opaque(value) or opaque(key):
            out.note(line, f"{label}: '{key}' is {why}")
        elif isinstance(plain(value), (dict, list)):
            kind = "list" if isinstance(plain(value), list) else "mapping"
            out.problem(f"{label}: '{key}' is a YAML {kind}: cp-ansible's template writes "
                        f"it as {rendered(value)}, which is not the text Kafka reads; write it as one string "
                        "(a comma-separated list for a list)", line)
        else:
            out.entries.append(RawEntry("broker", key, rendered(value, d.path, line), out.path, line, resource=label))
            _differs(d, key, won, reach, layers, out, line)
    if overridden:
        by = [layers[h].keys.get(k) or reach.top(PROPERTIES, h) for h in hosts for k in overridden]
        out.note(d.line, f"{label}: {', '.join(overridden)} overridden on every broker it reaches (by "
                         f"{_elsewhere([x for x in by if x is not None and x is not d])}); not read")
    _replaced(d, label, hosts, layers, out)


def _differs(d: Definition, key: str, won: list[str], reach: Reaching, layers: dict[str, Layered],
             out: ResourceReading, line: int | None) -> None:
    """A note when the brokers of one cluster run other values of this key (kcliff measures one broker
    config); keys that are each broker's own (broker.rack, listeners) are expected to differ."""
    if key in PER_BROKER or key.startswith("listener.name."):
        return
    mine = rendered((mapping(d) or {})[key])
    other: dict[str, list[str]] = {}
    for host in sorted({p for h in won for p in reach.peers(h)}):
        winner = layers[host].keys.get(key)
        if winner is not None and (value := rendered((mapping(winner) or {})[key])) != mine:
            other.setdefault(value, []).append(f"{host} ({winner.path}:{_key_line(winner, key)})")
    if other:
        rest = "; ".join(f"{value} on {', '.join(where)}" for value, where in sorted(other.items()))
        out.note(line, f"'{key}' is {mine} on {', '.join(sorted(won))} but {rest}: the brokers run different values")


def _replaced(d: Definition, label: str, hosts: list[str], layers: dict[str, Layered], out: ResourceReading) -> None:
    """A warning where this dictionary replaces the one below it whole: that one's other keys are gone there."""
    below: dict[Definition, list[str]] = {}
    for host in hosts:
        layer = layers[host]
        if layer.replaced and d in layer.keys.values():
            below.setdefault(layer.replaced[-1], []).append(host)
    for lower, where in below.items():
        lost = [k for k in (mapping(lower) or {}) if k not in (mapping(d) or {})]
        if lost:
            out.notes.append(Note(out.path, d.line, f"{label} replaces {PROPERTIES} of {lower.label} ({lower.where()}) "
                                                    f"on {', '.join(where)}: Ansible replaces a dictionary whole unless "
                                                    "ansible.cfg sets hash_behaviour = merge, so "
                                                    f"{', '.join(lost)} {'is' if len(lost) == 1 else 'are'} not set "
                                                    "there", NoteLevel.WARNING))


def version(d: Definition, reach: Reaching, out: ResourceReading) -> None:
    """confluent_package_version -> the Kafka release that Confluent Platform release ships."""
    won = [h for h, w in reach.winners(VERSION).items() if w is d]
    if why := opaque(d.value):
        out.note(d.line, f"{VERSION} is {why}")
        return
    if not won:
        out.note(d.line, f"{VERSION} ({d.label}) reaches no kafka_broker host or is overridden on every one; not read")
        return
    value = plain(d.value)
    if not isinstance(value, str):
        out.problem(f"{VERSION} must be a string such as \"7.6.0\", got {value!r}: cp-ansible appends the package "
                    "revision to it as text (quote it in YAML)", d.line)
        return
    found = kafka_of_platform(f"confluentinc/cp-server:{value}")
    if found is None:
        if re.fullmatch(r"\d+\.\d+\.\d+(?:-\d+)?", value.strip()):
            out.note(d.line, f"{VERSION} {value}: kcliff knows the Kafka of Confluent Platform 7.x and 8.x only; "
                             "the repo is read at kcliff's default Kafka release")
        else:
            out.problem(f"{VERSION} {value!r} is not a Confluent Platform release such as 7.6.0 (cp-ansible installs "
                        "packages of that exact version)", d.line)
        return
    kafka, platform = found
    release = newest_patch(*kafka.split("."))
    out.note(d.line, f"{VERSION} {value} is Confluent Platform {platform}, which ships Kafka {kafka}; kcliff reads "
                     f"the repo at that minor's newest release it knows, {release}")
    out.version(release, d.line)


def server(d: Definition, reach: Reaching, out: ResourceReading) -> None:
    """confluent_server_enabled: false installs Confluent Community's Kafka, where confluent.* keys do nothing."""
    value = plain(d.value)
    off = value is False or (isinstance(value, str) and value.strip().lower() in ("false", "no", "off", "0"))
    if off and any(w is d for w in reach.winners(SERVER).values()):
        out.note(d.line, f"{SERVER}: false installs confluent-kafka (Confluent Community) on the brokers rather than "
                         "Confluent Server: the same Kafka release, where Confluent Server's confluent.* settings "
                         "do nothing")


def replication(d: Definition, reach: Reaching, out: ResourceReading) -> None:
    """The replication factor variables as the internal topics' settings cp-ansible writes from them."""
    won = [h for h, w in reach.winners(BROKER_RF).items() if w is d]
    if d.var == DEFAULT_RF:
        won = [h for h, w in reach.winners(DEFAULT_RF).items() if w is d and h not in reach.winners(BROKER_RF)]
    if why := opaque(d.value):
        out.note(d.line, f"{d.var} is {why}")
        return
    if not won:
        return
    value = plain(d.value)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        out.problem(f"{d.var} must be a whole number of at least 1, got {value!r} (cp-ansible writes it as the "
                    "internal topics' replication factor)", d.line)
        return
    label = f"{d.var} ({d.label})"
    layers = reach.layers(PROPERTIES)
    for key in DERIVED:
        hosts = [h for h in won if h not in layers or key not in layers[h].keys]
        if not hosts:
            continue
        counts = [c for c in (reach.broker_count(h) for h in hosts) if c is not None]
        factor = min([value, *counts]) if d.var == DEFAULT_RF else value
        written = min(2, factor) if key == "transaction.state.log.min.isr" else factor
        out.entries.append(RawEntry("broker", key, str(written), out.path, d.line, resource=label))
