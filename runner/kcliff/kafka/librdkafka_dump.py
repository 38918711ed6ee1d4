"""librdkafka's own configuration table, read out of a librdkafka shared library.

librdkafka documents its properties by printing them: rd_kafka_conf_properties_show(FILE *) writes the
table its CONFIGURATION.md is made from (property, C/P/*, range, default, importance, description with
"Alias for `x`" and "*Type: ...*"). Calling it through ctypes on the library a wheel bundles gives a
release's definitions from the library itself, as Kafka's come from its jars (kafka/configs.py).
scripts/build-librdkafka-configs.py runs this on several releases and merges them into
data/librdkafka-configs.json; a test re-reads the release confluent-kafka installed and compares.

    python -m kcliff.kafka.librdkafka_dump path/to/librdkafka.so.1      # one release, as JSON
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

SECTIONS = {"Global configuration properties": "global", "Topic configuration properties": "topic"}
CLIENTS = {"*": "both", "P": "producer", "C": "consumer"}
# The words of "*Type: ...*" -> the type names the catalogue stores.
TYPES = {"integer": "integer", "float": "float", "boolean": "boolean", "string": "string", "enum value": "enum",
         "CSV flags": "flags", "pattern list": "pattern-list", "see dedicated API": "api"}
_TYPE = re.compile(r"\*Type: ([^*]+)\*\s*$")
_ALIAS = re.compile(r"Alias for `([^`]+)`")
_RANGE = re.compile(r"^(-?[0-9.]+) \.\. (-?[0-9.]+)$")


def bundled_library(site_packages: Path) -> Path | None:
    """The librdkafka a confluent-kafka wheel bundles under `site_packages`, if there is one."""
    found = sorted((site_packages / "confluent_kafka.libs").glob("librdkafka*.so*"))
    return found[0] if found else None


def _library(path: Path) -> ctypes.CDLL:
    lib = ctypes.CDLL(str(path))
    lib.rd_kafka_version_str.restype = ctypes.c_char_p
    lib.rd_kafka_conf_properties_show.argtypes = [ctypes.c_void_p]
    return lib


def release_of(path: Path) -> str:
    """The librdkafka release the library says it is ("2.16.0")."""
    raw: bytes = _library(path).rd_kafka_version_str()
    return raw.decode()


def table_text(path: Path) -> str:
    """What rd_kafka_conf_properties_show prints, read back from a temporary file (it wants a FILE *)."""
    lib = _library(path)
    libc = ctypes.CDLL(None)
    libc.fdopen.restype = ctypes.c_void_p
    libc.fdopen.argtypes = [ctypes.c_int, ctypes.c_char_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    with tempfile.TemporaryFile() as out:
        stream = libc.fdopen(os.dup(out.fileno()), b"w")  # its own descriptor: fclose closes that one only
        if not stream:
            raise OSError("fdopen failed")
        lib.rd_kafka_conf_properties_show(stream)
        libc.fclose(stream)
        out.seek(0)
        return out.read().decode("utf-8")


def _number(text: str) -> int | float:
    return float(text) if "." in text else int(text)


def _row(cells: list[str]) -> tuple[str, dict[str, Any]]:
    name, client, valid, default, importance, description = (c.strip() for c in cells)
    typed = _TYPE.search(description)
    if typed is None or typed[1] not in TYPES:
        raise ValueError(f"property {name}: no type this reader knows in {description[-60:]!r}")
    prop: dict[str, Any] = {"client": CLIENTS[client], "type": TYPES[typed[1]], "importance": importance}
    bounds = _RANGE.match(valid)
    if bounds and prop["type"] in ("integer", "float"):
        prop["range"] = [_number(bounds[1]), _number(bounds[2])]
    elif valid and prop["type"] in ("enum", "flags"):
        prop["values"] = [v.strip() for v in valid.split(",")]
    elif valid and prop["type"] != "boolean":  # a boolean's range is always "true, false"
        prop["valid"] = valid  # kept as printed; nothing validates against it
    if default:
        prop["default"] = default
    alias = _ALIAS.search(description)
    if alias:
        prop["alias_of"] = alias[1]
    if "**DEPRECATED**" in description:
        prop["deprecated"] = True
    if "**EXPERIMENTAL**" in description:
        prop["experimental"] = True
    return name, prop


def parse(text: str) -> dict[str, dict[str, dict[str, Any]]]:
    """The table as {"global": {name: property}, "topic": {...}}."""
    found: dict[str, dict[str, dict[str, Any]]] = {"global": {}, "topic": {}}
    section: str | None = None
    for line in text.splitlines():
        if line.startswith("#"):
            section = SECTIONS.get(line.lstrip("#").strip())
            continue
        cells = line.split("|", 5)
        if section is None or len(cells) != 6 or cells[0].strip() in ("Property", "") or cells[0].startswith("---"):
            continue
        name, prop = _row(cells)
        if name in found[section]:
            raise ValueError(f"{section} property {name} is in the table twice")
        found[section][name] = prop
    if not found["global"] or not found["topic"]:
        raise ValueError("no global or no topic properties in the table: not the format this reader knows")
    return found


def dump(path: Path) -> dict[str, Any]:
    """One release's definitions: {"release": "2.16.0", "properties": {"global": ..., "topic": ...}}."""
    return {"release": release_of(path), "properties": parse(table_text(path))}


if __name__ == "__main__":
    json.dump(dump(Path(sys.argv[1])), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
