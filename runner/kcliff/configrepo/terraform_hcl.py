"""A Terraform .tf file as Terraform sees it before evaluating anything (python-hcl2's tree): its
`resource` blocks with their arguments and nested blocks, and each expression as a literal value or,
for anything Terraform would have to evaluate, the text a note shows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kcliff import yamlio
from kcliff.configrepo.reading import ResourceReading
from kcliff.errors import InputError

if TYPE_CHECKING:  # python-hcl2 and lark load only when a .tf file is read: lint's start stays fast
    from hcl2.rules.abstract import LarkElement
    from hcl2.rules.base import AttributeRule, BlockRule, StartRule

MAX_BYTES = 4 * 1024 * 1024
# HCL's template sequences; "$${" and "%%{" are their escapes, which stand for the literal text.
TEMPLATE = re.compile(r"(?<!\$)\$\{|(?<!%)%\{")


@dataclass(frozen=True)
class Expr:
    """An expression as Terraform would see it before evaluating anything: a literal's Python value,
    or, for anything it would have to evaluate, `literal` False and the expression as written."""

    literal: bool
    value: Any
    text: str
    line: int | None
    heredoc: bool = False  # its interpolations are in its text: server_properties checks them key by key


def read_text(path: Path) -> str:
    return yamlio.read_utf8(path, "config files", ": Terraform reads .tf files as UTF-8", "a Terraform .tf text file",
                            MAX_BYTES)


def kafka_string(value: Any) -> str:
    """A literal as the string Kafka receives: Terraform turns numbers and booleans of a map(string) into
    text the same way (1e3 -> "1000", true -> "true")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def line_of(node: LarkElement) -> int | None:
    """Where a node starts: python-hcl2 hands each rule's position on to the lark tree it rebuilds."""
    meta = node.to_lark().meta
    return getattr(meta, "line", None)


def unescape(text: str) -> str:
    return text.replace("$${", "${").replace("%%{", "%{")


def source(serialized: Any) -> str:
    """An expression as a note shows it: `var.x`, not python-hcl2's `${var.x}` wrapping."""
    text = str(serialized)
    return text[2:-1] if text.startswith("${") and text.endswith("}") else text


def inner(node: Any) -> Any:
    """An expression without the parentheses (python-hcl2's expression terms) around it."""
    from hcl2.rules.expressions import ExprTermRule

    while isinstance(node, ExprTermRule):
        node = node.expression
    return node


def expr(node: Any) -> Expr:
    """What an attribute's or map element's value is, without evaluating anything."""
    from hcl2.rules.containers import TupleRule
    from hcl2.rules.expressions import UnaryOpRule
    from hcl2.rules.literal_rules import FloatLitRule, IntLitRule, LiteralValueRule
    from hcl2.rules.strings import HeredocTemplateRule, StringRule
    from hcl2.rules.tokens import StringToken
    from hcl2.utils import SerializationOptions

    line = line_of(node)
    node = inner(node)
    options = SerializationOptions(with_comments=False, strip_string_quotes=True, preserve_heredocs=False,
                                   preserve_scientific_notation=False)
    value = node.serialize(options)
    if isinstance(node, (IntLitRule, FloatLitRule, UnaryOpRule)):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        return Expr(number, value, source(value), line)
    if isinstance(node, LiteralValueRule):  # true, false, null
        return Expr(True, value, str(node.token.value), line)
    if isinstance(node, StringRule):
        literal = all(isinstance(part.content, StringToken) for part in node.string_parts)
        return Expr(literal, unescape(value) if literal else value, value if literal else f'"{value}"', line)
    if isinstance(node, HeredocTemplateRule):  # the trimmed <<- form too; interpolations are in its text
        return Expr(not TEMPLATE.search(value), value, "a heredoc", line, heredoc=True)
    if isinstance(node, TupleRule):
        items = [expr(e) for e in node.elements]
        return Expr(all(i.literal for i in items), [i.value for i in items], source(node.serialize()), line)
    return Expr(False, None, source(value), line)


def not_literal(what: str, e: Expr) -> str:
    return f"{what} is {e.text}: not a literal; kcliff does not guess it"


def literal_text(where: str, e: Expr, out: ResourceReading) -> str | None:
    """The text a provider hands Kafka for a setting's literal value; None once what is not one (an
    expression, null, a list or map) has been noted or refused on its line."""
    if not e.literal:
        out.note(e.line, not_literal(where, e))
    elif e.value is None:
        out.note(e.line, f"{where} is null: Terraform leaves it unset")
    elif isinstance(e.value, (list, dict)):
        out.problem(f"{where} must be a string, number or bool, got {e.text}", e.line)
    else:
        return kafka_string(e.value)
    return None


@dataclass
class ResourceBlock:
    """One `resource "TYPE" "NAME" { ... }` block: its arguments and nested blocks by name."""

    type: str
    name: str
    line: int | None
    attributes: dict[str, AttributeRule]
    blocks: dict[str, list[BlockRule]]

    @property
    def label(self) -> str:
        return f"{self.type}.{self.name}"  # the resource's Terraform address


def parse(text: str, path: str) -> StartRule:
    import hcl2
    from lark.exceptions import UnexpectedInput

    try:
        return hcl2.parses(text)
    except UnexpectedInput as exc:
        raise InputError(f"invalid HCL: {_first_line(str(exc))}", path, exc.line if exc.line > 0 else None) from None
    except Exception as exc:  # the library's own checks of the tree it built: still the file's fault, no traceback
        raise InputError(f"invalid HCL: {_first_line(str(exc))}", path) from None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "cannot parse"


def body(block: BlockRule, where: str, out: ResourceReading) -> tuple[dict[str, AttributeRule], dict[str, list[BlockRule]]]:
    """A block's arguments and nested blocks by name; an argument set twice is a problem (`where` names
    the block in the message)."""
    from hcl2.rules.base import AttributeRule, BlockRule
    from hcl2.utils import SerializationOptions

    plain = SerializationOptions(with_comments=False, strip_string_quotes=True)
    attributes: dict[str, AttributeRule] = {}
    blocks: dict[str, list[BlockRule]] = {}
    for child in block.body.children:
        if isinstance(child, AttributeRule):
            name = str(child.identifier.serialize(plain))
            if name in attributes:
                out.problem(f"{where}: argument '{name}' is set twice (first at line {line_of(attributes[name])}); "
                            "Terraform refuses a duplicate argument", line_of(child))
            attributes.setdefault(name, child)
        elif isinstance(child, BlockRule):
            blocks.setdefault(str(child.labels[0].serialize(plain)), []).append(child)
    return attributes, blocks


def resource_blocks(start: StartRule, out: ResourceReading, types: tuple[str, ...]) -> list[ResourceBlock]:
    """The file's `resource` blocks of the given types, in order; a duplicate argument is a problem."""
    from hcl2.rules.base import BlockRule
    from hcl2.utils import SerializationOptions

    plain = SerializationOptions(with_comments=False, strip_string_quotes=True)
    found: list[ResourceBlock] = []
    for block in start.body.children:
        if not isinstance(block, BlockRule):
            continue
        labels = [str(label.serialize(plain)) for label in block.labels]
        if labels[0] != "resource" or len(labels) != 3 or labels[1] not in types:
            continue
        attributes, blocks = body(block, f"{labels[1]}.{labels[2]}", out)
        found.append(ResourceBlock(labels[1], labels[2], line_of(block), attributes, blocks))
    return found


def map_elements(attribute: AttributeRule, label: str, argument: str, unread: str,
                 out: ResourceReading) -> list[tuple[str, Expr]] | None:
    """A map argument written as a literal object (`config = { "segment.ms" = "20000" }`): each literal
    key with its value's expression, a key Terraform would compute noted on its line; None (with a note
    saying what is `unread`) when the whole argument is an expression."""
    from hcl2.rules.containers import ObjectElemKeyRule, ObjectRule
    from hcl2.rules.literal_rules import IdentifierRule
    from hcl2.rules.strings import StringRule

    node = inner(attribute.expression)
    if not isinstance(node, ObjectRule):
        e = expr(attribute.expression)
        out.note(e.line, f"{label}: {not_literal(argument, e)}, so {unread}")
        return None
    found: list[tuple[str, Expr]] = []
    for element in node.elements:
        key_node = element.key
        written = key_node.value if isinstance(key_node, ObjectElemKeyRule) else None
        if isinstance(written, IdentifierRule) or (isinstance(written, StringRule) and expr(written).literal):
            key = str(expr(written).value) if isinstance(written, StringRule) else str(written.token.value)
            found.append((key, expr(element.expression)))
        else:
            out.note(line_of(element), f"{label}: a {argument} key is {source(key_node.serialize())}: not a literal; "
                                       "kcliff does not guess it")
    return found


def expanded(res: ResourceBlock, out: ResourceReading) -> bool:
    """A resource Terraform repeats per item (for_each, count): its instances are not literals."""
    for meta_argument in ("for_each", "count"):
        if meta_argument in res.attributes:
            e = expr(res.attributes[meta_argument].expression)
            out.note(e.line, f"{res.label}: {meta_argument} = {e.text} makes one resource per item; kcliff does "
                             "not expand it, so what these resources set is not read")
            return True
    return False
