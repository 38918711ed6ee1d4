"""Merges per-release dumps of ConfigDump.java into one catalogue, runner/kcliff/data/kafka-configs.json.

    merge.py OUTPUT DUMP.json...      (one dump per release, any order)

Each key's definitions become variants: one per distinct definition, with the span of releases it
holds in ("3.3.0..3.9.2", runs joined by ","), ordered by first release. The file is written in one
stable layout (keys sorted, one variant a line) so a rerun on the same releases is byte-identical.
docs/kafka-configs.md describes the format.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from releases import parse

SCHEMA = "kcliff.kafka-configs"
VERSION = 1
SOURCE = ("Kafka's own ConfigDef definitions, read by reflection from the kafka_2.13 jars of each release "
          "on Maven Central by scripts/build-kafka-configs.sh (scripts/kafka-configs/ConfigDump.java, merge.py).")
SCOPES = ("broker", "topic", "producer", "consumer")
# The order fields are written in; a variant is its definition plus "releases" first.
FIELDS = ("releases", "type", "default", "validator", "importance", "internal")


def span(held: Iterable[str], releases: list[str]) -> str:
    """`held` as contiguous runs of `releases`: "a..b" or "a", runs joined by ","."""
    wanted = set(held)
    runs: list[list[str]] = []
    previous_in = False
    for release in releases:
        if release in wanted:
            if previous_in:
                runs[-1][1] = release
            else:
                runs.append([release, release])
        previous_in = release in wanted
    return ",".join(a if a == b else f"{a}..{b}" for a, b in runs)


def variants(per_release: Mapping[str, Mapping[str, Any]], releases: list[str]) -> dict[str, list[dict[str, Any]]]:
    """{key: [variant, ...]} from {release: {key: definition}}; keys sorted, variants by first release."""
    keys = sorted({key for defs in per_release.values() for key in defs})
    out: dict[str, list[dict[str, Any]]] = {}
    for key in keys:
        groups: dict[str, tuple[dict[str, Any], list[str]]] = {}
        for release in releases:
            definition = per_release[release].get(key)
            if definition is None:
                continue
            identity = json.dumps(definition, sort_keys=True)
            groups.setdefault(identity, (dict(definition), []))[1].append(release)
        out[key] = [{"releases": span(held, releases), **definition} for definition, held in groups.values()]
    return out


def ordered(variant: dict[str, Any]) -> dict[str, Any]:
    unknown = set(variant) - set(FIELDS)
    if unknown:
        raise ValueError(f"unexpected fields {sorted(unknown)} in {variant}")
    return {field: variant[field] for field in FIELDS if field in variant}


def merge(dumps: list[dict[str, Any]]) -> dict[str, Any]:
    by_release = {dump["release"]: dump for dump in dumps}
    if len(by_release) != len(dumps):
        raise ValueError("two dumps of one release")
    releases = sorted(by_release, key=parse)
    scopes = {}
    for scope in SCOPES:
        merged = variants({r: by_release[r]["scopes"][scope] for r in releases}, releases)
        scopes[scope] = {key: [ordered(v) for v in vs] for key, vs in merged.items()}
    synonyms = variants({r: {k: {"broker": b} for k, b in by_release[r]["topic_synonyms"].items()}
                         for r in releases}, releases)
    modes = variants({r: {k: {"mode": m} for k, m in by_release[r]["broker_update_modes"].items()}
                      for r in releases}, releases)
    return {"schema": SCHEMA, "version": VERSION, "source": SOURCE, "releases": releases,
            "scopes": scopes, "topic_synonyms": synonyms, "broker_update_modes": modes}


def layout(value: Any, indent: int = 0) -> str:
    """JSON with nested objects indented, but each variant and each list of plain values on one line."""
    compact = (isinstance(value, dict) and isinstance(value.get("releases"), str)) or (
        isinstance(value, list) and not any(isinstance(v, (dict, list)) for v in value))
    if compact or not isinstance(value, (dict, list)):
        return json.dumps(value, separators=(", ", ": "))
    pad = " " * (indent + 1)
    if isinstance(value, list):
        items = [pad + layout(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    items = [f"{pad}{json.dumps(k)}: {layout(v, indent + 1)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def entry_point_log(dumps: list[dict[str, Any]]) -> str:
    """Which class each part came from, as spans: the releases whose entry point moved show here."""
    releases = sorted((d["release"] for d in dumps), key=parse)
    per = {d["release"]: {k: {"from": v} for k, v in d["entry_points"].items()} for d in dumps}
    lines = []
    for part, vs in variants(per, releases).items():
        for v in vs:
            lines.append(f"  {part}: {v['from']}  [{v['releases']}]")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    dumps = [json.loads(Path(p).read_text()) for p in argv[1:]]
    Path(argv[0]).write_text(layout(merge(dumps)) + "\n")
    print("entry points:\n" + entry_point_log(dumps), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
