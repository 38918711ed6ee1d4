"""aws_msk_configuration: the repo's Kafka version from kafka_versions (MSK's 3.9.x and 4.1.x.kraft
read as Apache releases) and the broker settings of server_properties, each on its own .tf line."""

from __future__ import annotations

import re

from kcliff.configrepo.model import RawEntry, Resource
from kcliff.configrepo.properties import parse_text
from kcliff.configrepo.reading import ResourceReading
from kcliff.configrepo.terraform_hcl import TEMPLATE, Expr, ResourceBlock, expr, line_of, not_literal, unescape
from kcliff.configrepo.version_file import newest_patch
from kcliff.errors import InputError
from kcliff.kafka import configs as kafka_configs

# An MSK kafka_versions entry: 3.6.0, 3.7.x, 3.9.x.kraft, 4.1.x.kraft, 2.8.2.tiered.
MSK_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+|x)((?:\.[0-9a-z]+)*)")


def _msk_version(text: str, where: str, line: int | None, out: ResourceReading) -> tuple[int, int, int] | None:
    """An MSK kafka_versions entry as an Apache Kafka release: 3.6.0 as written; 3.9.x (MSK picks the
    patch release) as that minor's first release, with a note."""
    match = MSK_VERSION.fullmatch(text)
    if match is None:
        out.problem(f"{where}: {text!r} is not an MSK Kafka version such as 3.6.0, 3.9.x or 4.1.x.kraft", line)
        return None
    major, minor, patch, suffix = match.groups()
    if patch == "x":
        out.note(line, f"{where}: {text} leaves the patch release to MSK; kcliff reads it as Kafka {major}.{minor} "
                       f"at that minor's newest release kcliff knows, {newest_patch(major, minor)}")
        return kafka_configs.release_key(newest_patch(major, minor))
    if suffix:
        out.note(line, f"{where}: {text} is MSK's build of Kafka {major}.{minor}.{patch}; read as that release")
    return int(major), int(minor), int(patch)


def read_msk(res: ResourceBlock, out: ResourceReading) -> None:
    if "kafka_versions" in res.attributes:
        e = expr(res.attributes["kafka_versions"].expression)
        if not e.literal:
            out.note(e.line, f"{res.label}: {not_literal('kafka_versions', e)}")
        elif not isinstance(e.value, list) or not all(isinstance(v, str) for v in e.value) or not e.value:
            out.problem(f"{res.label}: kafka_versions must be a list of version strings, e.g. [\"3.6.0\"]", e.line)
        else:
            versions = [v for v in (_msk_version(text, res.label, e.line, out) for text in e.value) if v]
            if versions:
                newest = ".".join(map(str, max(versions)))
                if len(e.value) > 1:
                    out.note(e.line, f"{res.label}: kafka_versions lists {', '.join(e.value)}; kcliff reads the repo "
                                     f"at the newest, {newest}, the release this configuration is ready for")
                out.version(newest, e.line)
    attribute = res.attributes.get("server_properties")
    out.resources.append(Resource(res.label, line_of(attribute) if attribute is not None else res.line))
    if attribute is None:
        out.problem(f"{res.label}: 'server_properties' is required (the broker configuration)", res.line)
        return
    _server_properties(res, expr(attribute.expression), out)


def _server_properties(res: ResourceBlock, e: Expr, out: ResourceReading) -> None:
    """The broker .properties text, each key on the .tf line it is written on (a heredoc's lines follow
    the line of its `<<EOF`; a one-line string's keys all sit on that line)."""
    heredoc = e.heredoc
    if not heredoc and not e.literal:
        out.note(e.line, f"{res.label}: {not_literal('server_properties', e)}; to lint the broker settings it "
                         "holds, keep them in a .properties file (a file() call's target is read when named in "
                         "kcliff.yaml with role broker)")
        return
    if not isinstance(e.value, str):
        out.problem(f"{res.label}: server_properties must be text, got {e.text}", e.line)
        return
    first = e.line or 1
    try:
        parsed = parse_text(e.value, out.path)
    except InputError as exc:
        out.problem(f"{res.label}: server_properties: {exc.message}",
                    first + (exc.line or 0) if heredoc else e.line)
        return
    for key, value, offset in parsed:
        line = first + offset if heredoc else e.line
        if TEMPLATE.search(key) or TEMPLATE.search(value):
            out.note(line, f"{res.label}: server_properties '{key}' holds an interpolation: not a literal; kcliff "
                           "does not guess it")
            continue
        out.entries.append(RawEntry("broker", unescape(key), unescape(value), out.path, line, resource=res.label))
