"""Writing a config repo's files in a test and finding a line in them, as the reader tests do alike."""

from __future__ import annotations

from pathlib import Path


def write(root: Path, name: str, text: str) -> Path:
    """`text` as root/name (its folders made), UTF-8."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def line_of(path: Path, text: str, after: int = 0) -> int:
    """The first line (1-based) after line `after` holding `text`."""
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if i > after and text in line)
