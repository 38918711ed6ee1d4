"""The end-of-run table: scenario, MB/s median and range, p99 median, ratio to the reference, and
for canaries whether their cliff showed."""

from __future__ import annotations

from typing import Any

from . import environment, results
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
    busy = environment.load_warning(doc.get("environment") or {})
    footer = [f"warning: measured on a busy machine: {busy}"] if busy else []
    return "\n".join([line(HEADER), line(["-" * w for w in widths]), *map(line, body), *footer])
