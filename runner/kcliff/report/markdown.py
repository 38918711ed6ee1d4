"""Markdown for a verdict: fit for $GITHUB_STEP_SUMMARY and a pull-request comment.

A heading with the verdict, a table of base vs head per scenario and metric (medians, ratio, the
interval, p), the canaries' self-test, why, and what to change.
"""

from __future__ import annotations

from typing import Any

from kcliff.judge.verdict import (
    DEFAULT_ALPHA,
    DEFAULT_MIN_EFFECT,
    Decision,
    Outcome,
    Verdict,
    default_tolerance,
)
from kcliff.lint.severity import Severity
from kcliff.results.metrics import METRICS

MARK = {Outcome.PASS: "✅", Outcome.REGRESSION: "❌", Outcome.CLIFF: "❌", Outcome.INCONCLUSIVE: "⚠️"}
HEADLINE = {
    Outcome.PASS: "no regression beyond noise",
    Outcome.REGRESSION: "a regression beyond noise and the minimum effect",
    Outcome.CLIFF: "a performance cliff",
    Outcome.INCONCLUSIVE: "inconclusive: this run cannot tell",
}


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}g}"


NOT_JUDGED = "not judged: the change cannot move it"


def _decision_row(scenario_id: str, d: Decision) -> str:
    interval = "-" if d.low is None else f"{d.low:.2f}-{d.high:.2f}"
    ratio = "-" if d.ratio is None else f"{d.ratio:.2f}x"
    noise = "/".join("-" if c is None else f"{c:.0%}" for c in (d.cv_base, d.cv_head))
    return "| " + " | ".join(_cell(x) for x in (
        scenario_id, f"{d.metric} ({METRICS[d.metric].unit})", f"{_num(d.base_median)} (n={d.n_base})",
        f"{_num(d.head_median)} (n={d.n_head})", ratio, interval, _num(d.p_value, 2), noise,
        NOT_JUDGED if d.outcome is Outcome.NOT_JUDGED else f"{MARK.get(d.outcome, '')} {d.outcome}".strip())) + " |"


def advice(v: Verdict) -> list[str]:
    """What to change, one line per finding."""
    out: list[str] = []
    for m in v.rule_matches:
        if m.get("severity") == Severity.ERROR:
            out.append(f"`{m['path']}:{m['line']}`: {m.get('fix', 'see scenarios/cliffs.yaml')}")
    for sv in v.scenarios:
        if sv.verdict is Outcome.CLIFF:
            out.append(f"`{sv.id}` fell to the canaries' throughput tier: run `kcliff lint` on the config and look "
                       "for the settings scenarios/cliffs.yaml names (flush, in-flight, batching, threads).")
        elif sv.verdict is Outcome.REGRESSION:
            bad = ", ".join(f"{d.metric} {d.ratio:.2f}x" for d in sv.decisions if d.outcome is Outcome.REGRESSION)
            out.append(f"`{sv.id}` regressed ({bad}): revert or rethink the change that caused it; if the cost "
                       "is intended, say so in the pull request and record the new level with "
                       "`kcliff baseline update RESULTS` once merged.")
        elif sv.verdict is Outcome.INCONCLUSIVE:
            unsure = [d for d in sv.decisions if d.outcome is Outcome.INCONCLUSIVE]
            few = any(d.reason.startswith("too few runs") for d in unsure)
            out.append(f"`{sv.id}`: " + ("measure more runs a side (at least 5 each, or compare with a baseline "
                                         "of many runs)." if few else
                       "re-run with more repeats (quadrupling the runs halves the interval) or on a quieter "
                       "runner; run-to-run noise is in the table's noise column."))
    for c in v.canaries:
        if not c.seen:
            out.append(f"canary `{c.id}` did not show its cliff ({c.reason}): the runner may be throttled or "
                       "shared, or the canary no longer stands for a cliff; re-run before trusting any pass.")
    return out


def _floors(v: Verdict) -> str:
    """The metrics this verdict judged at a larger minimum effect than the one asked for."""
    judged = {d.metric for sv in v.scenarios for d in sv.decisions if d.outcome is not Outcome.NOT_JUDGED}
    return "".join(f" {m.name} counts only beyond {m.min_effect_floor:.0%}, its floor." for m in METRICS.values()
                   if m.name in judged and m.min_effect_floor > v.settings.get("min_effect", DEFAULT_MIN_EFFECT))


def render(v: Verdict, title: str = "kcliff", context: str = "") -> str:
    lines = [f"## {title}: {v.verdict} {MARK[v.verdict]}", "",
             f"**Verdict: {v.verdict}** - {HEADLINE[v.verdict]}." + (f" {context}" if context else ""), ""]
    s = v.settings
    if s:
        effect = s.get("min_effect", DEFAULT_MIN_EFFECT)
        alpha, tolerance = s.get("alpha", DEFAULT_ALPHA), default_tolerance(effect)
        # a check splits alpha across the metrics it judges (judge/family.py): say the level each was held to
        each = min((d.alpha for sv in v.scenarios for d in sv.decisions if d.outcome is not Outcome.NOT_JUDGED),
                   default=alpha)
        level = f"{each:.3g} for each judged metric, {alpha} for them all together" if each < alpha else f"{alpha}"
        lines += [f"Regression = throughput down or p99 up by more than {effect:.0%} "
                  + (f"(geometric mean of the per-round head/base ratios) and beyond a {tolerance:.0%} worsening by a "
                     f"one-sided paired t-test on their logs, p < {level}; intervals are "
                     f"{s.get('confidence', 0.95):.0%} t intervals"
                     if s.get("paired") else
                     f"(ratio of medians) and beyond a {tolerance:.0%} worsening by one-sided Mann-Whitney, "
                     f"p < {alpha}; intervals are {s.get('confidence', 0.95):.0%} bootstrap intervals")
                  + " on the ratio." + _floors(v), ""]
    if v.scenarios:
        lines += ["| scenario | metric | base median | head median | ratio | interval | p | noise (CV base/head) | result |",
                  "|---|---|---:|---:|---:|---|---:|---|---|"]
        for sv in v.scenarios:
            lines += [_decision_row(sv.id, d) for d in sv.decisions]
            if sv.verdict is Outcome.CLIFF:
                lines.append(f"| {_cell(sv.id)} | tier | | | | | | | {MARK[Outcome.CLIFF]} cliff |")
        lines.append("")
    if v.canaries:
        lines += ["**Canaries** (sensitivity self-test: each must land below its ratio to the reference)", "",
                  "| canary | metric | ratio to reference | must be below | shows its cliff |",
                  "|---|---|---:|---:|---|"]
        for c in v.canaries:
            lines.append("| " + " | ".join(_cell(x) for x in (
                c.id, c.metric, "-" if c.ratio is None else f"{c.ratio:.2f}", c.max_ratio,
                "✅ yes" if c.seen else "⚠️ no")) + " |")
        lines.append("")
    if v.rule_matches:
        lines += ["**Cliff rules**", ""]
        lines += [f"- {m['severity']}: `{m['path']}:{m['line']}` {m['rule']}: {m.get('condition', '')}"
                  for m in v.rule_matches]
        lines.append("")
    if v.reasons:
        lines += ["**Why**", ""] + [f"- {_cell(r)}" for r in v.reasons] + [""]
    todo = advice(v)
    if todo:
        lines += ["**What to change**", ""] + [f"- {t}" for t in todo] + [""]
    if v.notes:
        lines += ["<details><summary>Notes</summary>", ""] + [f"- {_cell(n)}" for n in v.notes] + ["", "</details>", ""]
    return "\n".join(lines)
