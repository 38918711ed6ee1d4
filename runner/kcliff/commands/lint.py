"""`kcliff lint PATH...`: static cliff rules over a Kafka config repo, in seconds, without a cluster.

Exit codes: 0 clean (warnings allowed unless --fail-on warning), 1 a cliff (error-severity rule)
matched, 2 bad input (unknown key, bad value, unreadable file) - every one of the run reported on
its file and line (lint/findings.py renders them for each format). --format json / sarif write one
document (lint/json_doc.py, lint/sarif.py) to stdout or --output FILE, with the same exit codes; on bad
input it holds every bad input as a finding (docs/gate.md, "Machine-readable lint").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

from kcliff import configrepo
from kcliff.errors import InputError, InputErrors, Problems
from kcliff.lint import cliffs
from kcliff.lint import findings as input_findings
from kcliff.lint.github import add_repo_root_option, annotation, github_path, repo_root
from kcliff.lint.severity import Severity, tally

DOCUMENTS = ("json", "sarif")  # formats that print one machine-readable document


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("lint", help="check Kafka config files against the static cliff rules (no cluster)")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="config repo directories or files (server.properties, producer.properties, topics.yaml)")
    parser.add_argument("--format", choices=("text", "github", *DOCUMENTS), default="text",
                        help="github: workflow-command annotations (::error file=...,line=...::...); "
                             "json: the kcliff.lint document; sarif: SARIF 2.1.0 for GitHub code scanning")
    parser.add_argument("--output", metavar="FILE", type=Path,
                        help="with --format json or sarif: write the document to FILE instead of stdout")
    parser.add_argument("--rules", help="rules file (default: scenarios/cliffs.yaml shipped with kcliff)")
    parser.add_argument("--evidence", metavar="FILE",
                        help="a results or baseline file: show each rule's canary as measured there")
    parser.add_argument("--fail-on", choices=[s.value for s in Severity], default=Severity.ERROR.value,
                        help="lowest severity that makes the exit code 1 (default: error)")
    parser.add_argument("--verbose", action="store_true", help="also list the keys kcliff ignored")
    add_repo_root_option(parser, "the checked-out repository")
    parser.set_defaults(func=run)


def _canary_ratios(path: str) -> dict[str, float]:
    from kcliff.judge.baseline_verdict import canary_ratios

    return canary_ratios(path)


def run(args: argparse.Namespace) -> int:
    if args.output and args.format not in DOCUMENTS:
        raise InputError(f"--output writes a document: use it with --format {' or '.join(DOCUMENTS)}")
    found = Problems()  # every bad input of the run, the rules file's and the repo's, reported together
    rules: list[cliffs.Rule] = []
    ratios: dict[str, float] = {}
    repo: configrepo.ConfigRepo | None = None
    with found.catch():
        rules = cliffs.load_rules(args.rules)
    with found.catch():
        ratios = _canary_ratios(args.evidence) if args.evidence else {}
    with found.catch():
        repo = configrepo.load(args.paths, args.repo_root)
    name: Callable[[str], str] = lambda path: github_path(path, args.repo_root)
    if found or repo is None:
        bad = input_findings.bad_inputs(found.found, name)
        if args.format == "github":
            for finding in bad:
                print(finding.annotation())
        elif args.format in DOCUMENTS:
            with found.catch():  # an unwritable --output joins the bad inputs
                _write_document(args, rules, ratios, None, [], bad, 2)
        raise InputErrors(found.found)  # the CLI prints each on its line (text: nothing else), exit 2
    matches = cliffs.evaluate(repo, rules)
    warnings = input_findings.input_warnings(repo.notes, name)
    code = 1 if any(m.rule.severity.fails_at(Severity(args.fail_on)) for m in matches) else 0
    if args.format in DOCUMENTS:
        _write_document(args, rules, ratios, repo, matches, warnings, code)
        return code
    for m in matches:
        if args.format == "github":
            print(annotation(m.rule.severity, github_path(m.path, args.repo_root), m.line,
                             f"kcliff {m.rule.id}: {m.rule.title}", m.describe(ratios)))
        else:
            print(f"{m.path}:{m.line}: {m.rule.severity}: {m.rule.title} [{m.rule.id}]")
            print(f"    {m.describe(ratios)}")
    for warning in warnings:
        print(warning.annotation() if args.format == "github" else warning.text())
    if args.verbose:
        for note in repo.notes:
            if note.level is configrepo.NoteLevel.NOTE:  # a warning was printed above
                print(f"note: {note}")
    print(summary(matches, repo, args.verbose), file=sys.stderr if args.format == "github" else sys.stdout)
    return code


def summary(matches: list[cliffs.Match], repo: configrepo.ConfigRepo, verbose: bool) -> str:
    errors, warnings = tally(m.rule.severity for m in matches)
    ignored = f"; {len(repo.notes)} notes (--verbose lists them)" if repo.notes and not verbose else ""
    return f"kcliff lint: {errors} error(s), {warnings} warning(s) in {len(repo.files)} file(s){ignored}"


def _write_document(args: argparse.Namespace, rules: list[cliffs.Rule], ratios: dict[str, float],
                    repo: configrepo.ConfigRepo | None, matches: list[cliffs.Match],
                    inputs: list[input_findings.InputFinding], code: int) -> None:
    """The --format json / sarif document, to stdout or --output; the summary goes to stderr. `inputs`
    are the bad inputs (then `repo` is None: it could not be read) or the input warnings."""
    from kcliff.lint import json_doc as lint_json
    from kcliff.lint import sarif as lint_sarif
    from kcliff.results.model import write_json

    findings = [lint_json.Finding.of(m, github_path(m.path, args.repo_root), m.describe(ratios),
                                     m.rule.evidence(ratios)) for m in matches]
    notes = [lint_json.Note(path=github_path(n.path, args.repo_root), line=n.line, message=n.message, level=n.level)
             for n in (repo.notes if repo else [])]
    doc: lint_json.LintReport | lint_sarif.Log
    if args.format == "sarif":
        srcroot = repo_root(args.paths[0], args.repo_root) or Path.cwd()
        doc = lint_sarif.document(rules, {r.id: r.evidence(ratios) for r in rules}, findings,
                                  notes if args.verbose else None, srcroot, inputs, code)
    else:
        doc = lint_json.report(findings, inputs, notes, len(repo.files) if repo else None, code, args.verbose)
    if args.output:
        try:
            write_json(doc.to_json(), args.output)
        except OSError as exc:
            raise InputError(f"cannot write the {args.format} document: {exc.strerror or exc}", str(args.output))
    else:
        print(json.dumps(doc.to_json(), indent=1))
    if repo is not None:  # on bad input the CLI prints each problem instead
        print(summary(matches, repo, args.verbose), file=sys.stderr)
