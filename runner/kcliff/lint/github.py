"""GitHub workflow-command annotations (`::error file=F,line=L,title=T::message`), as lint, check and
the bad-input findings (lint/findings.py) print them; escaped as the runner reads them."""

from __future__ import annotations


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
