"""Where kcliff's shipped files are, in a checkout and in an installed wheel alike.

Besides its own files (data/: the fsync shim's source, Kafka's pom, log4j configs), kcliff reads
directories kept at the top of its repository: scenarios/ (suites and the cliff rules), compose/,
reports/ (the report site's sources), baselines/ and loadgen/ (the load generator's sources, built
on first use). A built wheel carries copies of them under
kcliff/shipped/ (pyproject.toml maps each there); running from a checkout (make setup's editable
install) there are no copies, and the checkout's own directories are used, so an edited scenario
takes effect without a reinstall.
"""

from __future__ import annotations

from pathlib import Path

from kcliff.errors import InputError

PACKAGE = Path(__file__).resolve().parent
DATA = PACKAGE / "data"
SHIPPED = PACKAGE / "shipped"
DIRECTORIES = ("scenarios", "compose", "reports", "baselines", "loadgen")  # pyproject.toml's package-dir


def checkout() -> Path | None:
    """The kcliff checkout this package runs from, or None when it runs installed from a wheel."""
    if SHIPPED.is_dir():
        return None
    root = PACKAGE.parents[1]  # runner/kcliff -> the checkout
    return root if (root / "pyproject.toml").is_file() else None


def shipped(name: str) -> Path:
    """kcliff's own `name`/ (one of DIRECTORIES): the installed copy, else the checkout's."""
    if name not in DIRECTORIES:
        raise ValueError(f"{name!r} is not one of kcliff's shipped directories {DIRECTORIES}")
    root = checkout()
    found = root / name if root is not None else SHIPPED / name
    if not found.is_dir():
        raise InputError(f"kcliff's {name}/ is missing (a broken install?): reinstall kcliff", str(found))
    return found


def project_dir(name: str) -> Path:
    """`name`/ of the working directory if there is one (a project's own scenarios/ or baselines/),
    else kcliff's shipped one."""
    here = Path.cwd() / name
    return here if here.is_dir() else shipped(name)
