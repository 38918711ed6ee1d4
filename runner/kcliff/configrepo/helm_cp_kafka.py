"""cp-helm-charts' cp-kafka chart (confluentinc/cp-helm-charts, charts/cp-kafka), its values read as
its statefulset template renders them:

    {{- range $key, $value := .Values.configurationOverrides }}
    - name: {{ printf "KAFKA_%s" $key | replace "." "_" | upper | quote }}
      value: {{ $value | quote }}

and as Confluent's cp-kafka / cp-server images turn a KAFKA_* variable back into a server.properties
key (lower case; then `_` -> `.`, `...` -> `-`, `..` -> `_`, their dub `env_to_props`). So a key of
dots and dashes reaches the broker as written, but an upper-case letter arrives in lower case and an
underscore as a dot (`a_b` -> `a.b`; `a._b` -> `a_b`): no key with an underscore of its own can be
passed this way. kcliff reads the key the broker gets, with a warning when it is not the one written.
`quote` prints a number of a million or more in exponent form (bad input, helm_values.py).

`imageTag` (with `image`) is the Confluent Platform release, whose Kafka cfk.kafka_of_platform gives;
`customEnv` (environment variables) is noted, not read yet; under a parent chart, `enabled: false`
(cp-helm-charts' `cp-kafka.enabled`) means no brokers from it.
"""

from __future__ import annotations

from kcliff.configrepo.cfk import kafka_of_platform
from kcliff.configrepo.helm_values import Values, exponent_problem, go_text, printed_as_exponent, setting
from kcliff.configrepo.model import Note, NoteLevel, Resource
from kcliff.configrepo.version_file import check as check_version
from kcliff.configrepo.version_file import newest_patch
from kcliff.errors import InputError
from kcliff.kafka import dist as kafka_dist

DEFAULT_IMAGE = "confluentinc/cp-server"  # charts/cp-kafka/values.yaml; the umbrella's is cp-enterprise-kafka
# Confluent's broker images, versioned alike (cp-enterprise-kafka is cp-server's name before CP 5.3).
IMAGES = ("cp-server", "cp-kafka", "cp-enterprise-kafka")


def broker_key(key: str) -> str:
    """The key the broker gets for a configurationOverrides key: the template's variable name
    (KAFKA_ + key, '.' -> '_', upper case) read back as the image reads it."""
    variable = key.replace(".", "_").upper()
    return variable.lower().replace("_", ".").replace("...", "-").replace("..", "_")


def _overrides(values: Values, label: str) -> None:
    overrides = values.child("configurationOverrides")
    if overrides is None:
        if values.get("configurationOverrides") not in (None, {}):
            values.problem("configurationOverrides", f"{values.name('configurationOverrides')} must be a mapping of "
                                                     "broker keys to values")
        return
    for written, raw in overrides.node.items():
        key, line = broker_key(str(written)), overrides.line(written)
        what = overrides.name(str(written))
        if key != str(written):
            values.out.notes.append(Note(values.out.path, line, (
                f"{what}: the chart passes it as KAFKA_{str(written).replace('.', '_').upper()}, which the image reads "
                f"as '{key}': that is the key the broker gets"), NoteLevel.WARNING))
        printed = printed_as_exponent(raw)
        if printed is not None:
            overrides.problem(written, exponent_problem(what, raw, printed))
            continue
        setting(overrides, "broker", key, go_text(raw), line, what, label)


def _release(values: Values) -> None:
    tag, image = values.get("imageTag"), values.get("image")
    shown = f"{image}:{tag}" if image else f"{values.name('imageTag')} {tag}"
    line = values.line("imageTag")
    if tag is None:
        values.note("image", f"{values.name('imageTag')} is not set, so the chart's default image runs; kcliff reads "
                             f"the repo at Kafka {kafka_dist.DEFAULT_VERSION}")
        return
    name = str(image or DEFAULT_IMAGE).rsplit("/", 1)[-1].split(":")[0]
    # kafka_of_platform knows Confluent's images by name; cp-enterprise-kafka's versions are the same
    found = kafka_of_platform(f"confluentinc/cp-kafka:{tag}") if name in IMAGES else None
    if found is None:
        values.note("imageTag", f"{shown} is not a Confluent Platform 7 or 8 broker image, so kcliff does not know "
                                f"its Kafka version; it reads the repo at Kafka {kafka_dist.DEFAULT_VERSION}")
        return
    kafka, platform = found
    release = newest_patch(*kafka.split("."))
    values.note("imageTag", f"{shown} is Confluent Platform {platform}, which ships Kafka {kafka}: kcliff reads the "
                            f"repo at that minor's newest release it knows, {release}")
    try:
        values.out.versions.append(check_version(release, values.out.path, line))
    except InputError as exc:
        values.out.problems.append(exc)


def read_cp_kafka(values: Values) -> None:
    """Every broker setting, note and the Kafka version of one cp-kafka chart's values."""
    label = f"{values.label}: brokers"
    values.out.resources.append(Resource(label, values.line("configurationOverrides")))
    _overrides(values, label)
    if values.get("customEnv") not in (None, {}):
        values.note("customEnv", f"{values.name('customEnv')}: environment variables of the Kafka containers "
                                 "(KAFKA_* ones become broker settings in Confluent's image); kcliff does not read "
                                 "them here yet")
    _release(values)
