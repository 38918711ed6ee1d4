"""The end-of-run table: scenario, MB/s median and range, p99 median, ratio to the reference, and
for canaries whether their cliff showed; then each scenario's verdict against the stored baseline."""

from __future__ import annotations

from pathlib import Path

from kcliff.judge import baseline_verdict, verdict
from kcliff.judge.canary import CanaryVerdict, canary_verdict
from kcliff.measure import environment
from kcliff.results import baseline as baselines
from kcliff.results import baseline_host
from kcliff.results.baseline_host import Yardstick
from kcliff.results.metrics import (CONSUMED, E2E_P99, P99, RATE_E2E_P99, RATE_P99, RECOVERY, STALL, THROUGHPUT,
                                    UNAVAILABLE, Metric, Workload)
from kcliff.results.model import REFERENCE_ID, Entry, ResultsDoc
from kcliff.results.rig import Rig

SEEN, NOT_SEEN = "cliff seen", "NOT SEEN"


def canary_cell(found: CanaryVerdict | None) -> str:
    """The canary column: 'cliff seen', 'NOT SEEN', or empty when not a canary or not measured."""
    if found is None or found.shows_cliff is None:
        return ""
    return SEEN if found.seen else NOT_SEEN


def unseen_canaries(doc: ResultsDoc) -> list[tuple[Entry, CanaryVerdict]]:
    """The canaries of a run that were measured and did not show their cliff: the run fails on them.
    (One not measured is a failed scenario already, or skipped for a stated reason.)"""
    reference = doc.reference()
    found = [(e, canary_verdict(e, reference)) for e in doc.canaries()]
    return [(e, v) for e, v in found if e.counts and not v.seen]


def rows(doc: ResultsDoc) -> list[list[str]]:
    reference = doc.reference()
    ref_mb = reference.median(THROUGHPUT) if reference else None
    ref_read = reference.median(CONSUMED) if reference else None
    with_reads, at_rate, failover = doc.has_read_side(), doc.measured(Workload.RATE), doc.measured(Workload.FAILOVER)
    out = []
    for entry in doc.scenarios:
        mb = (entry.summary or {}).get(THROUGHPUT.key)
        p99 = (entry.summary or {}).get(P99.key)
        ratio = f"{mb.median / ref_mb:.2f}x" if mb and ref_mb else "-"
        row = [
            entry.id, str(entry.status),
            f"{mb.median:.2f} [{mb.min:.2f}-{mb.max:.2f}]" if mb else "-",
            f"{p99.median:.0f}" if p99 is not None else "-",
            ratio,
        ]
        if with_reads:
            read = (entry.summary or {}).get(CONSUMED.key)
            e2e = (entry.summary or {}).get(E2E_P99.key)
            row += [f"{read.median:.2f}" + (f" ({read.median / ref_read:.2f}x)" if ref_read else "") if read else "-",
                    f"{e2e.median:.0f}" if e2e is not None else "-"]
        if at_rate:
            row += [_at_rate(entry, metric) for metric in (RATE_P99, RATE_E2E_P99)]
        if failover:
            row += [_failover(entry, metric) for metric in FAILOVER_COLUMNS] + [_lost(entry)]
        row.append(canary_cell(canary_verdict(entry, reference) if entry.is_canary else None))
        out.append(row)
    return out


def _at_rate(entry: Entry, metric: Metric) -> str:
    """A latency at rate's median, with ' (not held)' where a run could not hold its rate."""
    stat = (entry.summary or {}).get(metric.key)
    return (f"{stat.median:.0f}" if stat is not None else "-") + (" (not held)" if entry.fell_behind(metric) else "")


def _failover(entry: Entry, metric: Metric) -> str:
    """A failover figure's median in seconds, '>' where a run's step had not ended by its end."""
    stat = (entry.summary or {}).get(metric.key)
    censored = any(metric.key in r.fo_censored for r in entry.read_runs if r.workload is Workload.FAILOVER)
    return ">" * censored + f"{stat.median:.1f}" if stat is not None else "-"


def _lost(entry: Entry) -> str:
    lost = entry.lost_records()
    return "-" if lost is None else str(lost)


FAILOVER_COLUMNS = (UNAVAILABLE, STALL, RECOVERY)
HEADER = ["scenario", "status", "MB/s median [range]", "p99 ms", "vs reference", "canary"]
READ_HEADER = ["consumed MB/s", "e2e p99 ms"]
RATE_HEADER = ["p99 at rate ms", "e2e p99 at rate ms"]
FAILOVER_HEADER = ["unavailable s", "stall s", "recovery s", "lost"]  # through a broker killed (docs/failover.md)


def render(doc: ResultsDoc) -> str:
    body = rows(doc)
    header = (HEADER[:-1] + (READ_HEADER if doc.has_read_side() else []) + (RATE_HEADER if doc.measured(Workload.RATE)
              else []) + (FAILOVER_HEADER if doc.measured(Workload.FAILOVER) else []) + HEADER[-1:])
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    busy = environment.busy_note(doc.environment)
    footer = [f"warning: {busy}"] if busy else []
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, body), *footer])


def _judged(sv: verdict.ScenarioVerdict) -> str:
    """One scenario's verdict in a line: 'ok (throughput 0.97x, p99 1.02x)', 'regression: <why>'."""
    ratios = ", ".join(f"{d.metric} {d.ratio:.2f}x" for d in sv.decisions if d.ratio is not None)
    why = "; ".join(sv.notes) if sv.verdict is verdict.Outcome.CLIFF else verdict.unsettled(sv)
    word = "ok" if sv.verdict is verdict.Outcome.PASS else str(sv.verdict)
    return f"{word}: {why}" if why else f"{word} ({ratios or 'no figures'})"


def baseline_rows(doc: ResultsDoc, base: baselines.Baseline, found: Yardstick | None = None) -> list[list[str]]:
    """[scenario, verdict] for every scenario of the run: kcliff compare's decision, or why there is none."""
    found = found or baseline_host.yardstick(doc.environment, base)
    judged = {sv.id: sv for sv in baseline_verdict.compare(doc, base, found).scenarios}
    out = []
    for entry in doc.scenarios:
        if entry.is_canary:
            text = "canary: judged against this run's reference (canary column)"
        elif entry.id == REFERENCE_ID and not found.basis.absolute:
            text = "not judged: the yardstick of the ratios below"
        elif entry.id in judged:
            text = ("" if found.basis.absolute else "ratio to the reference: ") + _judged(judged[entry.id])
        else:
            text = baselines.skip_reason(entry, found.baseline.scenarios.get(entry.id)) or "not compared"
        out.append([entry.id, text])
    return out


def baseline_section(doc: ResultsDoc, path: Path, base: baselines.Baseline | None, results: Path | None = None) -> str:
    """What the run says against its stored baseline; a one-line note when there is none or it does not fit.
    Measured on another host, one line says so first and only ratios to the reference are judged."""
    env = doc.environment
    if base is None:
        return (f"vs baseline: none stored for Kafka {env['kafka_version']} on runner class "
                f"'{env['runner_class']}' ({path})")
    try:
        baselines.check_compatible(doc, base, None)
    except baselines.Refused as exc:
        return f"vs baseline: {path} not used: {exc}"
    found = baseline_host.yardstick(env, base)
    body = baseline_rows(doc, base, found)
    width = max(len(r[0]) for r in body) if body else 0
    runs = len(found.baseline.sources)
    whose = "this host's own" if found.basis.absolute else "measured on another host"
    head = (f"vs baseline {path} ({runs} past runs, {whose}, updated {base.updated}; "
            "`kcliff compare` is the gate):")
    said = found.note(str(results) if results is not None else "RESULTS")
    first = [f"vs baseline: {said}"] if said else []
    return "\n".join([*first, head, *(f"  {sid.ljust(width)}  {text}" for sid, text in body)])


def confirmation_lines(doc: ResultsDoc) -> list[str]:
    """`--confirm`'s outcome, one line per prediction (none when the run confirmed nothing)."""
    record = doc.confirmation
    if record is None:
        return []
    from kcliff.pairwise import confirm  # here: pandas and statsmodels, 3-18 s to load, for --confirm only

    return ["confirmation (measured interleaved with the reference and the fastest pairwise row):",
            *(f"  {confirm.sentence(c, record.fastest_row)}" for c in confirm.check(doc))]


def bound_lines(doc: ResultsDoc) -> list[str]:
    """What bound each scenario's flat-out runs on this rig (results/bottleneck.py), one line each,
    after the rig's profile: so a reader knows which resource the ratios are about."""
    lines = [f"rig: {Rig.of(doc.environment).describe()}"]
    rtt = (doc.environment.get("caps") or {}).get("replication_rtt_ms")
    if rtt:
        lines[0] += f"; followers fetch across a {rtt:g} ms round trip"
    for entry in doc.scenarios:
        bounds = [r.bound for r in entry.runs if r.bound is not None and r.complete]
        if bounds:
            kinds = sorted({b.resource.value for b in bounds})
            lines.append(f"  {entry.id}: bound by {'/'.join(kinds)}: {'; '.join(b.describe() for b in bounds)}")
    return lines
