#!/usr/bin/env bash
# Builds runner/kcliff/data/kafka-configs.json: Kafka's own config definitions (broker, topic, producer,
# consumer ConfigDefs, topic->broker synonyms, broker update modes) for every release from 3.3.0 on,
# read from each release's jars (docs/kafka-configs.md). Idempotent: a rerun on the same releases
# writes a byte-identical file; a new release on Maven Central is picked up by the rerun.
#
#   scripts/build-kafka-configs.sh                      every release -> the committed file
#   scripts/build-kafka-configs.sh --output FILE        every release -> FILE
#   scripts/build-kafka-configs.sh --release X [--classpath CP]
#                                                       one release's dump to stdout; its jars from
#                                                       Maven, or CP (e.g. a distribution's libs/*)
#
# Needs java 17+, mvn (it resolves into ~/.m2) and python3; curl for the release list.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tools=$here/kafka-configs
output=$(cd "$here/.." && pwd)/runner/kcliff/data/kafka-configs.json
metadata_url=https://repo1.maven.org/maven2/org/apache/kafka/kafka_2.13/maven-metadata.xml
first_release=3.3.0
release=""
classpath=""

usage() { sed -n '7,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --output) output=${2:?}; shift 2 ;;
    --release) release=${2:?}; shift 2 ;;
    --classpath) classpath=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done
if [ -n "$classpath" ] && [ -z "$release" ]; then usage; fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The release's runtime classpath (kafka_2.13 and its dependencies), resolved by Maven into ~/.m2.
resolve_classpath() {
  local version=$1
  if ! mvn -q -B -f "$tools/pom.xml" dependency:build-classpath -Dkafka.version="$version" \
      -Dmdep.includeScope=runtime -Dmdep.outputFile="$tmp/$version.classpath" >"$tmp/mvn.log" 2>&1; then
    tail -20 "$tmp/mvn.log" >&2
    echo "build-kafka-configs: could not resolve Kafka $version's jars with Maven" >&2
    exit 1
  fi
  cat "$tmp/$version.classpath"
}

# One release's definitions as JSON on stdout; ConfigDump checks the jars are that release's.
# A short-lived JVM: the C1 compiler alone and the serial collector halve its CPU time.
dump() {
  java -Xmx512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$2" "$tools/ConfigDump.java" "$1"
}

if [ -n "$release" ]; then
  dump "$release" "${classpath:-$(resolve_classpath "$release")}"
  exit 0
fi

curl -fsS --retry 3 -o "$tmp/maven-metadata.xml" "$metadata_url"
mapfile -t releases < <(python3 "$tools/releases.py" "$tmp/maven-metadata.xml" "$first_release")
echo "build-kafka-configs: ${#releases[@]} releases: ${releases[*]}" >&2
dumps=()
for version in "${releases[@]}"; do
  start=$SECONDS
  cp=$(resolve_classpath "$version")
  dump "$version" "$cp" >"$tmp/$version.json" 2>"$tmp/$version.err" || {
    cat "$tmp/$version.err" >&2
    echo "build-kafka-configs: ConfigDump failed for Kafka $version" >&2
    exit 1
  }
  dumps+=("$tmp/$version.json")
  echo "build-kafka-configs: $version dumped in $((SECONDS - start)) s" >&2
done
python3 "$tools/merge.py" "$output" "${dumps[@]}"
echo "build-kafka-configs: wrote $output ($(wc -c <"$output") bytes)" >&2
