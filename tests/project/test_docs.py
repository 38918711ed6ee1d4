"""The README and docs/ as a reader meets them: every relative link leads to a file (and heading)
of the repository, and no path of a development machine is named."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "baselines" / "README.md"]


def anchors(md: Path) -> set[str]:
    """GitHub's anchors for MD's headings: lower case, punctuation dropped, spaces to hyphens."""
    found = re.findall(r"^#+ (.*)$", md.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in found}


def links(md: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", md.read_text(encoding="utf-8"), flags=re.S)
    return [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("md", DOCS, ids=[str(p.relative_to(ROOT)) for p in DOCS])
def test_relative_links_lead_to_files_and_headings(md: Path) -> None:
    broken = []
    for target in links(md):
        path, _, heading = target.partition("#")
        dest = (md.parent / path).resolve() if path else md
        if not dest.exists():
            broken.append(target)
        elif heading and dest.suffix == ".md" and heading not in anchors(dest):
            broken.append(target)
    assert not broken, f"{md.relative_to(ROOT)}: broken links {broken}"


@pytest.mark.parametrize("md", DOCS, ids=[str(p.relative_to(ROOT)) for p in DOCS])
def test_no_development_machine_paths(md: Path) -> None:
    found = re.findall(r"(?<![\w.~])/(?:work|home|tmp|root|Users)/\S*", md.read_text(encoding="utf-8"))
    assert not found, f"{md.relative_to(ROOT)} names machine paths {found}: say it relative to the repository"
