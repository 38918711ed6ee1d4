"""What a check's measured verdict says on the lines of the pull request: the failing metrics blamed
on the changed settings that can move them, and a trade-off read both ways on the settings that trade
CPU against bytes (judge/tradeoff.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from kcliff import configrepo
from kcliff.judge import verdict
from kcliff.lint.github import annotation, github_path
from kcliff.lint.severity import Severity
from kcliff.results.metrics import (CONSUMED, FAILED, METRICS, THROUGHPUT, Metric, Workload, moved_by_setting, moves_failover,
                                    trades_cpu_for_bytes)


def failing(sv: verdict.ScenarioVerdict) -> list[tuple[Metric, float | None]]:
    """The metrics that failed a scenario and their measured ratios: its regressions, throughput when
    the head fell to the canaries' cliff tier, the judged latencies at rate when it could not hold the rate, and
    consumption when its consumer was cut on its cliff."""
    out = [(METRICS[d.metric], d.ratio) for d in sv.decisions if d.outcome is verdict.Outcome.REGRESSION]
    if sv.head_in_tier and not sv.base_in_tier and all(m is not THROUGHPUT for m, _ in out):
        out.append((THROUGHPUT, next((d.ratio for d in sv.decisions if d.metric == THROUGHPUT.name), None)))
    if sv.rate_cliff:
        out += [(METRICS[d.metric], d.ratio) for d in sv.decisions if METRICS[d.metric].workload is Workload.RATE
                and d.outcome not in (verdict.Outcome.REGRESSION, verdict.Outcome.NOT_JUDGED)]
    if sv.read_cliff is not None and all(m is not CONSUMED for m, _ in out):
        out.append((CONSUMED, sv.read_cliff))
    return out


def measured_effect(sv: verdict.ScenarioVerdict, blamed: list[tuple[Metric, float | None]]) -> str:
    """e.g. 'measured with this change: throughput 0.41x, p99 2.43x (18 rounds)': the failing metrics named."""
    ratios = ", ".join(f"{m.name} {r:.2f}x" if r is not None else m.name for m, r in blamed)
    rounds = max((d.n_pairs or 0 for d in sv.decisions), default=0)
    tier = "; head fell to the canaries' cliff tier" if sv.head_in_tier and not sv.base_in_tier else ""
    tier += "; head could not hold the fixed rate" if sv.rate_cliff else ""
    return f"measured with this change: {ratios or 'no ratio'} ({rounds} rounds){tier}"


def lost_effect(lost: int) -> str:
    return f"lost {lost} acknowledged record(s) under acks=all through a failure (a durability cliff)"


def measured_findings(outcome: verdict.Verdict, changes: list[configrepo.SettingChange], fmt: str,
                      head_root: Path | None = None) -> list[str]:
    """One finding per changed setting line that can move a failing metric when the head measured a
    regression or a cliff, naming those metrics and their ratios (a consumer setting is not blamed
    for the producer's throughput, nor a producer setting for a consumer-only metric). With no such
    line, one finding for the run."""
    head = next((sv for sv in outcome.scenarios if sv.id == "head" and sv.verdict.fails), None)
    if head is None:
        return []
    failed = failing(head)
    blamed = [(c, [(m, r) for m, r in failed if moved_by_setting(m, c.kind, c.name)]) for c in changes]
    lines = [(c, measured_effect(head, those)) for c, those in blamed if those]
    whole_run = measured_effect(head, failed)
    if head.failed:  # deliveries given up on: on the changed settings that decide what an outage outlasts
        given_up = f"the producer gave up on {head.failed} deliveries through a failure (base none)"
        lines = _said_first(given_up, lines, changes, lambda c: FAILED in moves_failover(c.kind, c.name))
        whole_run = f"{given_up}; {whole_run}"
    if head.lost:  # a durability cliff: also on every changed setting that decides what a failure costs
        lines = _said_first(lost_effect(head.lost), lines, changes, lambda c: bool(moves_failover(c.kind, c.name)))
        whole_run = f"{lost_effect(head.lost)}; {whole_run}"
    if fmt != "github":
        return [f"{c.path}:{c.line or 1}: {head.verdict}: {c.describe()}: {effect}" for c, effect in lines]
    title = f"kcliff: measured {head.verdict}"
    return ([annotation(Severity.ERROR, github_path(c.path, head_root), c.line, title, f"{c.describe()}: {effect}")
             for c, effect in lines] or [annotation(Severity.ERROR, "", None, title, whole_run)])


Said = list[tuple[configrepo.SettingChange, str]]


def _said_first(count: str, lines: Said, changes: list[configrepo.SettingChange],
                blamed: Callable[[configrepo.SettingChange], bool]) -> Said:
    """An exact count (`count`) said first on each line that already says an effect and on each changed
    setting `blamed` for it, in the changes' order."""
    effects = {i: effect for i, c in enumerate(changes) for d, effect in lines if d is c}
    return [(c, f"{count}; {effects[i]}" if i in effects else count) for i, c in enumerate(changes)
            if i in effects or blamed(c)]


def tradeoff_findings(said: str, changes: list[configrepo.SettingChange], fmt: str,
                      head_root: Path | None = None) -> list[str]:
    """A warning on each changed setting that trades CPU against bytes, saying how each rig read it."""
    traded = [c for c in changes if trades_cpu_for_bytes(c.kind, c.name)]
    if fmt != "github":
        return [f"{c.path}:{c.line or 1}: trade-off: {c.describe()}: {said}" for c in traded]
    return [annotation(Severity.WARNING, github_path(c.path, head_root), c.line, "kcliff: a trade between CPU and bytes",
                       f"{c.describe()}: {said}") for c in traded]
