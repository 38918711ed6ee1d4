"""What each side's producer made of its records: the compression it achieved on the payload it sent
(issue #29), and the bytes a head saves or adds for the same records. A fact of the check, not a
verdict: whether fewer bytes made the head faster or slower is what the judged metrics say."""

from __future__ import annotations

import statistics

from kcliff.results.model import Entry, ResultsDoc

SAME_WITHIN = 0.02  # ratios closer than this are one codec on one payload, as runs vary
CODEC_KEYS = ("compression.type", "compression.codec")  # the Java client's name, librdkafka's (kept as written)


def median_ratio(entry: Entry) -> float | None:
    """The median compression ratio of the entry's flat-out producer runs (None: none recorded)."""
    ratios = [r.compression_ratio for r in entry.runs if r.compression_ratio]
    return statistics.median(ratios) if ratios else None


def _described(entry: Entry) -> str:
    producer = entry.applied.get("producer", {})
    codec = next((producer[k] for k in CODEC_KEYS if k in producer), "none")
    return f"{median_ratio(entry):.2f}x ({codec})"


def compression_notes(doc: ResultsDoc) -> list[str]:
    """One note: each side's ratio and codec, the payload they compressed, and the bytes saved."""
    base, head = doc.entry("base"), doc.entry("head")
    if base is None or head is None:
        return []
    before, after = median_ratio(base), median_ratio(head)
    if before is None or after is None:
        return []
    payload = head.applied.get("payload", {}).get("kind", "random letters")
    note = f"compression on {payload}: base {_described(base)}, head {_described(head)}"
    saved = 1 - before / after  # bytes on the wire per record: 1/ratio
    if abs(saved) > SAME_WITHIN:
        note += f": the head sends {abs(saved):.0%} {'fewer' if saved > 0 else 'more'} bytes for the same records"
    return [note]
