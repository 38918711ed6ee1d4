"""The end-of-run table: scenario, MB/s median and range, p99 median, ratio to the reference, and
for canaries whether their cliff showed; then each scenario's verdict against the stored baseline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import baseline as baselines
from . import environment, results, verdict
from .scenario import REFERENCE_ID


def canary_verdict(entry: dict[str, Any], reference: dict[str, Any] | None) -> str | None:
    """'cliff seen' / 'NOT SEEN' for a canary, None for other scenarios or without figures."""
    cliff = entry.get("cliff")
    if not cliff or reference is None:
        return None
    if cliff["metric"] == "p99":
        mine, ref = results.median(entry, "p99_ms"), results.median(reference, "p99_ms")
        if entry.get("status") == "cliff":
            return "cliff seen"
        return None if not mine or not ref else ("cliff seen" if ref < cliff["max_ratio"] * mine else "NOT SEEN")
    mine, ref = results.median(entry, "mb_per_sec"), results.median(reference, "mb_per_sec")
    if mine is None or not ref:
        return None
    return "cliff seen" if mine < cliff["max_ratio"] * ref else "NOT SEEN"


def unseen_canaries(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The canaries of a run that did not show their cliff: the run fails on them."""
    reference = results.scenario_entry(doc, REFERENCE_ID)
    return [e for e in doc["scenarios"] if canary_verdict(e, reference) == "NOT SEEN"]


def tier(entry: dict[str, Any], reference_mb: float | None, threshold: float) -> str | None:
    """'cliff' when stopped on a cliff or below threshold x the reference's MB/s, else 'healthy'."""
    if entry.get("status") == "cliff":
        return "cliff"
    mb = results.median(entry, "mb_per_sec")
    if mb is None or not reference_mb:
        return None
    return "cliff" if mb < threshold * reference_mb else "healthy"


def rows(doc: dict[str, Any]) -> list[list[str]]:
    reference = results.scenario_entry(doc, REFERENCE_ID)
    ref_mb = results.median(reference, "mb_per_sec") if reference else None
    out = []
    for entry in doc["scenarios"]:
        mb = (entry.get("summary") or {}).get("mb_per_sec")
        p99 = results.median(entry, "p99_ms")
        ratio = f"{mb['median'] / ref_mb:.2f}x" if mb and ref_mb else "-"
        out.append([
            entry["id"], entry["status"],
            f"{mb['median']:.2f} [{mb['min']:.2f}-{mb['max']:.2f}]" if mb else "-",
            f"{p99:.0f}" if p99 is not None else "-",
            ratio,
            canary_verdict(entry, reference) or "",
        ])
    return out


HEADER = ["scenario", "status", "MB/s median [range]", "p99 ms", "vs reference", "canary"]


def render(doc: dict[str, Any]) -> str:
    body = rows(doc)
    widths = [max(len(r[i]) for r in [HEADER, *body]) for i in range(len(HEADER))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    busy = environment.busy_note(doc.get("environment") or {})
    footer = [f"warning: {busy}"] if busy else []
    return "\n".join([line(HEADER), line(["-" * w for w in widths]), *map(line, body), *footer])


def _judged(sv: verdict.ScenarioVerdict) -> str:
    """One scenario's verdict in a line: 'ok (throughput 0.97x, p99 1.02x)', 'regression: <why>'."""
    ratios = ", ".join(f"{d.metric} {d.ratio:.2f}x" for d in sv.decisions if d.ratio is not None)
    why = "; ".join(sv.notes) if sv.verdict == "cliff" else verdict.unsettled(sv)
    word = "ok" if sv.verdict == "pass" else sv.verdict
    return f"{word}: {why}" if why else f"{word} ({ratios or 'no figures'})"


def baseline_rows(doc: dict[str, Any], base: dict[str, Any]) -> list[list[str]]:
    """[scenario, verdict] for every scenario of the run: kcliff compare's decision, or why there is none."""
    judged = {sv.id: sv for sv in baselines.compare(doc, base).scenarios}
    out = []
    for sid, entry in baselines.scenario_map(doc).items():
        if entry.get("cliff"):
            text = "canary: judged against this run's reference (canary column)"
        elif sid in judged:
            text = _judged(judged[sid])
        else:
            text = baselines.skip_reason(entry, base["scenarios"].get(sid)) or "not compared"
        out.append([sid, text])
    return out


def baseline_section(doc: dict[str, Any], path: Path, base: dict[str, Any] | None) -> str:
    """What the run says against its stored baseline; a one-line note when there is none or it does not fit."""
    env = doc["environment"]
    if base is None:
        return (f"vs baseline: none stored for Kafka {env['kafka_version']} on runner class "
                f"'{env['runner_class']}' ({path})")
    try:
        baselines.check_compatible(doc, base, None)
    except baselines.Refused as exc:
        return f"vs baseline: {path} not used: {exc}"
    body = baseline_rows(doc, base)
    width = max(len(r[0]) for r in body) if body else 0
    head = (f"vs baseline {path} ({len(base.get('sources', []))} past runs, updated {base.get('updated')}; "
            "`kcliff compare` is the gate):")
    return "\n".join([head, *(f"  {sid.ljust(width)}  {text}" for sid, text in body)])
