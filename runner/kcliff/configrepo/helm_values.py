"""Helm values as a chart's templates see them, each setting on its line of the file.

What every Helm reader (Bitnami's chart, cp-helm-charts, values inside Flux and Argo CD resources)
does alike:
- `Values`: a values mapping and where its lines are in the file. A values file's lines are its own;
  values written as a YAML string inside a manifest (Argo CD's `helm.values: |`) are offset to the
  manifest's lines; a string whose lines do not map one to one (quoted, folded) is pinned to its key.
- server.properties text in a value (`extraConfig: |`): each key on its own line of the block.
- the text a template prints for a value. Helm reads every YAML number as a float64, and Go's `%v`
  (what `{{ $value }}` and sprig's `quote` print) writes one of a million or more in exponent form:
  `retention.ms: 604800000` reaches kafka-topics as `6.048e+08`, which Kafka does not parse as a
  number. `toYaml` (the charts' `common.tplvalues.render`) prints whole numbers in full.
- values that are not literals: Helm templating (`{{ }}`, rendered by the charts' `tpl`) and `${...}`
  (Flux's post-build substitution, a shell variable, a Kafka config provider) are noted, not guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.scalarstring import LiteralScalarString

from kcliff import yamlio
from kcliff.configrepo.model import RawEntry
from kcliff.configrepo.properties import parse_text
from kcliff.configrepo.reading import ResourceReading
from kcliff.errors import InputError

TEMPLATE, SUBSTITUTION = "{{", "${"


@dataclass(frozen=True)
class Values:
    """One chart's values: `node` a mapping of the file (or of a values string in it), `label` names the
    source in notes and resources ("values.yaml", "HelmRelease kafka"), `at` the keys leading to it."""

    node: Any
    out: ResourceReading
    label: str
    at: str = ""  # "kafka." when the chart's values sit under a parent chart's key
    offset: int = 0  # added to every line: a values string inside a manifest starts there
    pinned: int | None = None  # every line is this one: a values string whose lines do not map one to one

    def get(self, key: str) -> Any:
        return self.node.get(key) if isinstance(self.node, dict) else None

    def line(self, key: Any = None) -> int | None:
        """The file line of `key` (of the mapping itself when None)."""
        if self.pinned is not None:
            return self.pinned
        found = (yamlio.key_line(self.node, key) if key is not None else None) or yamlio.node_line(self.node)
        return found + self.offset if found else None

    def child(self, key: str) -> Values | None:
        """The mapping under `key`, with its lines; None when it is not a mapping."""
        sub = self.get(key)
        return replace(self, node=sub, at=f"{self.at}{key}.") if isinstance(sub, dict) else None

    def name(self, key: str) -> str:
        """The values key as a user writes it with --set: `kafka.extraConfig`."""
        return f"{self.at}{key}"

    def note(self, key: Any, message: str) -> None:
        self.out.note(self.line(key), message)

    def problem(self, key: Any, message: str) -> None:
        self.out.problem(message, self.line(key))

    def text_start(self, key: str) -> int | None:
        """The file line of the first line of a `key: |` block's text; None for a string whose lines do
        not map one to one (quoted or folded), whose settings are all put on the key's line."""
        if self.pinned is not None or not isinstance(self.get(key), LiteralScalarString):
            return None
        try:
            indicator = int(self.node.lc.value(key)[0])  # 0-based line of the `|`
        except (AttributeError, KeyError, IndexError, TypeError):
            return None
        return indicator + 2 + self.offset


def parse_yaml_text(text: str, out: ResourceReading, first: int | None, key_line: int | None, what: str) -> Any:
    """A YAML document held in a string (Argo CD's helm.values, a chart's config written as text);
    a syntax error is bad input on its line of the file."""
    try:
        return YAML(typ="rt").load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        last = first + len(text.rstrip("\n").split("\n")) - 1 if first is not None else None
        # an error at the end of the text (an unclosed bracket) is on its last line, not the manifest's next
        line = min(first + mark.line, last) if first is not None and last is not None and mark is not None \
            else key_line
        raise InputError(f"{what} is not valid YAML: {exc.problem or exc.context}", out.path, line) from None
    except YAMLError as exc:
        raise InputError(f"{what} is not valid YAML: {exc}", out.path, key_line) from None


def nested(values: Values, key: str, what: str, at: str = "") -> Values | None:
    """The values written as YAML text under `key` (`helm.values: |`), lines offset to the file's; `at`
    names the keys of the text in messages."""
    text, key_line = values.get(key), values.line(key)
    if not isinstance(text, str) or not text.strip():
        return None
    first = values.text_start(key)
    node = parse_yaml_text(text, values.out, first, key_line, what)
    if node is None:
        return None
    if not isinstance(node, dict):
        raise InputError(f"{what} must hold a YAML mapping of chart values", values.out.path, key_line)
    if first is None:
        return Values(node, values.out, values.label, at, pinned=key_line)
    return Values(node, values.out, values.label, at, offset=first - 1)


def go_float(number: float) -> str:
    """A float64 as Go's %v prints it: the shortest digits, in exponent form from 1e+06 up or below 1e-04."""
    if number == 0:
        return "0"
    _, digits, exponent = Decimal(repr(abs(number))).normalize().as_tuple()
    text, power = "".join(map(str, digits)), len(digits) + int(exponent) - 1
    sign = "-" if number < 0 else ""
    if power < -4 or power >= 6:
        mantissa = text[0] + (f".{text[1:]}" if len(text) > 1 else "")
        return f"{sign}{mantissa}e{'+' if power >= 0 else '-'}{abs(power):02d}"
    return sign + format(Decimal(repr(abs(number))).normalize(), "f")


def go_text(value: Any) -> str:
    """The text `{{ $value }}` or `quote` prints for a value Helm read from YAML (numbers are float64)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return go_float(float(value))
    if isinstance(value, list):
        return "[" + " ".join(go_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_text(v)}" for k, v in sorted(value.items(), key=str)) + "]"
    return "" if value is None else str(value)


def printed_as_exponent(value: Any) -> str | None:
    """What Go's %v prints for a YAML number it writes in exponent form (1e+06 and up), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    text = go_float(float(value))
    return text if "e" in text else None


def exponent_problem(what: str, value: Any, printed: str) -> str:
    return (f"{what}: {value} reaches Kafka as {printed}: Helm reads YAML numbers as floats and the chart's "
            f"template prints this one in exponent form, which Kafka does not parse as a number; write it as "
            f"a string: \"{value}\"")


def yaml_text(value: Any) -> str | None:
    """The text `toYaml` (the charts' common.tplvalues.render) prints for a scalar; None for a list or
    mapping, which would print as YAML lines rather than a Kafka value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, (list, dict)):
        return None
    return "null" if value is None else str(value)


def literal(raw: Any, what: str, line: int | None, out: ResourceReading) -> bool:
    """Whether a value is a literal kcliff reads; when it is not (Helm templating, a `${...}`
    substitution), a note on its line says so."""
    if not isinstance(raw, str):
        return True
    if TEMPLATE in raw:
        out.note(line, f"{what} = {raw.strip()} is Helm templating, rendered at install: not a literal; kcliff "
                       "does not guess it")
        return False
    if SUBSTITUTION in raw:
        out.note(line, f"{what} = {raw.strip()} is substituted later (Flux post-build variables, the container's "
                       "shell, or a Kafka config provider): not a literal; kcliff does not guess it")
        return False
    return True


def setting(values: Values, scope: str, name: str, raw: Any, line: int | None, what: str, resource: str,
            topic: str | None = None) -> None:
    """A setting read from the values, unless it is not a literal (then noted)."""
    if literal(raw, what, line, values.out):
        values.out.entries.append(RawEntry(scope, name, raw, values.out.path, line, topic, resource))


def properties_text(values: Values, key: str, resource: str, scope: str = "broker") -> None:
    """The server.properties text under `key` (`extraConfig: |`), each setting on its line of the block;
    a line holding Helm templating is noted (the chart renders the text with `tpl`), not guessed."""
    text, key_line = values.get(key), values.line(key)
    if text is None or text == "":
        return
    if not isinstance(text, str):
        values.problem(key, f"{values.name(key)} must be server.properties text (a string such as `|` followed by "
                            f"key=value lines), got {type(text).__name__}")
        return
    first = values.text_start(key)

    def at(index: int) -> int | None:  # 0-based line of the text -> line of the file
        return first + index if first is not None else key_line

    kept = []
    for index, line in enumerate(text.split("\n")):
        if TEMPLATE in line:
            values.out.note(at(index), f"{values.name(key)}: `{line.strip()}` is Helm templating, rendered at "
                                       "install: not a literal; kcliff does not guess it")
            line = ""
        kept.append(line)
    try:
        parsed = parse_text("\n".join(kept), values.out.path)
    except InputError as exc:
        raise InputError(f"{values.name(key)}: {exc.message}", values.out.path,
                         at((exc.line or 1) - 1)) from None
    for name, raw, number in parsed:
        setting(values, scope, name, raw, at(number - 1), f"{values.name(key)} '{name}'", resource)


def yaml_settings(values: Values, key: str, resource: str) -> None:
    """A mapping of Kafka keys under `key` (`extraConfigYaml`, `overrideConfiguration`); see yaml_mapping."""
    node = values.child(key)
    if node is not None:
        yaml_mapping(node, resource)
    elif values.get(key) not in (None, {}, ""):
        values.problem(key, f"{values.name(key)} must be a mapping of Kafka keys to values")


def yaml_mapping(node: Values, resource: str) -> None:
    """Each Kafka key of a mapping, its value printed as the chart's `toYaml` prints it; a list or
    mapping as a value is bad input on its line."""
    for name, raw in node.node.items():
        line, what = node.line(name), node.name(str(name))
        text = yaml_text(raw)
        if text is None:
            kind = "list" if isinstance(raw, list) else "mapping"
            node.problem(name, f"{what}: a {kind} prints as YAML lines, not a Kafka value; write the value Kafka "
                               "takes (a comma-separated string for a list)")
            continue
        setting(node, "broker", str(name), text, line, what, resource)
