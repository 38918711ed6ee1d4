"""Kafka Connect's own files: a connector's config as the REST API takes it (JSON: `{"name": ..., "config":
{...}}` for POST /connectors, or the flat map PUT /connectors/<name>/config takes), a connector's
.properties for connect-standalone, and a worker's connect-distributed.properties /
connect-standalone.properties. What each key means to Connect: connect.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.configrepo import connect
from kcliff.configrepo.kubernetes import line_of
from kcliff.configrepo.model import ReadResult, Resource
from kcliff.configrepo.properties import parse_text, read_text
from kcliff.configrepo.reading import ResourceReading, sniffed
from kcliff.errors import InputError

ROLES = ("connector", "connect-worker")
SUFFIXES = (".json", ".properties")
_JSON_CONNECTOR = re.compile(r"\"connector\.class\"\s*:")
_PROPERTIES_CONNECTOR = re.compile(r"^[ \t]*connector\.class[ \t]*[=:]", re.MULTILINE)
# Keys only a worker's file sets: its internal topics (distributed) or its offsets file (standalone).
_WORKER = re.compile(r"^[ \t]*(config\.storage\.topic|offset\.storage\.topic|offset\.storage\.file\.filename)"
                     r"[ \t]*[=:]", re.MULTILINE)


def file_role(path: Path) -> str | None:
    """`connector` or `connect-worker` by what the file's text sets (a regular expression first), else None."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        return None
    text = sniffed(path)
    if text is None:
        return None
    if suffix == ".json":
        return "connector" if _JSON_CONNECTOR.search(text) else None
    if _WORKER.search(text):
        return "connect-worker"
    return "connector" if _PROPERTIES_CONNECTOR.search(text) else None


def _json(path: Path, out: ResourceReading) -> None:
    data = yamlio.load(path)  # JSON is YAML: ruamel keeps each key's line
    if not isinstance(data, dict):
        raise InputError("expected a JSON object: {\"name\": ..., \"config\": {...}} or a connector's config map",
                         str(path), 1)
    if "config" in data:
        config, name = data["config"], data.get("name")
        if not isinstance(config, dict):
            raise InputError("'config' must be a JSON object of the connector's settings", str(path),
                             line_of(data, "config"))
        if name is None:
            name = config.get("name")
        extra = [k for k in data if k not in ("name", "config", "tasks", "type")]
        if extra:
            out.note(line_of(data, extra[0]), f"'{extra[0]}' is not a field of a connector's REST request; ignored")
    else:  # PUT /connectors/<name>/config: the map itself, named by the URL (the file's name when not in it)
        config, name = data, data.get("name", path.stem)
    if not isinstance(name, str) or not name:
        raise InputError("the connector needs a 'name' (a non-empty string)", str(path), line_of(data, "name"))
    if "connector.class" not in config:
        out.problem(f"connector {name}: no 'connector.class': Connect refuses a connector without one",
                    line_of(config, "config") if config is not data else 1)
    out.resources.append(Resource(f"connector {name}", line_of(data, "config") if config is not data else 1))
    values = {str(k): v if isinstance(v, str) or v is None else _json_scalar(v) for k, v in config.items()}
    connect.connector_entries(values, lambda key: line_of(config, key), f"connector {name}", out)


def _json_scalar(value: Any) -> Any:
    # The REST API takes strings; a number or boolean written bare is what Connect's ConfigDef parses alike.
    return str(value).lower() if isinstance(value, bool) else value


def _properties(path: Path, role: str, out: ResourceReading) -> None:
    parsed = parse_text(read_text(path), str(path))
    lines = {key: line for key, _, line in parsed}
    config = {key: value for key, value, _ in parsed}
    if role == "connect-worker":
        label = f"Connect worker {path.name}"
        out.resources.append(Resource(label, 1))
        connect.worker_entries(config, lines.get, label, out)
        return
    label = f"connector {config.get('name') or path.stem}"
    out.resources.append(Resource(label, 1))
    connect.connector_entries(config, lines.get, label, out)


class ConnectReader:
    format = "connect"
    roles = ROLES

    def read(self, path: Path, role: str) -> ReadResult:
        out = ResourceReading(str(path))
        try:
            if path.suffix.lower() == ".json":
                _json(path, out)
            else:
                _properties(path, role, out)
        except InputError as exc:
            out.problems.append(exc)
        return out.result()
