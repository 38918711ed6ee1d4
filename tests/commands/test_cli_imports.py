"""The CLI imports what the invoked command needs: `kcliff lint` starts in a fraction of a second
because it never imports pandas, scipy, numpy, confluent_kafka, jinja2 or (text formats) pydantic.
Checked by the modules a real run leaves in sys.modules, not by a timing, so a busy machine cannot
fail it; benchmarks/bench_lint_start.py measures the time."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT, run_kcliff
from kcliff import cli

REPO = str(ROOT / "examples" / "config-repo")
# what the measuring commands need and a static check does not; each costs 0.1-1 s to import
HEAVY = ("pandas", "numpy", "scipy", "confluent_kafka", "jinja2", "allpairspy", "pydantic")


def imported_by(*argv: str) -> tuple[int, set[str]]:
    """Exit code of `kcliff ARGV` run in a fresh interpreter, and which of HEAVY it imported."""
    probe = ("import json, sys\nfrom kcliff import cli\ncode = cli.main(sys.argv[1:])\n"
             f"print(json.dumps([code, sorted(m for m in {HEAVY!r} if m in sys.modules)]), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)
    code, heavy = json.loads(done.stderr.splitlines()[-1])
    return code, set(heavy)


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_lint_imports_nothing_heavy(fmt):
    assert imported_by("lint", "--format", fmt, REPO) == (0, set())


def test_lint_json_imports_pydantic_for_its_document_only():
    assert imported_by("lint", "--format", "json", REPO) == (0, {"pydantic"})


def test_check_with_nothing_measured_changed_imports_no_pandas_scipy_or_jinja2(tmp_path):
    code, heavy = imported_by("check", "--base", REPO, "--head", REPO, "--json", str(tmp_path / "verdict.json"))
    assert code == 0
    assert heavy.isdisjoint({"pandas", "scipy", "jinja2", "allpairspy"}), heavy
    assert json.loads((tmp_path / "verdict.json").read_text())["measured"] is False


def test_each_command_module_registers_the_command_it_is_named_after():
    # main() imports only the module named by the command word, so the two must agree
    for name in cli.COMMANDS:
        commands = next(a for a in cli.build_parser(name)._actions if a.dest == "command")
        assert list(commands.choices or ()) == [name]
    everything = next(a for a in cli.build_parser()._actions if a.dest == "command")
    assert list(everything.choices or ()) == list(cli.COMMANDS)


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0
    listed = {line.split()[0] for line in capsys.readouterr().out.splitlines() if line.startswith("    ")}
    assert set(cli.COMMANDS) <= listed


def test_a_mistyped_or_missing_command_is_bad_input(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["lnit", "examples/config-repo"])
    assert done.value.code == 2
    err = capsys.readouterr().err  # the parser of every command answers, so it lists them all
    assert "invalid choice: 'lnit'" in err and all(name in err for name in cli.COMMANDS), err
    with pytest.raises(SystemExit) as done:
        cli.main([])
    assert done.value.code == 2
    assert "the following arguments are required: COMMAND" in capsys.readouterr().err


def test_command_help_through_the_real_cli():
    done = run_kcliff("lint", "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: kcliff lint ") and "--fail-on" in done.stdout
