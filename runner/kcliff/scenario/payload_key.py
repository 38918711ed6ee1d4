"""A scenario's `payload:` key, read from its YAML: `random` (the default), `json-events`, or
`{samples: FILE}` with FILE relative to the scenario file. A samples file is read and checked here,
so its bad lines are reported with the scenario's other problems, before anything runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.errors import InputError
from kcliff.scenario import payload_files, settings
from kcliff.scenario.payload import Payload, PayloadKind

FORMS = "random, json-events or {samples: path/relative/to/this/file}"


def parse(raw: dict[str, Any], path: str, max_record: int) -> Payload:
    given = raw.get("payload", PayloadKind.RANDOM.value)
    if given in (PayloadKind.RANDOM.value, PayloadKind.JSON_EVENTS.value):
        return Payload(PayloadKind(given))
    line = yamlio.key_line(raw, "payload")
    if not (isinstance(given, dict) and list(given) == ["samples"] and isinstance(given["samples"], str)
            and given["samples"].strip()):
        raise InputError(f"payload must be {FORMS}, got {_plain(given)!r}", path, line)
    file = Path(path).parent / given["samples"]
    if not file.is_file():
        raise InputError(f"payload samples file not found: {file} (a path relative to {Path(path).name})", path, line)
    payload = Payload.samples(str(file))
    payload_files.prepare(payload, settings.RECORD_SIZE, max_record)
    return payload


def _plain(value: Any) -> Any:
    """A YAML value as plain Python, for a message (ruamel's mappings print as ordereddicts)."""
    return {str(k): _plain(v) for k, v in value.items()} if isinstance(value, dict) else value
