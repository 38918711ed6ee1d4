"""Find the Kafka config files in a repo directory and read them.

Decided per directory: a kcliff.yaml there alone says which files play which role; otherwise every
file below it whose name says its role (server/broker, producer, consumer, topics: the whole file
stem or a part of it separated by '-', '_' or '.'; Spring Boot's application*.yml/.properties) is
read, and every file whose text says what it holds, whatever its name: YAML of Strimzi
(kafka.strimzi.io) or Confluent for Kubernetes (platform.confluent.io) resources, and .tf files
declaring Terraform's Kafka resources, Kafka Connect's connector JSON and worker .properties
(connect_files.py). A file named on the command line
gets its role the same way. The kcliff.yaml format and examples: docs/gate.md ("Finding the files").

Every file read must resolve inside the config repo directory (and a directory or file named on the
command line inside the git checkout holding it): a symbolic link leading out is refused before
anything behind it is read, since a setting's text can end up in a public pull-request annotation.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Protocol

from kcliff import yamlio
from kcliff.configrepo import ansible, cfk, compose, connect, connect_files, consumption, helm, librdkafka, manifests, \
    rdkafka_producer, read_release, spring_boot, strimzi, terraform
from kcliff.configrepo.model import Entry, Note, RawEntry, ReadResult, RepoFile, TopicDecl, VersionDecl
from kcliff.configrepo.properties import PropertiesReader
from kcliff.configrepo.production import Production, read_production, unknown_producers
from kcliff.configrepo.topics import TopicsYamlReader
from kcliff.configrepo.validate import Release, validate
from kcliff.configrepo.version_file import FILE_NAMES as VERSION_FILES
from kcliff.configrepo.version_file import VersionFileReader, one_version
from kcliff.errors import InputError, Problems, raise_all
from kcliff.scenario.profile import Profile, read_profile

MANIFEST = "kcliff.yaml"


class Reader(Protocol):
    @property
    def roles(self) -> tuple[str, ...]: ...  # the roles a file of this format can play

    def read(self, path: Path, role: str) -> ReadResult: ...


# format name -> reader. A new format (Terraform's kafka_topic next) is a reader whose read(path, role)
# returns RawEntry items with their scope; register it here and give it a role.
READERS: dict[str, Reader] = {"properties": PropertiesReader(), "topics-yaml": TopicsYamlReader(),
                              "kafka-version": VersionFileReader(), "strimzi": strimzi.StrimziReader(),
                              "terraform": terraform.TerraformReader(), "cfk": cfk.CfkReader(),
                              "spring-boot": spring_boot.SpringBootReader(), "helm-values": helm.HelmValuesReader(),
                              "helm-gitops": helm.HelmGitOpsReader(), "ansible": ansible.AnsibleReader(),
                              "compose": compose.ComposeReader(), "kubernetes": manifests.ManifestsReader(),
                              "librdkafka": librdkafka.LibrdkafkaReader(), "connect": connect_files.ConnectReader()}
ROLE_FORMAT = {"broker": "properties", "producer": "properties", "consumer": "properties", "topics": "topics-yaml",
               "kafka-version": "kafka-version", "strimzi": "strimzi", "terraform": "terraform", "cfk": "cfk",
               "spring-boot": "spring-boot", "bitnami-kafka": "helm-values", "cp-kafka": "helm-values",
               "helm-gitops": "helm-gitops", "ansible": "ansible", "compose": "compose", "kubernetes": "kubernetes",
               **{role: "librdkafka" for role in librdkafka.ROLES}, **{role: "connect" for role in connect_files.ROLES}}
ROLE_WORDS = {"broker": ("server", "broker"), "producer": ("producer",), "consumer": ("consumer",),
              "topics": ("topics",)}
ROLE_SUFFIXES = {"broker": (".properties",), "producer": (".properties",), "consumer": (".properties",),
                 "topics": (".yaml", ".yml")}
YAML_SUFFIXES = (".yaml", ".yml")
CONTENT_SUFFIXES = (*YAML_SUFFIXES, ".tf", ".json", *librdkafka.SUFFIXES)  # files whose role their text says (CONTENT_ROLES)
# The roles a file's text says, tried in this order (the first that claims a file wins): (the file suffixes
# it is looked for in, None for any; the role the file's text says it plays, or None). Each test reads the text and matches it
# with a regular expression first, so a repo of hundreds of other YAML files is not parsed; a new format
# that is found by content is one more line here.
CONTENT_ROLES: tuple[tuple[tuple[str, ...] | None, Callable[[Path], str | None]], ...] = (
    (YAML_SUFFIXES, lambda p: "strimzi" if strimzi.holds_resources(p) else None),
    (YAML_SUFFIXES, lambda p: "cfk" if cfk.holds_resources(p) else None),
    (YAML_SUFFIXES, helm.file_role),  # by the Chart.yaml beside the values, or a HelmRelease/Application
    (None, lambda p: "ansible" if ansible.holds_settings(p) else None),  # group_vars files may have no suffix
    ((".tf",), lambda p: "terraform" if terraform.holds_resources(p) else None),
    (YAML_SUFFIXES, lambda p: "compose" if compose.holds_brokers(p) else None),
    (YAML_SUFFIXES, lambda p: "kubernetes" if manifests.holds_kafka(p) else None),
    (connect_files.SUFFIXES, connect_files.file_role),  # a connector's JSON or a Connect worker's properties
    (librdkafka.SUFFIXES, librdkafka.file_role))  # a librdkafka client's file, by a key only librdkafka has
CLIENT_ROLES = ("producer", "consumer")
SKIP_DIRS = {".git", "node_modules", ".venv", "__pycache__"}
MANIFEST_KEYS = ("version", "files", "measure", "producers", "rates", "consumers", "profile")


@dataclass(frozen=True)
class Measure:
    """kcliff.yaml's `measure:`: which topic, producer file and consumer file `check` measures; and its
    `producers:` and `rates:`, how each producer runs in production (configrepo/production.py)."""

    topic: str | None = None
    producer: str | None = None
    consumer: str | None = None
    productions: tuple[Production, ...] = ()
    profile: Profile | None = None  # the production cluster's shape (scenario/profile.py)
    consumptions: tuple[RawEntry, ...] = ()  # `consumers:`, how each consumer consumes (configrepo/consumption.py)


@dataclass
class ConfigRepo:
    files: list[RepoFile] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    topics: list[TopicDecl] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    measure: Measure = field(default_factory=Measure)
    kafka_version: VersionDecl | None = None  # None: the repo does not say; kcliff's default version
    release: Release | None = None  # the release its keys were checked at (None: not read by load)

    def in_scope(self, scope: str) -> list[Entry]:
        return [e for e in self.entries if e.scope == scope]

    def files_with_role(self, role: str) -> list[str]:
        """Files of `role`, and of a client's role a file that sets that client's too (a Spring Boot file; a sink's)."""
        scopes = (role, consumption.SCOPE) if role == "consumer" else (role,) if role in CLIENT_ROLES else ()
        # a Spring listener or a sink connector makes its file a consumer's; kcliff.yaml's consumers: are not in it
        holding = {e.path for e in self.entries if e.scope in scopes and not (e.scope == consumption.SCOPE and e.resource)
                   } | (connect.sink_files(self.entries) if role == "consumer" else set())
        return [f.path for f in self.files if f.role == role or f.path in holding]


def role_from_name(path: Path) -> str | None:
    name = path.name.lower()
    if name in VERSION_FILES:
        return "kafka-version"
    if spring_boot.is_application_file(path):
        return "spring-boot"
    for role, words in ROLE_WORDS.items():
        suffix = next((s for s in ROLE_SUFFIXES[role] if name.endswith(s)), None)
        if suffix is None:
            continue
        parts = re.split(r"[-_.]", name[: -len(suffix)])
        if any(w in parts for w in words):
            return role
    return None


def file_role(path: Path) -> str | None:
    """A file's role: by content (CONTENT_ROLES: a topics.yaml may hold KafkaTopics), else by name.
    Reads the file: call it only once the file is known not to lead out of the repo."""
    suffix = path.suffix.lower()
    found = next((role for suffixes, sniff in CONTENT_ROLES
                  if (suffixes is None or suffix in suffixes) and (role := sniff(path))), None)
    return found or role_from_name(path)


def checkout_root(path: Path) -> Path | None:
    """The git checkout holding `path`: the nearest directory above it, as written, with a .git. A
    directory that is itself a link does not count, so a committed link cannot pose as the checkout."""
    here = Path(os.path.abspath(path))
    for directory in (here, *here.parents):
        if not directory.is_symlink() and (directory / ".git").exists():
            return directory if path.is_absolute() else Path(os.path.relpath(directory))  # errors name it as given
    return None


def _resolves_inside(path: Path, top: Path) -> bool:
    try:
        return path.resolve().is_relative_to(top)
    except (OSError, RuntimeError):  # a link loop leads nowhere inside
        return False


def refuse_links_out(path: Path, boundary: Path) -> None:
    """InputError when `path` resolves outside `boundary`, naming the link in the repo that leads out
    (never its target; nothing behind it has been read)."""
    top = boundary.resolve()
    if _resolves_inside(path, top):
        return
    link = path
    relative = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(boundary))).parts
    for depth in range(1, len(relative) + 1):
        step = boundary.joinpath(*relative[:depth])
        if ".." not in relative[:depth] and step.is_symlink() and not _resolves_inside(step, top):
            link = step
            break
    raise InputError(f"a symbolic link leading out of the config repo {boundary}: kcliff reads only files inside "
                     "it (links that stay inside the repo are fine)", str(link))


def _by_convention(root: Path, notes: list[Note]) -> list[RepoFile]:
    found: list[RepoFile] = []
    for path in sorted(root.rglob("*")):
        if any(p in SKIP_DIRS or p.startswith(".") for p in path.relative_to(root).parts[:-1]):
            continue
        if path.is_symlink() and path.is_dir() and path.name not in SKIP_DIRS and not path.name.startswith("."):
            refuse_links_out(path, root)  # rglob does not walk into it; one leading out is refused, not skipped
            continue
        if not path.is_file():
            continue
        if role_from_name(path):
            refuse_links_out(path, root)
        elif path.suffix.lower() in CONTENT_SUFFIXES and not _resolves_inside(path, root.resolve()):
            notes.append(Note(str(path), None, "a symbolic link leading out of the repo; not read"))
            continue
        role = file_role(path)
        if role:
            found.append(RepoFile(str(path), role, ROLE_FORMAT[role]))
        elif path.suffix == ".properties":
            notes.append(Note(str(path), None, "not a broker/producer/consumer file by its name; skipped "
                                               f"(map it in {MANIFEST} to read it)"))
        elif (hint := helm.unread_hint(path)) is not None:
            notes.append(hint)
    return found


def _manifest(root: Path, found: Problems) -> tuple[list[RepoFile] | None, Measure]:
    """The files kcliff.yaml names (None: it names none, so they are found by convention) and its
    `measure:`, `producers:` and `rates:`; every bad entry goes to `found`, for the caller to raise with the rest."""
    path = root / MANIFEST
    refuse_links_out(path, root)
    data = yamlio.load(path)
    where = str(path)
    if not isinstance(data, dict):
        raise InputError(f"expected a mapping with {', '.join(MANIFEST_KEYS)}", where, 1)
    for key in data:
        if key not in MANIFEST_KEYS:
            found.add(InputError(f"unknown key '{key}': expected one of {', '.join(MANIFEST_KEYS)}", where,
                                 yamlio.key_line(data, key)))
    if data.get("version", 1) != 1:
        found.add(InputError(f"version {data.get('version')!r} is not one this kcliff reads (1)", where,
                             yamlio.key_line(data, "version")))
    items = data.get("files")
    if "files" in data and (not isinstance(items, list) or not items):
        found.add(InputError("'files' must be a non-empty list of {path, role}", where,
                             yamlio.key_line(data, "files") or 1))
        items = []
    files: list[RepoFile] = []
    for index, item in enumerate(items or []):
        with found.catch():
            files.extend(_manifest_files(root, item, where, yamlio.key_line(items, index)))
    measure = data.get("measure") or {}
    if not isinstance(measure, dict) or any(k not in ("topic", "producer", "consumer") for k in measure):
        found.add(InputError("'measure' takes topic, producer and consumer", where, yamlio.key_line(data, "measure")))
        measure = {}
    productions = read_production(data.get("producers"), data.get("rates"), data, root, where, found)
    producer, consumer = measure.get("producer"), measure.get("consumer")
    profile = read_profile(data["profile"], where, yamlio.key_line(data, "profile"), found) if "profile" in data else None
    consumers = tuple(consumption.read_manifest(data.get("consumers"), data, root, where, found))
    return files if "files" in data else None, Measure(measure.get("topic"), str(root / producer) if producer else None,
                                                       str(root / consumer) if consumer else None, productions, profile,
                                                       consumers)


def _manifest_files(root: Path, item: Any, where: str, line: int | None) -> list[RepoFile]:
    """The files one entry of kcliff.yaml's `files:` names, or an InputError on its line."""
    if not isinstance(item, dict) or not isinstance(item.get("path"), str):
        raise InputError("each file entry needs 'path' (a path or glob relative to this file) and 'role'", where, line)
    extra = [k for k in item if k not in ("path", "role", "format")]
    if extra:
        raise InputError(f"unknown key '{extra[0]}': expected path, role, format", where, line)
    fmt = item.get("format")
    if fmt is not None and fmt not in READERS:
        raise InputError(f"format {fmt!r}: expected one of {', '.join(READERS)}", where, line)
    role = item.get("role", READERS[fmt].roles[0] if fmt and len(READERS[fmt].roles) == 1 else None)
    if role not in ROLE_FORMAT:
        raise InputError(f"role {role!r}: expected one of {', '.join(ROLE_FORMAT)}", where, line)
    fmt = fmt or ROLE_FORMAT[role]
    if role not in READERS[fmt].roles:
        raise InputError(f"role {role!r} with format {fmt!r}: that format reads "
                         f"{', '.join(READERS[fmt].roles)}", where, line)
    pattern = item["path"]
    if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
        raise InputError(f"path {pattern!r} must stay inside the repo (relative, no '..')", where, line)
    matches = sorted(p for p in root.glob(pattern) if p.is_file())
    if not matches:
        raise InputError(f"path {pattern!r} matches no file under {root}", where, line)
    for match in matches:
        refuse_links_out(match, root)
    return [RepoFile(str(p), role, fmt) for p in matches]


def _repo_root_of(path: Path, root: Path | None) -> Path | None:
    """The checkout `path` must stay inside: `root` when given (it must hold the path), else the git
    checkout around it, if any."""
    if root is None:
        return checkout_root(path)
    if not root.is_dir():
        raise InputError("no such directory (the repository root)", str(root))
    if not Path(os.path.abspath(path)).is_relative_to(os.path.abspath(root)):
        raise InputError(f"is not inside the repository root {root}: give a path inside it", str(path))
    return root


def discover(paths: list[str], root: Path | None = None, collect: Problems | None = None
             ) -> tuple[list[RepoFile], list[Note], Measure]:
    """The files to read; `root` is the repository root the paths lie in (default: their git checkout).
    `collect` takes a kcliff.yaml's bad entries instead of raising them, so its files' own are found too."""
    files: list[RepoFile] = []
    notes: list[Note] = []
    measure = Measure()
    for given in paths:
        path = Path(given)
        checkout = _repo_root_of(path, root)
        if checkout is not None and path.exists():
            refuse_links_out(path, checkout)
        if path.is_dir():
            named, problems = None, Problems()  # every bad entry of a kcliff.yaml, reported together
            if (path / MANIFEST).is_file():
                with problems.catch():  # a kcliff.yaml that is no mapping: the files are found by convention
                    named, measure = _manifest(path, problems)
            found = named if named is not None else _by_convention(path, notes)
            producers = [f.path for f in found if f.role in ("producer", "spring-boot", "connector", "strimzi", "cfk",
                                                             *rdkafka_producer.PRODUCER_ROLES)]
            consumers = [f.path for f in found if f.role in ("consumer", "spring-boot", "connector", "strimzi", "cfk")]
            bad = sorted(problems.found + unknown_producers(measure.productions, producers)
                         + consumption.unknown_consumers(list(measure.consumptions), consumers), key=lambda p: p.line or 0)
            if collect is None or not found:  # with nothing found, what is wrong with kcliff.yaml is why
                raise_all(bad)
            else:
                collect.found.extend(bad)
            if not found:
                raise InputError("no Kafka config files found: expected server.properties, producer.properties, "
                                 "consumer.properties, topics.yaml, YAML files of Strimzi or Confluent for "
                                 "Kubernetes resources, Terraform .tf files of Kafka topics, MSK configurations or "
                                 "Aiven, Confluent Cloud and DigitalOcean Kafka settings, cp-ansible inventories, "
                                 "group_vars or host_vars, Spring Boot application files, Helm values of Bitnami's "
                                 "kafka chart or cp-kafka (beside a Chart.yaml naming it, or in a Flux HelmRelease or "
                                 "Argo CD Application), docker-compose files or Kubernetes manifests running a Kafka "
                                 "broker image, ConfigMaps of Kafka .properties, Kafka Connect connectors (JSON) and "
                                 "workers (connect-*.properties), librdkafka client files "
                                 f"(or a {MANIFEST} naming them)", given)
            files.extend(found)
        elif path.is_file():
            role = file_role(path)
            if role is None:
                raise InputError("cannot tell what this file configures from its name: name it server.properties, "
                                 "producer.properties, consumer.properties, topics.yaml or application.yml (or write "
                                 "Strimzi or CFK resources, Terraform Kafka resources, compose services or Kubernetes "
                                 "workloads of a Kafka broker image in it), or pass its "
                                 f"directory with a {MANIFEST} mapping it", given)
            files.append(RepoFile(given, role, ROLE_FORMAT[role]))
        else:
            raise InputError("no such file or directory", given)
    unique = list({f.path: f for f in files}.values())
    return unique, notes, measure


def load(paths: list[str], root: Path | None = None) -> ConfigRepo:
    """Discover, read and validate every file: InputErrors with every bad key or value (file:line)."""
    manifest = Problems()
    files, notes, measure = discover(paths, root, manifest)
    raw_entries = list(measure.consumptions)
    topics: list[TopicDecl] = []
    versions: list[VersionDecl] = []
    read: list[RepoFile] = []
    problems: list[InputError] = list(manifest.found)
    for f in files:
        try:
            result = READERS[f.format].read(Path(f.path), f.role)
        except InputError as exc:  # this file is not read; every other one still is
            problems.append(exc)
            continue
        raw_entries.extend(result.entries)
        topics.extend(result.topics)
        notes.extend(result.notes)
        versions.extend([result.kafka_version] if result.kafka_version else [])
        read.append(replace(f, resources=tuple(result.resources)))
    version: VersionDecl | None = None
    try:
        version = one_version(versions)
    except InputError as exc:
        problems.append(exc)
    release = read_release.read_at(version)
    entries, more_notes, invalid = validate(raw_entries, release)
    # one line read for several resources (a compose anchor all brokers merge) says its problem once
    found = {(p.path, p.line, p.message): p for problem in problems + invalid for p in problem.problems}
    raise_all(sorted(found.values(), key=lambda p: (p.path or "", p.line or 0)))
    notes = read_release.release_notes(release, version) + read_release.measurement_notes(release, version, entries) \
        + notes + more_notes + consumption.implied_notes(entries)
    return ConfigRepo(read, entries, topics, list(dict.fromkeys(notes)), measure, version, release)
