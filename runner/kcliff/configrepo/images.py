"""Kafka broker images, and how each one's entry script turns the container's environment into the
broker's server.properties (the images' code, read in their repositories; where their documentation
says otherwise, the code wins):

    apache     apache/kafka, apache/kafka-native     Kafka's docker/ scripts: KafkaDockerWrapper.getServerConfigsFromEnv
               every KAFKA_* but its exclusions; every "KAFKA_" removed, lower case, "_" -> ".", then "..." -> "-"
               and ".." -> "_" (so ___ -> '-', __ -> '_', _ -> '.')
    confluent  confluentinc/cp-kafka, cp-server      kafka-images' kafka.properties.template: env_to_props("KAFKA_")
               (dub; ub's envToProps since 2025): the prefix stripped, lower case, a single "_" -> ".", "___" -> "-",
               "__" -> "_"; CONFLUENT_SUPPORT_* -> confluent.support.*, and in cp-server CONFLUENT_METRICS_* ->
               confluent.metrics.*; its configure script exits on KAFKA_PORT, KAFKA_HOST, KAFKA_ADVERTISED_PORT and
               KAFKA_ADVERTISED_HOST
    bitnami    bitnami/kafka, bitnamilegacy/kafka    libkafka.sh kafka_configure_from_environment_variables: only
               KAFKA_CFG_*, the prefix stripped, every "_" -> ".", lower case (sasl.ssl/sasl.plaintext kept as
               sasl_ssl/sasl_plaintext, ZOOKEEPER_CLIENTCNXNSOCKET -> zookeeper.clientCnxnSocket), plus the legacy
               KAFKA_<name> aliases kafka_create_alias_environment_variables maps (they win over KAFKA_CFG_<name>)

What a variable is to its image is a `VarReading`: a broker setting, the image's own (JVM, logging,
JMX, the cluster id, TLS file names), a Kubernetes service link, something the image refuses or
ignores where a broker setting was meant (bad input), or not the image's at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Callable

from kcliff.configrepo.cfk import kafka_of_platform
from kcliff.configrepo.version_file import newest_patch
from kcliff.kafka import configs as kafka_configs


class Family(StrEnum):
    APACHE = "apache"
    CONFLUENT = "confluent"
    BITNAMI = "bitnami"


IMAGES = {"apache/kafka": Family.APACHE, "apache/kafka-native": Family.APACHE,
          "confluentinc/cp-kafka": Family.CONFLUENT, "confluentinc/cp-server": Family.CONFLUENT,
          "bitnami/kafka": Family.BITNAMI, "bitnamilegacy/kafka": Family.BITNAMI}
_NAMES = "|".join(re.escape(name) for name in sorted(IMAGES, key=len, reverse=True))
# An image reference: any registry or mirror path before the name, a tag, a digest.
_REFERENCE = re.compile(rf"(?:\S*/)?(?P<name>{_NAMES})(?::(?P<tag>[^@\s]+))?(?:@\S+)?")
# A line naming a broker image, for sniffing a file's text before parsing it.
IMAGE_LINE = re.compile(rf"^\s*(?:-\s+)?image:\s*[\"']?(?:\S*/)?(?:{_NAMES})(?=[:@\"'\s]|$)", re.MULTILINE)
_RELEASE = re.compile(r"\d+\.\d+\.\d+")
_BITNAMI_TAG = re.compile(r"(?P<minor>\d+\.\d+)(?P<patch>\.\d+)?(?:-\S+)?")


@dataclass(frozen=True)
class Image:
    reference: str
    name: str  # as IMAGES names it
    tag: str | None

    @property
    def family(self) -> Family:
        return IMAGES[self.name]


def broker_image(reference: object) -> Image | None:
    """The broker image a container runs, or None when `reference` is not one of IMAGES."""
    if not isinstance(reference, str):
        return None
    match = _REFERENCE.fullmatch(reference.strip())
    return Image(reference.strip(), match["name"], match["tag"]) if match else None


@dataclass(frozen=True)
class Release:
    """The Kafka release an image tag names (None: it names none kcliff can tell) and what to say about it."""

    version: str | None
    note: str | None


def release_of(image: Image) -> Release:
    """The Kafka release of an image, from its tag: apache/kafka:3.9.1 is 3.9.1; a Confluent Platform tag
    is its Kafka minor (CP 7.6 ships Kafka 3.6), read at that minor's newest release kcliff knows; Bitnami's
    3.7.0-debian-12-r3 is 3.7.0 and its 3.7 the newest 3.7. No tag, `latest` or a variable: not guessed."""
    tag = image.tag
    if tag is None or tag == "latest" or "$" in tag:
        what = "no tag (Docker runs :latest)" if tag is None else "the tag 'latest'" if tag == "latest" else \
            f"a variable in its tag ({tag})"
        return Release(None, f"{image.reference} has {what}: its Kafka version is not guessed")
    if image.family is Family.APACHE:
        if _RELEASE.fullmatch(tag):
            return Release(tag, None)
    elif image.family is Family.CONFLUENT:
        found = kafka_of_platform(image.reference)
        if found is not None:
            kafka, platform = found
            release = newest_patch(*kafka.split("."))
            return Release(release, f"{image.reference} is Confluent Platform {platform}, which ships Kafka {kafka}; "
                                    f"kcliff derived the version from the tag and reads it at that minor's newest "
                                    f"release kcliff knows, {release}")
    else:
        bitnami = _BITNAMI_TAG.fullmatch(tag)
        if bitnami is not None and bitnami["patch"]:
            return Release(bitnami["minor"] + bitnami["patch"], None)
        if bitnami is not None:
            release = newest_patch(*bitnami["minor"].split("."))
            return Release(release, f"{image.reference} names Kafka {bitnami['minor']} without its patch release: "
                                    f"kcliff reads it at the newest {bitnami['minor']} release it knows, {release}")
    return Release(None, f"{image.reference}: the tag {tag!r} names no Kafka release kcliff can tell; not guessed")


class VarKind(StrEnum):
    SETTING = "setting"  # the image writes it into server.properties as `key`
    OWN = "own"  # the image's own (JVM, logging, JMX, cluster id, TLS files): not a broker setting; noted
    LINK = "link"  # a Kubernetes service link of a Service named kafka; noted
    REFUSED = "refused"  # the image refuses to start with it, or ignores it where a broker setting was meant
    OTHER = "other"  # not the image's at all (TZ, PATH, an application's own): skipped


@dataclass(frozen=True)
class VarReading:
    kind: VarKind
    key: str | None = None  # SETTING: the broker key
    why: str = ""  # OWN, LINK, REFUSED: what kcliff says about it
    alias: bool = False  # a Bitnami legacy alias: it wins over the KAFKA_CFG_ form


JVM = "the broker JVM's options (kafka-run-class.sh reads it), not a broker setting"
LOGGING = "the broker's logging (log4j), not a broker setting"
JMX = "JMX, not a broker setting"
TLS_FILE = "the image's own: its entry script derives an ssl.* location or password from it"
CLUSTER_ID = "the cluster id the image formats the log directories with, not a broker setting"
# KafkaDockerWrapper's ExcludeServerPropsEnv (it lists KAFKA_HEAP_OPT, so the apache image also writes
# KAFKA_HEAP_OPTS as heap.opts, which Kafka ignores) and Confluent's template's excluded_props (whose
# missing comma leaves KAFKA_HEAP_OPTS and KAFKA_LOG4J_OPTS in, likewise ignored), with what their
# configure scripts consume: the JVM's, logging's and JMX's variables and the TLS file names.
_IMAGE_OWN = {"KAFKA_VERSION": "the image's record of its Kafka version, not a broker setting",
              "KAFKA_HEAP_OPTS": JVM, "KAFKA_OPTS": JVM, "KAFKA_JVM_PERFORMANCE_OPTS": JVM, "KAFKA_GC_LOG_OPTS": JVM,
              "KAFKA_LOG4J_OPTS": LOGGING, "KAFKA_LOG4J_ROOT_LOGLEVEL": LOGGING, "KAFKA_LOG4J_LOGGERS": LOGGING,
              "KAFKA_TOOLS_LOG4J_LOGLEVEL": LOGGING, "KAFKA_JMX_OPTS": JMX, "KAFKA_JMX_HOSTNAME": JMX,
              "KAFKA_JMX_PORT": JMX, "KAFKA_SSL_KEYSTORE_FILENAME": TLS_FILE, "KAFKA_SSL_KEY_CREDENTIALS": TLS_FILE,
              "KAFKA_SSL_KEYSTORE_CREDENTIALS": TLS_FILE, "KAFKA_SSL_TRUSTSTORE_FILENAME": TLS_FILE,
              "KAFKA_SSL_TRUSTSTORE_CREDENTIALS": TLS_FILE}
_NOT_KAFKA_PREFIXED = {"CLUSTER_ID": CLUSTER_ID, "JMX_PORT": JMX, "JAVA_TOOL_OPTIONS": JVM}
# What Kubernetes sets in every pod for a Service named kafka (service links), never a setting.
_SERVICE_LINK = re.compile(r"KAFKA_(?:PORT(?:_\d+_(?:TCP|UDP|SCTP)(?:_PROTO|_PORT|_ADDR)?)?|SERVICE_HOST|SERVICE_PORT(?:_\w+)?)")
# Confluent's configure script: "port is deprecated. Please use KAFKA_ADVERTISED_LISTENERS instead.", exit 1.
_CONFLUENT_EXITS = ("KAFKA_PORT", "KAFKA_HOST", "KAFKA_ADVERTISED_PORT", "KAFKA_ADVERTISED_HOST")
_SINGLE_UNDERSCORE = re.compile(r"(?<=[^_])_(?=[^_])")

# libkafka.sh kafka_create_alias_environment_variables: KAFKA_<suffix> -> KAFKA_CFG_<suffix>, and five renames.
BITNAMI_ALIASES = {f"KAFKA_{s}": s for s in (
    "ADVERTISED_LISTENERS", "BROKER_ID", "NODE_ID", "CONTROLLER_QUORUM_VOTERS", "PROCESS_ROLES",
    "DEFAULT_REPLICATION_FACTOR", "DELETE_TOPIC_ENABLE", "INTER_BROKER_LISTENER_NAME", "LISTENERS",
    "LISTENER_SECURITY_PROTOCOL_MAP", "LOG_DIRS", "LOG_FLUSH_INTERVAL_MESSAGES", "LOG_FLUSH_INTERVAL_MS",
    "LOG_MESSAGE_FORMAT_VERSION", "LOG_RETENTION_BYTES", "LOG_RETENTION_CHECK_INTERVALS_MS", "LOG_RETENTION_HOURS",
    "LOG_SEGMENT_BYTES", "MESSAGE_MAX_BYTES", "NUM_IO_THREADS", "NUM_NETWORK_THREADS", "NUM_PARTITIONS",
    "NUM_RECOVERY_THREADS_PER_DATA_DIR", "OFFSETS_TOPIC_REPLICATION_FACTOR", "SOCKET_RECEIVE_BUFFER_BYTES",
    "SOCKET_REQUEST_MAX_BYTES", "SOCKET_SEND_BUFFER_BYTES", "SSL_ENDPOINT_IDENTIFICATION_ALGORITHM",
    "TRANSACTION_STATE_LOG_MIN_ISR", "TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "ZOOKEEPER_CONNECT",
    "ZOOKEEPER_CONNECTION_TIMEOUT_MS")} | {
    "KAFKA_LOGS_DIRS": "LOG_DIRS", "KAFKA_SEGMENT_BYTES": "LOG_SEGMENT_BYTES", "KAFKA_MAX_MESSAGE_BYTES": "MESSAGE_MAX_BYTES",
    "KAFKA_ZOOKEEPER_CONNECT_TIMEOUT_MS": "ZOOKEEPER_CONNECTION_TIMEOUT_MS",
    "KAFKA_AUTO_CREATE_TOPICS_ENABLE": "AUTO_CREATE_TOPICS_ENABLE"}
# kafka-env.sh and libkafka.sh: the variables the Bitnami scripts read themselves (and their _FILE forms).
_BITNAMI_OWN = re.compile(
    r"KAFKA_(?:CLUSTER_ID|KRAFT_CLUSTER_ID|ENABLE_KRAFT|INITIAL_CONTROLLERS|SKIP_KRAFT_STORAGE_INIT|MOUNTED_CONF_DIR|"
    r"KRAFT_BOOTSTRAP_SCRAM_USERS|CLIENT_\w+|INTER_BROKER_(?:USER|PASSWORD)|CONTROLLER_(?:USER|PASSWORD)|"
    r"CERTIFICATE_PASSWORD|TLS_\w+|ZOOKEEPER_(?:PROTOCOL|PASSWORD|USER|TLS_\w+)|BROKER_(?:USER|PASSWORD)|"
    r"HEAP_OPTS|OPTS|JMX_OPTS|JMX_PORT|PORT_NUMBER|DAEMON_(?:USER|GROUP)|\w+_COMMAND)(?:_FILE)?")
_BITNAMI_CLIENT_ONLY = {"max.request.size": "producer", "max.partition.fetch.bytes": "consumer"}


def apache_key(var: str) -> str:
    """KafkaDockerWrapper's key for a KAFKA_ variable (it removes every "KAFKA_", not only the prefix)."""
    return var.replace("KAFKA_", "").lower().replace("_", ".").replace("...", "-").replace("..", "_")


def confluent_key(rest: str) -> str:
    """env_to_props' key for what follows the prefix. (ub's envToProps splits with [^_]_[^_], which leaves
    an underscore between two one-letter words: no Kafka broker key has such words.)"""
    return _SINGLE_UNDERSCORE.sub(".", rest.lower()).replace("___", "-").replace("__", "_")


def bitnami_key(rest: str) -> str:
    """kafka_configure_from_environment_variables' key for what follows KAFKA_CFG_."""
    if rest == "ZOOKEEPER_CLIENTCNXNSOCKET":
        return "zookeeper.clientCnxnSocket"
    return rest.replace("_", ".").lower().replace("sasl.ssl", "sasl_ssl").replace("sasl.plaintext", "sasl_plaintext")


def spelling(family: Family) -> Callable[[str], str]:
    """How a Kafka key is written as this family's variable (num.io.threads -> KAFKA_NUM_IO_THREADS)."""
    if family is Family.BITNAMI:
        return lambda key: "KAFKA_CFG_" + key.replace(".", "_").upper()
    return lambda key: "KAFKA_" + key.replace("_", "__").replace("-", "___").replace(".", "_").upper()


def read_variable(image: Image, var: str) -> VarReading:
    """What `var` is to the image's entry script."""
    if var in _NOT_KAFKA_PREFIXED and not (image.family is Family.BITNAMI and var == "CLUSTER_ID"):
        return VarReading(VarKind.OWN, why=_NOT_KAFKA_PREFIXED[var])
    if image.family is Family.BITNAMI:
        return _bitnami(var)
    if image.family is Family.CONFLUENT:
        return _confluent(image, var)
    return _apache(var)


def _link(var: str, key: str) -> VarReading:
    return VarReading(VarKind.LINK, why=f"Kubernetes sets it for a Service named kafka (a service link), not a broker "
                                        f"setting; the image would write it as '{key}', which Kafka ignores")


def _bitnami_form(image: str, var: str, key: str) -> VarReading:
    """A KAFKA_CFG_ variable given to an image that is not Bitnami's (a move off Bitnami's images)."""
    meant = bitnami_key(var[len("KAFKA_CFG_"):])
    return VarReading(VarKind.REFUSED, why=f"KAFKA_CFG_* is the Bitnami image's form: {image} writes it as '{key}', "
                                           f"so '{meant}' never reaches Kafka; write {spelling(Family.APACHE)(meant)}")


def _apache(var: str) -> VarReading:
    if not var.startswith("KAFKA_"):
        return VarReading(VarKind.OTHER)
    if var.startswith("KAFKA_CFG_"):
        return _bitnami_form("apache/kafka", var, apache_key(var))
    if var in _IMAGE_OWN:
        return VarReading(VarKind.OWN, why=_IMAGE_OWN[var])
    if _SERVICE_LINK.fullmatch(var):
        return _link(var, apache_key(var))
    return VarReading(VarKind.SETTING, apache_key(var))


def _confluent(image: Image, var: str) -> VarReading:
    if var in _CONFLUENT_EXITS:
        return VarReading(VarKind.REFUSED, why=f"{image.name}'s configure script exits at start when {var} is set "
                                               "('deprecated. Please use KAFKA_ADVERTISED_LISTENERS instead'); if "
                                               "Kubernetes sets it for a Service named kafka, set enableServiceLinks: "
                                               "false in the pod spec")
    for prefix, into in (("CONFLUENT_SUPPORT_", "confluent.support."), ("CONFLUENT_METRICS_", "confluent.metrics.")):
        if var.startswith(prefix):
            if into == "confluent.metrics." and image.name != "confluentinc/cp-server":
                return VarReading(VarKind.OWN, why="only cp-server's template reads CONFLUENT_METRICS_*; cp-kafka ignores it")
            return VarReading(VarKind.SETTING, into + confluent_key(var[len(prefix):]))
    if not var.startswith("KAFKA_"):
        return VarReading(VarKind.OTHER)
    if var in _IMAGE_OWN:
        return VarReading(VarKind.OWN, why=_IMAGE_OWN[var])
    if _SERVICE_LINK.fullmatch(var):
        return _link(var, confluent_key(var[len("KAFKA_"):]))
    if var.startswith("KAFKA_CFG_"):
        return _bitnami_form(image.name, var, confluent_key(var[len("KAFKA_"):]))
    return VarReading(VarKind.SETTING, confluent_key(var[len("KAFKA_"):]))


def _bitnami(var: str) -> VarReading:
    if var.startswith("KAFKA_CFG_"):
        key = bitnami_key(var[len("KAFKA_CFG_"):])
        if key in _BITNAMI_CLIENT_ONLY:
            client = _BITNAMI_CLIENT_ONLY[key]
            return VarReading(VarKind.OWN, why=f"Bitnami also writes it into its bundled console {client}'s "
                                               f"properties; as a broker setting '{key}' is not Kafka's and is ignored")
        return VarReading(VarKind.SETTING, key)
    if var in BITNAMI_ALIASES:
        return VarReading(VarKind.SETTING, bitnami_key(BITNAMI_ALIASES[var]), alias=True)
    if not var.startswith("KAFKA_"):
        return VarReading(VarKind.OTHER)
    if _BITNAMI_OWN.fullmatch(var):
        return VarReading(VarKind.OWN, why="the Bitnami scripts' own setting, not a broker key")
    if _SERVICE_LINK.fullmatch(var):
        return _link(var, bitnami_key(var[len("KAFKA_"):]))
    key = bitnami_key(var[len("KAFKA_"):])
    if kafka_configs.catalogue().releases_of("broker", key):
        return VarReading(VarKind.REFUSED, why=f"the Bitnami image ignores {var} (it reads broker settings from "
                                               f"KAFKA_CFG_* and a few legacy names), so '{key}' never reaches Kafka: "
                                               f"write {spelling(Family.BITNAMI)(key)}")
    return VarReading(VarKind.OWN, why="not a variable the Bitnami image reads; it ignores it")
