"""Scenarios as data: load scenario files, validate every key and value, and resolve suites.

A scenario file is either one scenario (a mapping with `id`) or a suite (a mapping with
`scenarios:`, a list of them). A scenario has an id, a description, and settings split by where
they live: `broker`, `topic`, `producer`, `consumer`. `workloads` says what is measured: the
producer always (it fills the topic), the consumer and end-to-end latency when asked. Canaries also
carry a `cliff:` block saying which cliff they stand for and how far beyond the reference they must land.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kcliff import resources, yamlio
from kcliff.errors import InputError, Problems
from kcliff.kafka.clients import Client
from kcliff.results.metrics import METRICS, READ_SIDE, Fault, Workload
from kcliff.results.model import REFERENCE_ID
from kcliff.scenario import combinations, json_events, payload_files, payload_key, settings
from kcliff.scenario.consuming import Consuming, of_scenario
from kcliff.scenario.payload import Payload, PayloadKind
from kcliff.scenario.payload_files import PreparedPayload
from kcliff.scenario.rate import Rate, parse_rate

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")
SCENARIO_KEYS = ("id", "description", "broker", "topic", "producer", "consumer", "workloads", "cliff", "rate", "producers",
                 "record_size", "payload", "fault", "consuming")
MAX_PRODUCERS = settings.MAX_PRODUCERS
MAX_RECORD_SIZE = settings.MAX_RECORD_SIZE
CLIFF_KEYS = ("stands_for", "metric", "max_ratio", "max_ratio_where_bytes_bind", "min_client_rtt_ms")
CLIFF_METRICS = tuple(METRICS)
WORKLOADS = tuple(Workload)  # in the order a scenario measures them


@dataclass(frozen=True)
class Cliff:
    """What a canary proves: `metric` relative to the reference must be beyond `max_ratio`.

    For throughput the canary's median must be below max_ratio x reference; for p99 latency the
    reference's p99 must be below max_ratio x the canary's (the canary is that much slower)."""

    stands_for: str
    metric: str = "throughput"
    max_ratio: float = 0.5
    # the producer-broker round trip this cliff needs to show; a cluster known to have less (bare
    # loopback) skips the canary with that reason instead of reporting a blind rig
    min_client_rtt_ms: float = 0.0
    # the bound where capped links or disks bind (a rig profile): a cliff that costs CPU per record is
    # smaller where the CPU has room to spare, as on a byte-bound production cluster (docs/profiles.md)
    max_ratio_where_bytes_bind: float | None = None

    def on_rig(self, bytes_capped: bool) -> Cliff:
        """This cliff with the bound that holds on a rig whose links or disks are capped, or not."""
        if bytes_capped and self.max_ratio_where_bytes_bind is not None:
            return replace(self, max_ratio=self.max_ratio_where_bytes_bind)
        return self


@dataclass(frozen=True)
class Scenario:
    id: str
    description: str
    broker: dict[str, Any] = field(default_factory=dict)
    topic: dict[str, Any] = field(default_factory=dict)
    producer: dict[str, Any] = field(default_factory=dict)
    consumer: dict[str, Any] = field(default_factory=dict)
    workloads: tuple[Workload, ...] = (Workload.PRODUCE,)
    cliff: Cliff | None = None
    source: str = ""
    line: int | None = None
    throughput_limit: int | None = None  # records/s cap for the perf tool (its --throughput): benchmarks' known drops
    rate: Rate | None = None  # the production rate latency is measured at (kcliff.yaml `rates:`); None: none given
    producers: int = 1  # producer processes sending to the topic at once; the figures are their sum
    record_size: int = settings.RECORD_SIZE  # bytes per record; the studies' 1 KiB unless a scenario says
    # what the records are (random letters unless a scenario says); json-events centre on record_size,
    # samples are as long as they are (bytes_per_record is then their mean)
    payload: Payload = Payload.random()
    fault: Fault = Fault.BROKER_KILL  # what its runs through a fault do (docs/failover.md)
    client: Client = Client.JAVA  # the producer's library (kafka/clients.py)
    consuming: Consuming | None = None  # how its consumer commits and works (None: the perf tool reads flat out)

    def settings_in(self, scope: str) -> dict[str, Any]:
        return dict(getattr(self, scope))

    def restart_overrides(self) -> dict[str, Any]:
        """Read-only broker settings away from their defaults: these force a broker restart."""
        return {k: v for k, v in self.broker.items()
                if settings.require("broker", k).apply == "restart" and v != settings.require("broker", k).default}

    def dynamic_broker(self) -> dict[str, Any]:
        return {k: v for k, v in self.broker.items() if settings.require("broker", k).apply != "restart"}

    def waits_on_fsync(self) -> bool:
        """Whether it sets a flush (log.flush.* on the brokers, flush.* on the topic): its cost is the
        brokers' fsync waits, which only a disk that syncs as slowly as a production disk shows."""
        return any(k.startswith("log.flush.") for k in self.broker) or any(k.startswith("flush.") for k in self.topic)

    def partitions(self) -> int:
        return int(self.topic.get("partitions", settings.require("topic", "partitions").default))

    def topic_configs(self) -> dict[str, Any]:
        return {k: v for k, v in self.topic.items() if k != "partitions"}

    def reads(self) -> bool:
        """Measures a read-side workload (consumer or end-to-end) beside the producer."""
        return any(w in READ_SIDE for w in self.workloads)

    def at_rate(self) -> bool:
        """Measures latency at a fixed rate beside the producer flat out."""
        return Workload.RATE in self.workloads

    def beyond_producer(self) -> bool:
        """Measures anything besides the producer flat out (its results entry lists its workloads)."""
        return self.workloads != (Workload.PRODUCE,)

    def prepared_payload(self) -> PreparedPayload | None:
        """The payload's files and figures (payload_files.prepare); None for random letters."""
        return payload_files.prepare(self.payload, self.record_size, MAX_RECORD_SIZE)

    def bytes_per_record(self) -> int:
        """The mean bytes of the records it sends: record_size for random letters, else its payload's
        mean (what turns a rate in MB/s into records/s, and records into bytes)."""
        prepared = self.prepared_payload()
        return self.record_size if prepared is None else max(1, round(prepared.mean_bytes))

    def as_applied(self) -> dict[str, Any]:
        """The settings exactly as kcliff applies them, invariants included; consumer settings only when set, the payload
        only when not random letters (hashes stay what they were), as its content (digest, sizes), never its path."""
        prepared = self.prepared_payload()
        applied: dict[str, Any] = {
            "broker": {**self.broker, **settings.INVARIANTS["broker"]},
            "topic": {"partitions": self.partitions(), **self.topic_configs(), **settings.INVARIANTS["topic"]},
            "producer": {**self.producer, **settings.INVARIANTS["producer"]},
            "record_size": self.bytes_per_record(),
        }
        if prepared is not None:
            applied["payload"] = prepared.applied()
        if self.producers > 1:  # only then, so a lone producer's hash is what it always was
            applied["producers"] = self.producers
        if self.consumer:
            applied["consumer"] = dict(self.consumer)
        unusual = {"fault": (self.fault, Fault.BROKER_KILL), "client": (self.client, Client.JAVA)}  # said only when
        applied |= {k: v.value for k, (v, usual) in unusual.items() if v is not usual}  # not: hashes as they were
        return applied | ({"consuming": self.consuming.applied()} if self.consuming else {})

    def settings_hash(self) -> str:
        """Stable short hash of what is measured, so results can tell when a definition changed."""
        blob = json.dumps(self.as_applied(), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:12]


def _fail(msg: str, path: str, node: Any = None, key: Any = None) -> InputError:
    line = yamlio.key_line(node, key) if key is not None else yamlio.node_line(node)
    return InputError(msg, path, line)


def _settings_block(raw: Any, scope: str, path: str, parent: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise _fail(f"'{scope}' must be a mapping of setting: value", path, parent, scope)
    invariants = settings.INVARIANTS.get(scope, {})
    out: dict[str, Any] = {}
    found = Problems()  # every bad setting of the block, reported together
    for name, value in raw.items():
        name = str(name)
        if name in invariants:
            if value != invariants[name]:
                found.add(_fail(
                    f"{scope} setting '{name}' is fixed at {invariants[name]!r} by kcliff's invariants "
                    f"(acks=all, RF 3, min.insync.replicas=2); remove it or set it to {invariants[name]!r}",
                    path, raw, name))
            continue
        known = settings.lookup(scope, name)
        if known is None:
            found.add(_fail(f"unknown {scope} setting '{name}': {settings.suggest(scope, name)}", path, raw, name))
            continue
        problem = known.check(value)
        if problem:
            found.add(_fail(f"{scope} setting '{name}': {problem}", path, raw, name))
        out[name] = value
    found.raise_all()
    return out


def _cliff(raw: Any, path: str, parent: Any) -> Cliff | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise _fail("'cliff' must be a mapping with stands_for, metric, max_ratio", path, parent, "cliff")
    for key in raw:
        if key not in CLIFF_KEYS:
            raise _fail(f"unknown cliff key '{key}': expected one of {', '.join(CLIFF_KEYS)}", path, raw, key)
    stands_for = raw.get("stands_for")
    if not isinstance(stands_for, str) or not stands_for.strip():
        raise _fail("cliff.stands_for must be a sentence naming the cliff", path, raw if "stands_for" in raw else parent,
                    "stands_for" if "stands_for" in raw else "cliff")
    metric = raw.get("metric", "throughput")
    if metric not in CLIFF_METRICS:
        raise _fail(f"cliff.metric must be one of {', '.join(CLIFF_METRICS)}, got {metric!r}", path, raw, "metric")
    ratio, where_bytes = (_ratio(raw, key, path) for key in ("max_ratio", "max_ratio_where_bytes_bind"))
    if METRICS[metric].exact and (given := [k for k in ("max_ratio", "max_ratio_where_bytes_bind") if k in raw]):
        raise _fail(f"cliff.metric {metric} is counted exactly: the canary shows its cliff by losing any acknowledged "
                    f"record, so it takes no {given[0]}", path, raw, given[0])
    rtt = raw.get("min_client_rtt_ms", 0.0)
    if isinstance(rtt, bool) or not isinstance(rtt, (int, float)) or not 0 <= rtt <= 1000:
        raise _fail(f"cliff.min_client_rtt_ms must be milliseconds between 0 and 1000, got {rtt!r}", path, raw,
                    "min_client_rtt_ms")
    return Cliff(stands_for.strip(), metric, ratio or 0.5, float(rtt), where_bytes)


def _ratio(raw: dict[str, Any], key: str, path: str) -> float | None:
    ratio = raw.get(key)
    if ratio is not None and (isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio < 1):
        raise _fail(f"cliff.{key} must be a number between 0 and 1 (exclusive), got {ratio!r}", path, raw, key)
    return None if ratio is None else float(ratio)


def parse_scenario(raw: Any, path: str, parent: Any = None, index: Any = None) -> Scenario:
    if not isinstance(raw, dict):
        raise _fail("a scenario must be a mapping with id, description, broker, topic, producer", path, parent, index)
    found = Problems()  # every bad key, id and setting of the scenario, reported together
    for key in raw:
        if key not in SCENARIO_KEYS:
            hint = settings.suggest("broker", str(key)) if "." in str(key) else ""
            found.add(_fail(f"unknown scenario key '{key}': expected one of {', '.join(SCENARIO_KEYS)}"
                            + (f" (settings go under broker/topic/producer; {hint})" if hint else ""), path, raw, key))
    sid = raw.get("id")
    if not isinstance(sid, str) or not ID_PATTERN.match(sid):
        found.add(_fail(f"scenario id must match {ID_PATTERN.pattern} (lower case, digits, . _ -), got {sid!r}",
                        path, raw if "id" in raw else parent, "id" if "id" in raw else index))
    description = raw.get("description", "")
    if not isinstance(description, str):
        found.add(_fail("description must be text", path, raw, "description"))
    blocks: dict[str, dict[str, Any]] = {}
    for scope in settings.ALL_SCOPES:
        with found.catch():
            blocks[scope] = _settings_block(raw.get(scope), scope, path, raw)
    cliff = None
    with found.catch():
        cliff = _cliff(raw.get("cliff"), path, raw)
    rate = None
    if "rate" in raw:
        try:
            rate = parse_rate(raw["rate"])
        except ValueError as exc:
            found.add(_fail(str(exc), path, raw, "rate"))
    producers = _count(raw, "producers", 1, 1, MAX_PRODUCERS, path, found, "producer processes at once")
    payload = Payload.random()
    with found.catch():
        payload = payload_key.parse(raw, path, MAX_RECORD_SIZE)
    record_size = _record_size(raw, payload, path, found)
    fault = Fault.BROKER_KILL
    with found.catch():
        fault = combinations.parse_fault(raw, path)
    consumes = None
    with found.catch():
        consumes = of_scenario(raw, path)
    found.raise_all()
    combinations.check(blocks, path, raw)
    workloads = _workloads(raw, path, blocks["consumer"] or consumes is not None, cliff, rate)
    line = yamlio.node_line(raw)
    return Scenario(str(sid), description.strip(), blocks["broker"], blocks["topic"], blocks["producer"],
                    blocks["consumer"], workloads, cliff, path, line, rate=rate, producers=producers,
                    record_size=record_size, payload=payload, fault=fault, consuming=consumes)


def _record_size(raw: dict[str, Any], payload: Payload, path: str, found: Problems) -> int:
    """Bytes per record: what letters are, what json-events centre on; samples are as long as they are."""
    default = payload.default_record_size(settings.RECORD_SIZE)
    if payload.kind is PayloadKind.SAMPLES and "record_size" in raw:
        found.add(_fail("record_size does not apply to payload samples: each record is a sample's own bytes",
                        path, raw, "record_size"))
        return default
    if payload.kind is PayloadKind.JSON_EVENTS:
        return _count(raw, "record_size", default, json_events.SMALLEST_MEDIAN, json_events.LARGEST_MEDIAN, path,
                      found, "bytes the json-events records' sizes centre on (the smallest events take about 350)")
    return _count(raw, "record_size", default, 1, MAX_RECORD_SIZE, path, found,
                  "bytes per record (a record must fit max.request.size and message.max.bytes)")


def _count(raw: dict[str, Any], key: str, default: int, least: int, most: int, path: str, found: Problems,
           what: str) -> int:
    """A whole number of `what` under `key`, within [least, most]; a bad one is added to `found`."""
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        found.add(_fail(f"{key} must be a whole number of {what} from {least:,} to {most:,}, got {value!r}", path,
                        raw, key))
        return default
    return value


def _workloads(raw: dict[str, Any], path: str, consumer: Any, cliff: Cliff | None, rate: Rate | None) -> tuple[Workload, ...]:
    """As written (produce always included: it fills the topic the others read), else what the
    scenario needs: the consumer when it sets consumer settings or how it consumes, latency at its rate when it gives
    one, and what its cliff's metric needs."""
    given = raw.get("workloads")
    if given is None:
        wanted = {Workload.PRODUCE} | ({Workload.CONSUME} if consumer else set()) | ({Workload.RATE} if rate else set())
        if cliff is not None:
            wanted.add(METRICS[cliff.metric].workload)  # a read-side canary measures what it is judged on
        return tuple(w for w in WORKLOADS if w in wanted)
    if not isinstance(given, list) or not given or any(w not in WORKLOADS for w in given):
        raise _fail(f"workloads must be a list of {', '.join(WORKLOADS)}, got {given!r}", path, raw, "workloads")
    if cliff is not None and METRICS[cliff.metric].workload not in given:
        raise _fail(f"cliff.metric {cliff.metric} needs the {METRICS[cliff.metric].workload} workload", path, raw,
                    "workloads")
    return tuple(w for w in WORKLOADS if w in given or w is Workload.PRODUCE)


def reading_reference(scenarios: list[Scenario], read_baseline: bool = True) -> list[Scenario]:
    """The run's scenarios with the reference measuring the read side once any of them reads, and
    latency at rate once any measures it: a canary is judged against the reference's figures from
    the same run, and the reference's end-to-end latency is the read side's baseline in a report.
    Without `read_baseline` (a check's self-test, where the reference is only the canaries' yardstick)
    it reads only what the others read: a consumer check's end-to-end run was 2.4 s a round for nothing."""
    reads = {w for sc in scenarios for w in sc.workloads if w in READ_SIDE}
    wanted = {Workload.PRODUCE}
    wanted |= (set(READ_SIDE) if read_baseline else reads) if reads else set()
    wanted |= {Workload.RATE} if any(sc.at_rate() for sc in scenarios) else set()
    wanted |= {Workload.FAILOVER} if any(Workload.FAILOVER in sc.workloads for sc in scenarios) else set()
    if wanted == {Workload.PRODUCE}:
        return scenarios
    return [dataclasses.replace(sc, workloads=tuple(w for w in WORKLOADS if w in wanted | set(sc.workloads)))
            if sc.id == REFERENCE_ID else sc for sc in scenarios]


def load_file(path: str | Path) -> list[Scenario]:
    path_s = str(path)
    data = yamlio.load(path)
    if not isinstance(data, dict):
        raise InputError("expected a mapping: one scenario (with id) or a suite (with scenarios:)", path_s, 1)
    if "scenarios" not in data:
        return [parse_scenario(data, path_s)]
    extra = [k for k in data if k not in ("scenarios", "description")]
    if extra:
        raise _fail(f"unknown suite key '{extra[0]}': expected scenarios, description", path_s, data, extra[0])
    items = data["scenarios"]
    if not isinstance(items, list) or not items:
        raise _fail("'scenarios' must be a non-empty list of scenarios", path_s, data, "scenarios")
    problems = Problems()  # every bad scenario of the suite, reported together
    found: list[Scenario] = []
    for i, item in enumerate(items):
        with problems.catch():
            found.append(parse_scenario(item, path_s, items, i))
    with problems.catch():
        check_unique(found)
    problems.raise_all()
    return found


def check_unique(scenarios: list[Scenario]) -> None:
    seen: dict[str, Scenario] = {}
    found = Problems()
    for sc in scenarios:
        if (first := seen.setdefault(sc.id, sc)) is not sc:
            found.add(InputError(f"duplicate scenario id '{sc.id}' (first defined at {first.source}:{first.line})",
                                 sc.source, sc.line))
    found.raise_all()


def scenarios_dir() -> Path:
    return resources.project_dir("scenarios")


def resolve_suite(name: str, base: Path | None = None) -> Path:
    """A suite is a name under scenarios/ (canaries, pairwise, ...) or a path to a YAML file."""
    base = base or scenarios_dir()
    candidate = Path(name)
    if candidate.suffix in (".yaml", ".yml") or "/" in name:
        if not candidate.is_file():
            raise InputError(f"suite file not found: {name}")
        return candidate
    path = base / f"{name}.yaml"
    if not path.is_file():
        known = sorted(p.stem for p in base.glob("*.yaml"))
        raise InputError(f"unknown suite '{name}': expected one of {', '.join(known)} or a path to a YAML file")
    return path


def load_suites(names: list[str], with_reference: bool = True, base: Path | None = None) -> list[Scenario]:
    """Reference first (measured in the same run), then each suite's scenarios in file order."""
    found: list[Scenario] = []
    problems = Problems()  # every bad suite file's problems, reported together
    if with_reference:
        with problems.catch():
            found.extend(load_file(resolve_suite(REFERENCE_ID, base)))
    for name in names:
        with problems.catch():
            found.extend(sc for sc in load_file(resolve_suite(name, base))
                         if sc.id != REFERENCE_ID or not with_reference)
    problems.raise_all()
    check_unique(found)
    return found
