"""A Kafka broker container's environment, read as its image's entry script reads it (images.py): what
docker-compose services (compose.py) and Kubernetes workloads (workloads.py) have alike.

Each setting stays on the line that writes it (a compose file's, an env_file's, a ConfigMap's). Values
kcliff cannot read as written (compose's ${VAR} interpolation, Kubernetes' $(VAR), a Secret, a template)
are noted and not guessed. The brokers of one file are one cluster: where brokers of the same roles set
a key differently, or only some set it, a warning says so (Kafka allows it; `kcliff check` applies one
broker config to every broker, and refuses two different values).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from kcliff import yamlio
from kcliff.configrepo.images import Image, VarKind, read_variable, release_of, spelling
from kcliff.configrepo.model import Note, NoteLevel, RawEntry
from kcliff.configrepo.reading import ResourceReading
from kcliff.configrepo.version_file import check as check_version
from kcliff.errors import InputError
from kcliff.kafka import dist as kafka_dist

# Keys each node of a cluster sets to its own value: who it is, where it listens, where its data is.
PER_NODE = frozenset({"node.id", "broker.id", "advertised.listeners", "listeners", "log.dirs", "log.dir",
                      "broker.rack", "process.roles", "advertised.host.name", "advertised.port"})
TEMPLATE_MARKS = ("{{", "{%")
# The images' entry scripts (apache/kafka's, Confluent's, Bitnami's): a command naming one still runs it.
ENTRY_SCRIPTS = ("/etc/kafka/docker/run", "/etc/confluent/docker/run", "/opt/bitnami/scripts/kafka/")


@dataclass(frozen=True)
class EnvVar:
    """One variable of a container's environment, where it is written."""

    name: str
    value: Any  # as written: a string, or a YAML scalar in a compose file
    path: str
    line: int | None
    unresolved: str | None = None  # why the value is not a literal kcliff reads (None: it is one)

    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


def template_mark(value: Any) -> str | None:
    """Why a value is not a literal when it holds Helm or Jinja templating."""
    if isinstance(value, str) and any(mark in value for mark in TEMPLATE_MARKS):
        return "a template (Helm, Jinja) rendered before it is deployed"
    return None


def runs_entry_script(*commands: Any) -> bool:
    """Whether a container's command (compose's entrypoint and command, Kubernetes' command and args) leaves
    the image's entry script to run: none is set, or one names the script."""
    given = [c for c in commands if c is not None]
    parts = [str(part) for c in given for part in (c if isinstance(c, list) else [c])]
    return not given or any(script in part for part in parts for script in ENTRY_SCRIPTS)


def configures_broker(image: Image, label: str, commands: tuple[Any, ...], line: int | None,
                      out: ResourceReading) -> bool:
    """Whether a broker image's container runs its entry script, so that its environment configures the
    broker; noted when its own command replaces the script (a tools container, a broker from a mounted file)."""
    if runs_entry_script(*commands):
        return True
    out.note(line, f"{label} runs {image.name} with a command of its own, not the image's entry script (a tools "
                   "container, or a broker started from a mounted file): its environment configures no broker; not read")
    return False


def not_a_broker(what: str, image: Any) -> str:
    """The note on a container of another image that sets KAFKA_* variables (an application, a UI, a proxy)."""
    return (f"{what} runs {image or 'a built image'}, not a Kafka broker image kcliff reads (apache/kafka, "
            "confluentinc/cp-kafka or cp-server, bitnami/kafka): its KAFKA_* variables configure it, not the "
            "brokers; not read")


def is_yaml(path: Path, text: str) -> bool:
    """Whether a file whose text a sniffer matched is YAML: a template (Helm's templates/) is not until
    rendered; only a text holding template marks is parsed to tell."""
    if not any(mark in text for mark in TEMPLATE_MARKS):
        return True
    try:
        yamlio.load_all(path)
    except InputError:
        return False
    return True


def load_rendered(path: Path, out: ResourceReading) -> list[Any] | None:
    """The file's YAML documents; None, with a note, when it is a template that is not YAML until rendered
    (a Helm chart's templates/), which kcliff does not render."""
    try:
        return yamlio.load_all(path)
    except InputError:
        text = yamlio.read_text(path)
        if not any(mark in text for mark in TEMPLATE_MARKS):
            raise
    out.note(None, "a template (Helm, Jinja) that is not YAML until rendered: not read; render it (helm template) "
                   "and check the output")
    return None


def _text(value: Any) -> str:
    """A variable's value as the container receives it (compose turns YAML numbers and booleans into text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def image_version(image: Image, label: str, line: int | None, out: ResourceReading) -> None:
    """The Kafka release the image tag names, as the file's version; a note when derived or not known."""
    release = release_of(image)
    if release.note:
        unknown = "" if release.version else f"; kcliff reads the repo at its other files' version, else Kafka " \
                                              f"{kafka_dist.DEFAULT_VERSION}"
        out.note(line, f"{label}: {release.note}{unknown}")
    if release.version:
        try:
            out.versions.append(check_version(release.version, out.path, line))
        except InputError as exc:
            out.problems.append(exc)


def settings_of(image: Image, variables: Sequence[EnvVar], label: str, out: ResourceReading) -> list[RawEntry]:
    """The broker settings `image` writes from `variables` (in rising precedence: a later variable of a name
    wins, as in compose and Kubernetes), each where it is written; the rest noted, and what the image
    refuses added to out.problems."""
    final: dict[str, EnvVar] = {}
    for var in variables:
        if var.name in final:
            earlier = final.pop(var.name)
            out.notes.append(Note(earlier.path, earlier.line, f"{label}: {var.name} is set again at {var.where()}, "
                                                              "which wins"))
        final[var.name] = var
    chosen: dict[str, tuple[bool, EnvVar]] = {}  # broker key -> (a Bitnami legacy alias?, the variable)
    for var in final.values():
        reading = read_variable(image, var.name)
        if reading.kind is VarKind.REFUSED:
            out.problems.append(InputError(f"{var.name}: {reading.why}", var.path, var.line))
        elif reading.kind in (VarKind.OWN, VarKind.LINK):
            out.notes.append(Note(var.path, var.line, f"{var.name} is {reading.why}"))
        elif reading.kind is VarKind.SETTING and reading.key is not None:
            if var.unresolved:
                out.notes.append(Note(var.path, var.line, f"{var.name} ('{reading.key}') is {var.value!r}: "
                                                          f"{var.unresolved}; not a literal, kcliff does not guess it"))
                continue
            _choose(chosen, reading.key, reading.alias, var, label, out)
    spell = spelling(image.family)
    return [RawEntry("broker", key, _text(var.value), var.path, var.line, resource=label, spelled=spell)
            for key, (_, var) in chosen.items()]


def _choose(chosen: dict[str, tuple[bool, EnvVar]], key: str, alias: bool, var: EnvVar, label: str,
            out: ResourceReading) -> None:
    """Record `var` as `key`'s; Bitnami's legacy alias wins over the KAFKA_CFG_ form whatever the order."""
    if key in chosen:
        was_alias, earlier = chosen[key]
        loser, winner = (var, earlier) if was_alias and not alias else (earlier, var)
        out.notes.append(Note(loser.path, loser.line, f"{label}: {loser.name} and {winner.name} both set '{key}'; "
                                                      f"the image writes {winner.name}'s value ({winner.where()})"))
        if winner is earlier:
            return
    chosen[key] = (alias, var)


def disagreements(brokers: Sequence[tuple[str, Sequence[RawEntry]]]) -> list[Note]:
    """Warnings where brokers of one cluster (one file) with the same process.roles differ on a key that is
    not a node's own (PER_NODE): a value set on some brokers only, or different values."""
    groups: dict[str, list[tuple[str, dict[str, RawEntry]]]] = {}
    for label, entries in brokers:
        values = {e.name: e for e in entries}
        roles = values.get("process.roles")
        groups.setdefault(str(roles.raw) if roles else "", []).append((label, values))
    notes: list[Note] = []
    for members in groups.values():
        for key in sorted({k for _, values in members for k in values} - PER_NODE) if len(members) > 1 else []:
            seen = [(label, values[key].raw if key in values else None) for label, values in members]
            if len({raw for _, raw in seen}) < 2:
                continue
            first = next(values[key] for _, values in members if key in values)
            said = "; ".join(f"{label} {'sets ' + repr(raw) if raw is not None else 'leaves it at its default'}"
                             for label, raw in seen)
            notes.append(Note(first.path, first.line, f"the brokers of this cluster differ on '{key}': {said}. Kafka "
                                                      "allows it, but `kcliff check` applies one broker config to every "
                                                      "broker (a value some set, on all) and refuses two different values",
                              NoteLevel.WARNING))
    return notes
