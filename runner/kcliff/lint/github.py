"""GitHub workflow-command annotations (`::error file=F,line=L,title=T::message`), as lint, check and
the bad-input findings (lint/findings.py) print them; escaped as the runner reads them. The files they
name are named relative to the repository root (--repo-root, else the git checkout)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable

from kcliff import configrepo


def escape_data(text: str) -> str:
    """GitHub workflow-command message escaping."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """GitHub workflow-command property (file, title) escaping."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, path: str, line: int | None, title: str, message: str) -> str:
    """A workflow-command annotation; without a path it belongs to the run, not to a file."""
    props = [f"file={escape_property(path)}"] if path else []
    if line:
        props.append(f"line={line}")
    props.append(f"title={escape_property(title)}")
    return f"::{level} {','.join(props)}::{escape_data(message)}"


def add_repo_root_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--repo-root", type=Path, metavar="DIR",
                        help=f"root of {what}: --format github annotations name files relative to it, and "
                             "no config file may lead out of it (default: the git checkout holding the path)")


def repo_root(path: str, root: Path | None = None) -> Path | None:
    """The repository root paths are named relative to: `root` (--repo-root), else the git checkout
    holding `path`, else none."""
    return root or (configrepo.checkout_root(Path(path)) if path else None)


def github_path(path: str, root: Path | None = None) -> str:
    """`path` as a GitHub annotation needs it: relative to the repository root (`root`, else the git
    checkout holding it). Resolved, so a link inside the repo names the file holding the line; a link
    leading out is named where it lies. Outside any checkout the path stays as given."""
    top = repo_root(path, root)
    if top is None:
        return path
    candidates: tuple[Callable[[Path], Path], ...] = (lambda p: p.resolve(), lambda p: p.parent.resolve() / p.name)
    for candidate in candidates:
        try:
            return candidate(Path(path)).relative_to(top.resolve()).as_posix()
        except (ValueError, OSError, RuntimeError):
            continue
    return path
