#!/usr/bin/env bash
# Builds kcliff's stand-in for apache/kafka (see Dockerfile) without any registry:
#   1. a base image from Debian packages: debootstrap (minbase + OpenJDK 17 JRE) into a directory,
#      then `docker import` (about a minute; rebuilt only when its recipe changes);
#   2. the Kafka image on top of it with `docker build` (legacy builder, no pull): Kafka's Maven jars
#      plus this directory's scripts.
# Each image carries a label with the hash of its inputs; an image whose label matches is kept, so a
# second run takes about a second.
# Usage: build-standin.sh LIBS_DIR KAFKA_VERSION [TAG]   (TAG defaults to kcliff/kafka-standin:VERSION)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
libs=${1:?usage: build-standin.sh LIBS_DIR KAFKA_VERSION [TAG]}
version=${2:?usage: build-standin.sh LIBS_DIR KAFKA_VERSION [TAG]}
tag=${3:-kcliff/kafka-standin:$version}
suite=bookworm
packages=openjdk-17-jre-headless
mirror=${KCLIFF_DEBIAN_MIRROR:-http://deb.debian.org/debian}
base=kcliff/standin-base:$suite-jre17
work=${KCLIFF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kcliff}/standin

label() {  # the kcliff.inputs label of an image, empty when the image is missing
  docker image inspect -f '{{index .Config.Labels "kcliff.inputs"}}' "$1" 2>/dev/null || true
}

ls "$libs"/kafka_*.jar >/dev/null 2>&1 || { echo "build-standin: no Kafka jars in $libs" >&2; exit 2; }

base_inputs=$(echo "debootstrap --variant=minbase --include=$packages $suite" | sha256sum | cut -c1-16)
if [ "$(label "$base")" != "$base_inputs" ]; then
  command -v debootstrap >/dev/null || { echo "build-standin: debootstrap is not installed" >&2; exit 2; }
  echo "build-standin: building $base with debootstrap from $mirror ..."
  mkdir -p "$work"
  rootfs=$(mktemp -d "$work/rootfs.XXXXXX")
  trap 'rm -rf "$rootfs"' EXIT
  debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import \
    --change "LABEL kcliff.inputs=$base_inputs" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/bash"]' - "$base" >/dev/null
  rm -rf "$rootfs"
  trap - EXIT
fi

# Inputs of the Kafka image: this directory's files, the jars (names and sizes), the base image.
inputs=$( { cd "$here" && find . -type f -print0 | sort -z | xargs -0 sha256sum
            cd "$libs" && find . -name '*.jar' -printf '%f %s\n' | sort
            docker image inspect -f '{{.Id}}' "$base"; echo "$version"; } | sha256sum | cut -c1-16)
if [ "$(label "$tag")" = "$inputs" ]; then
  echo "build-standin: $tag is up to date"
  exit 0
fi

echo "build-standin: building $tag ..."
mkdir -p "$work"
context=$(mktemp -d "$work/context.XXXXXX")
trap 'rm -rf "$context"' EXIT
cp -r "$here/Dockerfile" "$here/bin" "$here/docker" "$context/"
mkdir "$context/libs"
cp -L "$libs"/*.jar "$context/libs/"
# The legacy builder never pulls a base image that exists locally; BuildKit is not needed here.
DOCKER_BUILDKIT=0 docker build --quiet --pull=false --build-arg "BASE_IMAGE=$base" \
  --label "kcliff.inputs=$inputs" --label "org.apache.kafka.version=$version" \
  -t "$tag" "$context" >/dev/null
echo "build-standin: built $tag"
