"""One check measured on two rigs, one binding on CPU and one on bytes: where their verdicts disagree
about a setting that trades CPU against bytes, the check does not fail on the rig's bottleneck; it
says which way each kind of cluster reads the change and asks for the repo's profile instead.
A cliff fails wherever it shows: a cliff is no trade."""

from __future__ import annotations

from dataclasses import dataclass, replace

from kcliff.judge.verdict import Outcome, Verdict, worst

ASK = "declare your cluster's shape in kcliff.yaml (profile:) to be judged where it binds"


@dataclass(frozen=True)
class RigVerdict:
    rig: str  # the profile's name, or results.rig.CPU_BOUND
    binds: str  # what binds on it: "cpu", "network", "disk"
    verdict: Verdict


def direction(verdict: Verdict) -> Outcome:
    """The head's reading on one rig: regression, improvement (a metric improved, none failed) or pass."""
    head = next((sv for sv in verdict.scenarios if sv.id == "head"), None)
    if verdict.verdict is not Outcome.PASS or head is None:
        return verdict.verdict
    improved = any(d.outcome is Outcome.IMPROVEMENT for d in head.decisions)
    return Outcome.IMPROVEMENT if improved else Outcome.PASS


def disagreement(rigs: list[RigVerdict]) -> str | None:
    """The sentence for rigs that read a change in opposite directions: a regression on one and a pass or
    improvement on another, or an improvement on one where another could not tell. None when they agree,
    or when one shows a cliff (no trade)."""
    readings = {r.binds: direction(r.verdict) for r in rigs}
    seen = set(readings.values())
    opposite = ((Outcome.REGRESSION in seen and seen & {Outcome.PASS, Outcome.IMPROVEMENT})
                or (Outcome.IMPROVEMENT in seen and Outcome.INCONCLUSIVE in seen))
    if Outcome.CLIFF in seen or not opposite:
        return None
    said = ", ".join(f"{o.value} where {'CPU' if b == 'cpu' else f'the {b}'} binds" for b, o in readings.items())
    return f"{said}: {ASK}"


def combine(rigs: list[RigVerdict]) -> Verdict:
    """The check's verdict over its rigs: one rig's own; rigs that disagree on a trade pass with the
    disagreement said; otherwise the worst (a cliff or a regression on every rig fails)."""
    if len(rigs) == 1:
        return rigs[0].verdict
    # the first rig (CPU-bound, today's) speaks as a one-rig check does; the others' words say their rig
    first = rigs[0].verdict
    notes = first.notes + tuple(f"[{r.rig}] {n}" for r in rigs[1:] for n in r.verdict.notes)
    scenarios = first.scenarios + tuple(replace(sv, id=f"{sv.id}@{r.rig}") for r in rigs[1:] for sv in r.verdict.scenarios)
    said = disagreement(rigs)
    reasons = first.reasons + tuple(f"[{r.rig}] {reason}" for r in rigs[1:] for reason in r.verdict.reasons)
    if said is not None:
        return replace(first, verdict=Outcome.PASS, reasons=(f"trade-off: {said}", *reasons), notes=notes,
                       scenarios=scenarios)
    outcome = worst([r.verdict.verdict for r in rigs])
    return replace(first, verdict=outcome, reasons=reasons, notes=notes, scenarios=scenarios)
