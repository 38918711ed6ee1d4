"""The Kafka releases to catalogue: the x.y.z versions in Maven Central's maven-metadata.xml for
kafka_2.13, from a first release on, ascending. Used by scripts/build-kafka-configs.sh.

    releases.py METADATA_XML FIRST_RELEASE   -> one release a line
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET

_RELEASE = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


def parse(release: str) -> tuple[int, int, int]:
    match = _RELEASE.match(release)
    if match is None:
        raise ValueError(f"not an x.y.z release: {release!r}")
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch)


def releases(metadata_xml: str, first: str) -> list[str]:
    """x.y.z versions listed in `metadata_xml` that are `first` or later (no milestones or RCs)."""
    root = ET.parse(metadata_xml).getroot()
    versions = {(v.text or "").strip() for v in root.iter("version")}
    chosen = [v for v in versions if _RELEASE.match(v) and parse(v) >= parse(first)]
    return sorted(chosen, key=parse)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    found = releases(argv[0], argv[1])
    if not found:
        print(f"releases.py: no release from {argv[1]} on in {argv[0]}", file=sys.stderr)
        return 1
    print("\n".join(found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
