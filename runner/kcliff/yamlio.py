"""Read YAML keeping line numbers, so every validation error can name the file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from kcliff.errors import InputError

MAX_BYTES = 4 * 1024 * 1024


def read_text(path: str | Path) -> str:
    """A YAML file's text; unreadable, oversized, binary or non-UTF-8 files raise InputError."""
    return read_utf8(Path(path), "YAML files", "; expected a YAML file", "a YAML text file")


def read_utf8(path: Path, files: str, not_utf8: str, text_file: str, limit: int = MAX_BYTES) -> str:
    """A UTF-8 text file's text (YAML, Terraform); unreadable, oversized, binary or non-UTF-8 files raise
    InputError, worded for the kind of file (`files` read up to the limit, `text_file` expected)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", str(path)) from None
    if len(raw) > limit:
        raise InputError(f"file is {len(raw)} bytes; kcliff reads {files} up to {limit}", str(path))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start}){not_utf8}", str(path)) from None
    if "\x00" in text:
        raise InputError(f"contains NUL bytes; expected {text_file}", str(path))
    return text


def _parse(text: str, path: Path, parse: Callable[[YAML, str], Any]) -> Any:
    try:
        return parse(YAML(typ="rt"), text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise InputError(f"invalid YAML: {exc.problem or exc.context}", str(path), line) from None
    except YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}", str(path)) from None


def load(path: str | Path) -> Any:
    """Parse a YAML file; malformed, empty, binary or oversized files raise InputError with the line."""
    path = Path(path)
    data = _parse(read_text(path), path, lambda yaml, text: yaml.load(text))
    if data is None:
        raise InputError("file is empty; expected a YAML mapping", str(path))
    return data


def load_all(path: str | Path) -> list[Any]:
    """Every document of a multi-document YAML file (documents separated by `---`, as Kubernetes
    manifests are kept), empty ones left out. Lines stay the file's own, so `key_line` and
    `node_line` of a node in the third document name its line in the file."""
    path = Path(path)
    documents = _parse(read_text(path), path, lambda yaml, text: list(yaml.load_all(text)))
    return [d for d in documents if d is not None]


def key_line(node: Any, key: Any) -> int | None:
    """1-based line of `key` in a mapping loaded by `load`, or of the item `key` in a sequence."""
    try:
        line: int  # 0-based, as ruamel keeps it
        if isinstance(node, CommentedMap):
            line = node.lc.key(key)[0]
            return line + 1
        if isinstance(node, CommentedSeq):
            line = node.lc.item(key)[0]
            return line + 1
    except (KeyError, IndexError, TypeError):
        return None
    return None


def node_line(node: Any) -> int | None:
    """1-based line where a mapping or sequence starts."""
    lc = getattr(node, "lc", None)
    return lc.line + 1 if lc is not None and lc.line is not None else None
