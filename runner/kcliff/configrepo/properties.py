""".properties files (broker server.properties, producer/consumer client configs) with line numbers.

Parsing follows java.util.Properties.load, which is what Kafka itself uses: comments start with #
or !, a key ends at the first unescaped '=', ':' or whitespace, a trailing backslash continues the
logical line, and \\uXXXX / \\t / \\n escapes are decoded. jproperties implements exactly that, so
kcliff uses it rather than a hand-written parser. jproperties keeps no line numbers, so a small
subclass records the line each key starts on (it hooks the parser's key step, the one place the
line is known; tests/configrepo/test_configrepo.py pins this behaviour across jproperties versions). It also
turns off jproperties' own extension that reads "#:" comment lines as metadata: to Java, and so to
Kafka, those lines are plain comments.
"""

from __future__ import annotations

from pathlib import Path

from jproperties import ParseError, Properties

from kcliff.configrepo.model import RawEntry, ReadResult
from kcliff.errors import InputError

MAX_BYTES = 4 * 1024 * 1024


class _LineTrackingProperties(Properties):
    def __init__(self) -> None:
        super().__init__()
        self.occurrences: list[tuple[str, str, int]] = []
        self._key = ""
        self._key_line = 0

    # jproperties' parser reads each logical line as _parse_key then _parse_value; hooking both is
    # the one place where a key, its own value and its starting line are known together.
    def _parse_key(self, single_line_only: bool = False) -> str:
        self._key_line = self._line_number
        self._key = super()._parse_key(single_line_only)
        return self._key

    def _parse_value(self, single_line_only: bool = False) -> str:
        value = super()._parse_value(single_line_only)
        self.occurrences.append((self._key, value, self._key_line))
        return value

    def _parse_comment(self) -> None:
        # Java treats every '#' or '!' line as a comment; skip it whole.
        self._getc()
        self._skip_natural_line()


def parse_text(text: str, path: str) -> list[tuple[str, str, int]]:
    """(key, value, line) for every key in file order, repeats included (the last one wins in Kafka)."""
    props = _LineTrackingProperties()
    try:
        props.load(text)
    except ParseError as exc:
        raise InputError(f"invalid .properties syntax: {exc.message}", path, exc.line_number) from None
    return props.occurrences


def read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", str(path)) from None
    if len(raw) > MAX_BYTES:
        raise InputError(f"file is {len(raw)} bytes; kcliff reads config files up to {MAX_BYTES}", str(path))
    if b"\x00" in raw:
        raise InputError("contains NUL bytes; expected a text .properties file", str(path))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("iso-8859-1")  # java.util.Properties' own encoding for byte streams


class PropertiesReader:
    """Reader for broker / producer / consumer .properties: the role names the scope."""

    format = "properties"
    roles = ("broker", "producer", "consumer")

    def read(self, path: Path, role: str) -> ReadResult:
        text = read_text(path)
        entries = [RawEntry(role, key, value, str(path), line) for key, value, line in parse_text(text, str(path))]
        return ReadResult(entries=entries)
