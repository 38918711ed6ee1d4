"""The package's shape as docs/architecture.md states it: stages that import only downwards, no
import circle at any depth, commands that never import each other, no module over 400 lines, and a
top level that holds only the entry point and the shared kernel."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "runner" / "kcliff"
KERNEL = {"__init__.py", "cli.py", "errors.py", "resources.py", "yamlio.py"}
MAX_LINES = 400


def contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_the_import_contracts_hold() -> None:
    # lint-imports is import-linter's own command, as anyone runs it (docs/architecture.md)
    done = subprocess.run([str(Path(sys.executable).parent / "lint-imports")], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert f"Contracts: {len(contracts())} kept, 0 broken" in done.stdout


def test_every_stage_has_its_place_in_the_layer_order() -> None:
    layers = next(c for c in contracts() if c["type"] == "layers")["layers"]
    placed = {name.strip() for layer in layers for name in layer.split("|")}
    stages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    kernel = {name.removesuffix(".py") for name in KERNEL} - {"__init__"}
    assert stages | kernel == placed


def test_the_top_level_holds_only_the_entry_point_and_the_kernel() -> None:
    assert {p.name for p in PACKAGE.glob("*.py")} == KERNEL


def test_no_module_is_over_400_lines() -> None:
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these modules (docs/architecture.md): {long}"
