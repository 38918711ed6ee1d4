"""`kcliff run --confirm`: measure the factor model's predicted configurations and say whether they held.

The model predicts combinations the pairwise run never measured, and it assumes no interactions.
So after the suite the predicted best (and the predicted best within the p99 bound, when that is a
different configuration) is measured interleaved round by round with the reference and the fastest
design row measured again. The fastest row's first measurement was taken minutes earlier on a rig
that drifts; measured again in the same rounds it is a fair opponent, and the gate's own paired
rule (verdict.decide) says whether the prediction beat it, matched it or fell short.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from kcliff.errors import InputError
from kcliff.judge.verdict import Decision, Outcome, decide
from kcliff.pairwise import factors
from kcliff.pairwise.design import split
from kcliff.pairwise.prediction import Prediction
from kcliff.results.metrics import P99, THROUGHPUT
from kcliff.results.model import REFERENCE_ID, Confirmation, ConfirmedConfig, Entry, ResultsDoc, Status
from kcliff.scenario.suites import Scenario

SOURCE = "confirm"  # the confirmation's scenarios come from no suite file, so they are never design rows
REFERENCE, FASTEST = "confirm-reference", "confirm-fastest-row"
PREDICTED = {"best": "confirm-predicted", "p99-bounded": "confirm-predicted-p99"}


@dataclass(frozen=True)
class Plan:
    scenarios: list[Scenario]  # measured as one interleaved group, as `kcliff check` measures base and head
    record: Confirmation


def plan(doc: ResultsDoc, suite: list[Scenario], p99_bound_ms: float | None) -> Plan:
    """The confirmation group for a finished pairwise run; InputError when the run gives no prediction."""
    fa = factors.analyse(doc, p99_bound_ms)
    if fa.best is None or fa.measured.empty:
        why = fa.warnings[-1] if fa.warnings else "no prediction"
        raise InputError(f"--confirm: nothing to confirm: {why}")
    by_id = {sc.id: sc for sc in suite}
    fastest = by_id[str(fa.measured.iloc[0]["scenario"])]
    group = [_copy(by_id[REFERENCE_ID], REFERENCE, "the reference, measured again beside the predictions"),
             _copy(fastest, FASTEST, f"the fastest design row ({fastest.id}), measured again beside the predictions")]
    configs = []
    for kind, chosen in (("best", fa.best), ("p99-bounded", fa.bounded)):
        if chosen is None or (kind == "p99-bounded" and chosen.levels == fa.best.levels):
            continue
        configs.append(ConfirmedConfig(id=PREDICTED[kind], kind=kind, levels=chosen.levels,
                                       predicted_mb_per_sec=chosen.mb_per_sec, predicted_p99_ms=chosen.p99_ms))
        group.append(_predicted(fastest, PREDICTED[kind], chosen))
    bound = fa.bounded.p99_bound_ms if fa.bounded else fa.best.p99_bound_ms
    return Plan(group, Confirmation(reference_id=REFERENCE, fastest_id=FASTEST, fastest_row=fastest.id,
                                    p99_bound_ms=bound, predictions=configs))


def _copy(sc: Scenario, new_id: str, description: str) -> Scenario:
    return dataclasses.replace(sc, id=new_id, description=description, cliff=None, source=SOURCE, line=None)


def _predicted(base: Scenario, new_id: str, chosen: Prediction) -> Scenario:
    """The design row's scenario with every factor at the predicted level: settings the design holds
    constant stay as the rows had them."""
    def at(scope: str) -> dict[str, Any]:
        return {**base.settings_in(scope), **chosen.settings.get(scope, {})}
    return dataclasses.replace(_copy(base, new_id, f"predicted {chosen.describe()}"),
                               broker=at("broker"), topic=at("topic"), producer=at("producer"))


class Held(StrEnum):
    BEAT = "beat the fastest row"
    MATCHED = "matched the fastest row"
    SHORT = "fell short of the fastest row"
    UNKNOWN = "cannot tell"
    CLIFF = "on a cliff"
    NOT_MEASURED = "not measured"


_FROM_OUTCOME = {Outcome.IMPROVEMENT: Held.BEAT, Outcome.PASS: Held.MATCHED, Outcome.REGRESSION: Held.SHORT,
                 Outcome.INCONCLUSIVE: Held.UNKNOWN}


@dataclass(frozen=True)
class Checked:
    """One prediction as measured: throughput against the fastest row (paired), p99 against the bound."""

    config: ConfirmedConfig
    outcome: Held
    mb_per_sec: float | None = None
    p99_ms: float | None = None
    vs_fastest: Decision | None = None
    vs_reference: float | None = None
    within_bound: bool | None = None  # None: no bound, or no p99 measured

    @property
    def held(self) -> bool:
        """The prediction held: at least as fast as the fastest measured row, and within its p99 bound."""
        return self.outcome in (Held.BEAT, Held.MATCHED) and self.within_bound is not False


def _values(entry: Entry) -> list[float | None]:
    return [run.value(THROUGHPUT) for run in entry.runs]


def check(doc: ResultsDoc) -> list[Checked]:
    """Each confirmed prediction's outcome; empty when the run has no confirmation."""
    record = doc.confirmation
    if record is None:
        return []
    fastest, reference = doc.entry(record.fastest_id), doc.entry(record.reference_id)
    return [_check(config, doc.entry(config.id), fastest, reference, record.p99_bound_ms)
            for config in record.predictions]


def _check(config: ConfirmedConfig, entry: Entry | None, fastest: Entry | None, reference: Entry | None,
           bound: float | None) -> Checked:
    if entry is None or fastest is None or not entry.counts or not fastest.counts:
        return Checked(config, Held.NOT_MEASURED)
    mb, p99 = entry.median(THROUGHPUT), entry.median(P99)
    ref_mb = reference.median(THROUGHPUT) if reference is not None and reference.counts else None
    vs_reference = mb / ref_mb if mb is not None and ref_mb else None
    if entry.status is Status.CLIFF:
        return Checked(config, Held.CLIFF, mb, None, None, vs_reference)
    decision = decide(_values(fastest), _values(entry), THROUGHPUT.name, paired=True)
    within = p99 <= bound if config.kind == "p99-bounded" and bound is not None and p99 is not None else None
    return Checked(config, _FROM_OUTCOME[decision.outcome], mb, p99, decision, vs_reference, within)


def sentence(c: Checked, fastest_row: str) -> str:
    """One line a reader can act on: what was predicted, what was measured, whether it held."""
    what = "predicted best" if c.config.kind == "best" else "predicted best within the p99 bound"
    said = f"{what} ({' '.join(f'{split(k)[1]}={v}' for k, v in c.config.levels.items())})"
    if c.mb_per_sec is None:
        return f"{said}: {c.outcome}"
    figures = f"measured {c.mb_per_sec:.3g} MB/s (model: {c.config.predicted_mb_per_sec:.3g})"
    if c.vs_fastest is not None and c.vs_fastest.ratio is not None:
        figures += (f", {c.vs_fastest.ratio:.2f}x the fastest row {fastest_row} "
                    f"[{c.vs_fastest.low:.2f}-{c.vs_fastest.high:.2f}] in the same rounds")
    if c.vs_reference is not None:
        figures += f", {c.vs_reference:.2f}x the reference"
    if c.within_bound is not None and c.p99_ms is not None:
        figures += f", p99 {c.p99_ms:.4g} ms {'within' if c.within_bound else 'over'} the bound"
    return f"{said}: {figures}: {c.outcome}; {'held' if c.held else 'did not hold'}"
