"""What every reader of Kubernetes custom resources (Strimzi, CFK) does alike: read a multi-document
YAML file document by document, check each is a resource, and take its metadata.name as Kubernetes
would. Which groups and kinds hold settings, and what they hold, is each reader's own."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

from kcliff import yamlio
from kcliff.configrepo.model import ReadResult
from kcliff.configrepo.reading import ResourceReading
from kcliff.errors import InputError

# Kubernetes object names (RFC 1123 subdomain, at most 253 characters): what metadata.name may be.
RESOURCE_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
NAME_MAX = 253


def line_of(node: Any, key: Any) -> int | None:
    """The line of `key` in a mapping (or of an item in a sequence), else where the node starts."""
    return yamlio.key_line(node, key) or yamlio.node_line(node)


def read_documents(path: Path, document: Callable[[Any, ResourceReading], None]) -> ReadResult:
    """Every document of the file through `document`: a bad one stops there, the file's others are still
    read, and every bad input found is reported together."""
    out = ResourceReading(str(path))
    for doc in yamlio.load_all(path):
        try:
            document(doc, out)
        except InputError as exc:
            out.problems.append(exc)
    return out.result()


def api_of(doc: Any, path: str) -> tuple[str, str, str]:
    """(group, version, kind) of a resource; an InputError when the document is not one."""
    if not isinstance(doc, dict) or not isinstance(doc.get("apiVersion"), str) or not isinstance(doc.get("kind"), str):
        raise InputError("expected a Kubernetes resource: a mapping with apiVersion and kind", path,
                         yamlio.node_line(doc))
    group, _, version = doc["apiVersion"].partition("/")
    return group, version, doc["kind"]


def require_object_name(metadata: Any, kind: str, path: str) -> str:
    """metadata.name of a `kind` resource if Kubernetes accepts it as an object name; else an InputError
    on its line."""
    name = metadata.get("name")
    if not isinstance(name, str) or len(name) > NAME_MAX or not RESOURCE_NAME.fullmatch(name):
        raise InputError(f"{kind} metadata.name {name!r} is not a Kubernetes object name (lower-case letters, digits, "
                         "'-' and '.', starting and ending with a letter or digit)", path, line_of(metadata, "name"))
    return name


def claim_name(doc: Any, kind: str, out: ResourceReading) -> str:
    """The resource's metadata.name, recorded so a second `kind` of that name in the file is refused."""
    metadata = doc.get("metadata")
    if not isinstance(metadata, dict):
        raise InputError(f"{kind}.metadata must be a mapping", out.path, line_of(doc, "metadata"))
    name = require_object_name(metadata, kind, out.path)
    out.once(f"{kind} {name}", line_of(metadata, "name"))
    return name


def mapping(node: Any, key: str, where: str, path: str, required: bool = True) -> Any:
    """`node[key]` when it is a mapping (None when absent and not `required`); else an InputError on its line."""
    value = node.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, dict):
        raise InputError(f"{where}.{key} must be a mapping", path, line_of(node, key))
    return value


def count(node: Any, key: str, where: str, path: str, most: int) -> int:
    """A count the CRD types as an integer from 1 to `most` (YAML's `3`, not `"3"`)."""
    value = node[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise InputError(f"{where}.{key} must be an integer from 1 to {most} (the CRD's type), got {value!r}",
                         path, line_of(node, key))
    return value
