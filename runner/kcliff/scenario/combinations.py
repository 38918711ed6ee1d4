"""Settings Kafka refuses together, and the fault a scenario is measured through: checked where a scenario
file is read (scenario/suites.py), the group's also where a config repo is (configrepo/validate.py)."""

from __future__ import annotations

from typing import Any

from kcliff import yamlio
from kcliff.errors import InputError
from kcliff.results.metrics import Fault
from kcliff.scenario import settings

# kcliff's brokers run the defaults of group.min.session.timeout.ms and group.max.session.timeout.ms: a
# member asking for a session outside them is refused at its join (INVALID_SESSION_TIMEOUT)
GROUP_MIN_SESSION_MS = 6000
GROUP_MAX_SESSION_MS = 1800000
# with group.protocol=consumer (KIP-848) the broker's group.consumer.session.timeout.ms and
# group.consumer.heartbeat.interval.ms decide, and its assignors: the client refuses its own
CLASSIC_ONLY = ("session.timeout.ms", "heartbeat.interval.ms", "partition.assignment.strategy")
# the classic protocol has no brokers' assignor to ask for: the client refuses it
CONSUMER_ONLY = ("group.remote.assignor",)
# a group.consumer.* timeout and the bounds Kafka's GroupCoordinatorConfig holds it within at start-up
_GROUP_BOUNDS = (("group.consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms",
                  "group.consumer.max.session.timeout.ms"),
                 ("group.consumer.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms",
                  "group.consumer.max.heartbeat.interval.ms"))


def producer_problems(producer: dict[str, Any]) -> list[tuple[str, str]]:
    """What the Kafka producer refuses in its settings together (a ConfigException at start): (the setting to
    blame, why). Defaults fill what is not given, as the producer fills them; idempotence conflicts only where
    enable.idempotence=true is set (unset, the producer turns idempotence off instead, since Kafka 3.2)."""
    def value(name: str) -> Any:
        return producer.get(name, settings.require("producer", name).default)

    found = []
    linger, request, delivery = value("linger.ms"), value("request.timeout.ms"), value("delivery.timeout.ms")
    if delivery < linger + request:
        found.append(("delivery.timeout.ms" if "delivery.timeout.ms" in producer else "request.timeout.ms",
                      f"delivery.timeout.ms={delivery} is below linger.ms + request.timeout.ms ({linger} + {request}): "
                      f"the Kafka producer refuses this; raise it to at least {linger + request}"))
    if producer.get("enable.idempotence") is not True:  # left to its default, a conflict turns idempotence off
        return found
    if value("max.in.flight.requests.per.connection") > 5:
        found.append(("max.in.flight.requests.per.connection", "max.in.flight.requests.per.connection above 5 with "
                      "enable.idempotence=true: the Kafka producer refuses this (at most 5); lower it or set "
                      "enable.idempotence=false"))
    if producer.get("retries") == 0:
        found.append(("retries", "retries=0 with enable.idempotence=true: the Kafka producer refuses this "
                      "(idempotence needs retries); raise it or set enable.idempotence=false"))
    return found


def consumer_protocol(consumer: dict[str, Any]) -> bool:
    """Whether the member joins with Kafka 4's group protocol (group.protocol=consumer, KIP-848), where the
    brokers' group.consumer.* settings decide its session and heartbeat."""
    protocol = consumer.get("group.protocol", settings.require("consumer", "group.protocol").default)
    return str(protocol).lower() == "consumer"


def group_problems(consumer: dict[str, Any]) -> list[tuple[str, str]]:
    """What Kafka refuses in a consumer group member's settings: (the setting to blame, why)."""
    found: list[tuple[str, str]] = []
    if consumer_protocol(consumer):
        for name in CLASSIC_ONLY:
            if name in consumer:
                found.append((name, f"consumer setting '{name}' is refused with group.protocol=consumer: the "
                                    "brokers' group.consumer.* settings decide it there"))
        return found
    for name in CONSUMER_ONLY:
        if consumer.get(name) is not None:
            found.append((name, f"consumer setting '{name}' is refused with the classic group protocol: it "
                                "needs group.protocol=consumer"))
    session = consumer.get("session.timeout.ms", settings.require("consumer", "session.timeout.ms").default)
    if isinstance(session, int) and not GROUP_MIN_SESSION_MS <= session <= GROUP_MAX_SESSION_MS:
        found.append(("session.timeout.ms",
                      f"consumer setting 'session.timeout.ms' {session} is outside the brokers' "
                      f"group.min.session.timeout.ms..group.max.session.timeout.ms ({GROUP_MIN_SESSION_MS}.."
                      f"{GROUP_MAX_SESSION_MS}): Kafka refuses the member's join (INVALID_SESSION_TIMEOUT)"))
    heartbeat = consumer.get("heartbeat.interval.ms", settings.require("consumer", "heartbeat.interval.ms").default)
    if isinstance(session, int) and isinstance(heartbeat, int) and heartbeat >= session:
        found.append(("heartbeat.interval.ms",
                      f"consumer setting 'heartbeat.interval.ms' {heartbeat} must be below session.timeout.ms "
                      f"{session}: Kafka's consumer refuses it"))
    return found


def broker_group_problems(broker: dict[str, Any]) -> list[tuple[str, str]]:
    """What a broker refuses at start-up in its group.consumer.* timeouts: each within its bounds, the
    heartbeat below the session (the setting to blame, why)."""
    def value(name: str) -> Any:
        return broker.get(name, settings.require("broker", name).default)

    found: list[tuple[str, str]] = []
    for name, low, high in _GROUP_BOUNDS:
        if not value(low) <= value(name) <= value(high):
            blamed = name if name in broker else low if low in broker else high
            found.append((blamed, f"broker setting '{name}' {value(name)} is outside {low}..{high} "
                                  f"({value(low)}..{value(high)}): the broker refuses to start; set the bound "
                                  "too, or a value within it"))
    session, heartbeat = (n for n, _, _ in _GROUP_BOUNDS)
    if value(heartbeat) >= value(session):
        found.append((heartbeat if heartbeat in broker else session,
                      f"broker setting '{heartbeat}' {value(heartbeat)} must be below '{session}' "
                      f"{value(session)}: the broker refuses to start"))
    return found


def check(blocks: dict[str, dict[str, Any]], path: str, raw: dict[str, Any]) -> None:
    """A scenario file's settings, block by block (`blocks`, read from `raw`): InputError at the first
    setting Kafka would refuse in its company."""
    for scope, problems in (("producer", producer_problems), ("consumer", group_problems),
                            ("broker", broker_group_problems)):
        for name, why in problems(blocks.get(scope, {})):
            raise InputError(why, path, yamlio.key_line(raw.get(scope), name))


def parse_fault(raw: dict[str, Any], path: str) -> Fault:
    """A scenario's `fault:` (the broker kill when it says none); InputError naming the faults otherwise."""
    given = raw.get("fault")
    if given is None:
        return Fault.BROKER_KILL
    try:
        return Fault(given)
    except ValueError:
        raise InputError(f"fault must be one of {', '.join(Fault)}, got {given!r}", path,
                         yamlio.key_line(raw, "fault")) from None
