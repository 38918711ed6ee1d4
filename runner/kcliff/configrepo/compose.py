"""docker-compose files whose services run a Kafka broker image (images.py: apache/kafka, Confluent's
cp-kafka and cp-server, Bitnami's kafka): each such service is a broker of the file's cluster.

    image         the image family decides how the environment becomes server.properties; its tag is
                  the repo's Kafka version (a Confluent Platform tag mapped to its Kafka, with a note)
    env_file      KEY=value files (relative to the compose file), read first, in order
    environment   a mapping (KEY: value) or a list (- KEY=value), over env_file, as compose applies them

Found by content (a top-level `services:` and an `image:` line naming a broker image), whatever the
file's name. Services of other images (Schema Registry, Connect, REST Proxy, an application with its
own KAFKA_BOOTSTRAP_SERVERS) are never read as a broker's, only noted when they set KAFKA_* variables.
YAML anchors and merge keys (`<<: *kafka-common`, as three-node files share their settings) are read
on the line of the anchor that writes them. Interpolated values (`${VAR}`, `$VAR`, `${VAR:-default}`)
and variables without a value (taken from the shell) are noted, not guessed; `$$` is a literal `$`.
An env_file is read only inside the compose file's directory (one elsewhere is noted): a setting's text
can end up in a pull-request annotation. What compose or the image refuses is bad input on its line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.configrepo.container_env import EnvVar, configures_broker, disagreements, image_version, is_yaml, \
    load_rendered, not_a_broker, settings_of, template_mark
from kcliff.configrepo.images import IMAGE_LINE, broker_image
from kcliff.configrepo.kubernetes import line_of
from kcliff.configrepo.model import RawEntry, ReadResult, Resource
from kcliff.configrepo.properties import read_text
from kcliff.configrepo.reading import ResourceReading
from kcliff.errors import InputError

# a top-level `services:` whose first entry (after blank and comment lines) is a mapping key
_SERVICES = re.compile(r"^services:[ \t]*(?:#.*)?\n(?:[ \t]*(?:#.*)?\n)*[ \t]+[\"']?[\w.\-]+[\"']?[ \t]*:", re.MULTILINE)
_INTERPOLATION = re.compile(r"\$(?:\{[^}]*\}|[A-Za-z_]\w*)")
_ENV_FILE_LINE = re.compile(r"(?:export\s+)?(?P<key>[A-Za-z_][A-Za-z0-9_.\-]*)\s*(?:=(?P<value>.*))?")


def holds_brokers(path: Path) -> bool:
    """Whether a YAML file is a compose file with a service of a broker image, by its text: a top-level
    `services:` mapping (a CI file's `services:` list is not compose's) and an `image:` of a broker image."""
    try:
        text = yamlio.read_text(path)
    except InputError:
        return False
    return _SERVICES.search(text) is not None and IMAGE_LINE.search(text) is not None and is_yaml(path, text)


def unresolved(value: Any) -> str | None:
    """Why compose's value is not a literal kcliff reads, or None when it is one."""
    if value is None:
        return "not set in the file: compose takes it from the shell's environment"
    if isinstance(value, str) and _INTERPOLATION.search(value.replace("$$", "")):
        return "interpolated by compose from the shell's environment or an .env file"
    return template_mark(value)


def literal(value: Any) -> Any:
    return value.replace("$$", "$") if isinstance(value, str) else value


def merged_line(node: Any, key: Any) -> int | None:
    """The line of `key` in a mapping, also when it comes in by a merge key (`<<: *anchor`): the anchor's line."""
    line = yamlio.key_line(node, key)
    if line is not None:
        return line
    for merged in getattr(node, "merge", None) or ():
        source = merged[1] if isinstance(merged, tuple) else merged  # ruamel 0.18 keeps (index, map) pairs
        if isinstance(source, dict) and key in source:
            return merged_line(source, key)
    return yamlio.node_line(node)


def _environment(node: Any, where: str, out: ResourceReading) -> list[EnvVar]:
    path = out.path
    if isinstance(node, dict):
        found = []
        for key, value in node.items():
            if isinstance(value, (dict, list)):
                out.problem(f"{where}.{key}: compose takes a string, number or boolean here, not a "
                            f"{'mapping' if isinstance(value, dict) else 'list'}", merged_line(node, key))
                continue
            found.append(EnvVar(str(key), literal(value), path, merged_line(node, key), unresolved(value)))
        return found
    if isinstance(node, list):
        found = []
        for index, item in enumerate(node):
            line = yamlio.key_line(node, index)
            if not isinstance(item, str):
                out.problem(f"{where} items are KEY=value strings, got {item!r}", line)
                continue
            key, equals, value = item.partition("=")
            raw = value if equals else None
            found.append(EnvVar(key.strip(), literal(raw), path, line, unresolved(raw)))
        return found
    out.problem(f"{where} must be a mapping (KEY: value) or a list (- KEY=value)", yamlio.node_line(node))
    return []


def _env_file_value(raw: str) -> tuple[str, bool]:
    """(value, interpolated?) of what follows '=' in an env_file line, as compose's dotenv parser reads it:
    single quotes literal, double quotes and bare values interpolated, a bare value's ' #' comment cut."""
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1], False
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].replace('\\"', '"'), True
    return re.split(r"\s#", text, maxsplit=1)[0].strip(), True


def _env_file(file: Path, shown: str, out: ResourceReading) -> list[EnvVar]:
    found = []
    for number, line in enumerate(read_text(file).splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _ENV_FILE_LINE.fullmatch(line.strip())
        if match is None:
            out.problems.append(InputError(f"env_file {shown}: compose cannot read this line (KEY=value expected)",
                                           str(file), number))
            continue
        if match["value"] is None:
            found.append(EnvVar(match["key"], None, str(file), number, unresolved(None)))
            continue
        value, interpolated = _env_file_value(match["value"])
        why = unresolved(value) if interpolated else template_mark(value)
        found.append(EnvVar(match["key"], literal(value) if interpolated else value, str(file), number, why))
    return found


def _env_files(node: Any, service: Any, label: str, out: ResourceReading) -> list[EnvVar]:
    """The variables of a service's env_file entries, in order; a file outside the compose file's directory
    is noted, not read; a missing one compose refuses, unless `required: false`."""
    items = node if isinstance(node, list) else [node]
    base = Path(out.path).parent
    found: list[EnvVar] = []
    for index, item in enumerate(items):
        line = yamlio.key_line(node, index) if isinstance(node, list) else merged_line(service, "env_file")
        name, required = (item.get("path"), item.get("required", True)) if isinstance(item, dict) else (item, True)
        if not isinstance(name, str):
            out.problem(f"{label}: env_file entries are paths (or {{path, required}}), got {item!r}", line)
            continue
        file = base / name
        if not file.resolve().is_relative_to(base.resolve()):
            out.note(line, f"{label}: env_file {name} is outside the compose file's directory: not read")
        elif not file.is_file():
            if required is not False:
                out.problem(f"{label}: env_file {name} does not exist; compose refuses to start the service", line)
        else:
            found += _env_file(file, name, out)
    return found


def _service(name: str, service: Any, services: Any, out: ResourceReading) -> list[RawEntry] | None:
    """A broker service's settings; None when it runs another image (noted if it sets KAFKA_* variables)."""
    if not isinstance(service, dict):
        out.problem(f"service {name} must be a mapping", line_of(services, name))
        return None
    label = f"service {name}"
    image = broker_image(service.get("image"))
    if image is None:
        environment = service.get("environment")
        names = environment if isinstance(environment, dict) else [str(i).partition("=")[0] for i in environment or []]
        if any(str(n).startswith("KAFKA_") for n in names):
            out.note(merged_line(service, "image"), not_a_broker(label, service.get("image")))
        return None
    image_version(image, label, merged_line(service, "image"), out)
    command = merged_line(service, "entrypoint" if "entrypoint" in service else "command")
    if not configures_broker(image, label, (service.get("entrypoint"), service.get("command")), command, out):
        return None
    variables = _env_files(service["env_file"], service, label, out) if "env_file" in service else []
    if "environment" in service:
        variables += _environment(service["environment"], f"{label}: environment", out)
    out.resources.append(Resource(label, merged_line(service, "environment") if "environment" in service
                                  else line_of(services, name)))
    entries = settings_of(image, variables, label, out)
    out.entries.extend(entries)
    return entries


class ComposeReader:
    format = "compose"
    roles = ("compose",)

    def read(self, path: Path, role: str) -> ReadResult:
        out = ResourceReading(str(path))
        services = _services(load_rendered(path, out), path)
        brokers = [(f"service {name}", entries) for name, service in services.items()
                   if (entries := _service(str(name), service, services, out)) is not None]
        out.notes.extend(disagreements(brokers))
        return out.result()


def _services(documents: list[Any] | None, path: Path) -> Any:
    """The file's `services:` mapping (none of a template that is not YAML until rendered)."""
    if documents is None:
        return {}
    doc = documents[0] if documents else None
    services = doc.get("services") if isinstance(doc, dict) else None
    if not isinstance(services, dict):
        raise InputError("expected a compose file: a mapping with `services:` (a mapping of services)", str(path),
                         yamlio.node_line(doc) if doc is not None else None)
    return services
