"""`kcliff report`: a static site from the history and the latest results, readable offline.

build_site() gathers the data (history, change points, latest run, factor analysis), renders the
Jinja2 templates in reports/templates with inline SVG charts (report.charts) and pandas tables, copies
reports/static and every raw results file, and returns the path of index.html.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kcliff import resources
from kcliff.errors import InputError
from kcliff.judge import canary, changepoint, regressions, tiers
from kcliff.report import charts, factor_page, latest, pages
from kcliff.results import history, metrics
from kcliff.results.bottleneck import Bound
from kcliff.results.model import REFERENCE_ID, ResultsDoc
from kcliff.results.rig import Rig, RunnerClass


def site_sources() -> Path:
    """kcliff's reports/: the site's templates and static files."""
    return resources.shipped("reports")


def _copy_raw(runs: list[history.HistoryRun], results: Path | None, out: Path) -> dict[str, str]:
    """Copy every raw results file under out/raw/; return run_id -> link relative to the site."""
    links = {}
    for run in runs:
        rel = Path("raw") / run.path.parent.name / run.path.name
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(run.path, out / rel)
        links[run.key.run_id] = rel.as_posix()
    if results is not None:
        rel = Path("raw") / "latest" / results.name
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(results, out / rel)
        doc = history.read_results(results)
        links[doc.run_id] = rel.as_posix()
    return links


def _scenario_order(series: list[changepoint.Series], doc: ResultsDoc, moved: set[str]) -> list[str]:
    """Reference first, then scenarios that moved, then the latest run's order, then history-only ones."""
    in_run = [sc.id for sc in doc.scenarios]
    ids = [REFERENCE_ID] + [i for i in in_run if i in moved] + sorted(moved) + in_run + sorted({s.scenario for s in series})
    present = {s.scenario for s in series}
    return [i for i in dict.fromkeys(ids) if i in present]


@dataclass(frozen=True)
class Beside:
    """What the report says beside a scenario's trend charts: the rig of the series' newest run (its profile
    and caps) and what bound that run's scenario (results/bottleneck.py, as recorded; None before kcliff
    recorded it)."""

    run_id: str
    rig: Rig
    bound: Bound | None


def _beside(scenario: str, here: list[changepoint.Series], docs: dict[str, ResultsDoc]) -> Beside | None:
    order = list(docs)
    newest = max((s.points[-1].run_id for s in here if s.points[-1].run_id in docs), key=order.index, default=None)
    if newest is None:
        return None
    doc = docs[newest]
    entry = doc.entry(scenario)
    return Beside(newest, Rig.of(doc.environment), entry.bound() if entry is not None else None)


def _trends(series: list[changepoint.Series], found: dict[str, list[changepoint.ChangePoint]],
            doc: ResultsDoc, docs: dict[str, ResultsDoc]) -> list[dict[str, Any]]:
    by_key = {s.key: s for s in series}
    sections = []
    moved = {s.scenario for s in series if found[s.key]}
    for scenario in _scenario_order(series, doc, moved):
        charts_here, here = [], []
        for metric in metrics.METRICS.values():
            s = by_key.get(f"{scenario} {metric.name}")
            if s is not None:
                here.append(s)
                charts_here.append({"metric": metric, "svg": charts.trend_chart(s, found[s.key]),
                                    "changes": found[s.key]})
        sections.append({"scenario": scenario, "charts": charts_here, "beside": _beside(scenario, here, docs)})
    return sections


def _other_classes(runs: list[history.HistoryRun], runner_class: str) -> tuple[list[RunnerClass], list[str]]:
    """The history's other runner classes: this host class's at other rig profiles, and the rest."""
    others = [RunnerClass.parse(c) for c in sorted({r.key.runner_class for r in runs} - {runner_class})]
    host = RunnerClass.parse(runner_class).host
    return [c for c in others if c.host == host], [str(c) for c in others if c.host != host]


def build_site(history_dir: str | Path | None, out_dir: str | Path, results: str | Path | None = None,
               p99_bound_ms: float | None = None) -> Path:
    """Build the report site in OUT_DIR from a history directory and/or one results file.

    The latest run is RESULTS when given, else the newest run in the history; trends come from the
    history runs of the latest run's runner class, which carries its rig profile: beside each scenario's
    charts, the profile and caps of its series' newest run and what bound that run; the history's other
    profiles and runner classes are named, never mixed in. The factor page's bounded prediction keeps p99
    under P99_BOUND_MS (default: the reference's p99). Returns the path of index.html."""
    runs = history.load(history_dir) if history_dir is not None else []
    results = Path(results) if results is not None else None
    if results is not None:
        doc = history.read_results(results)
    elif runs:
        doc = runs[-1].doc
    else:
        raise InputError("nothing to report: the history is empty and no --results file was given",
                         str(history_dir) if history_dir is not None else None)
    sources = site_sources()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    links = _copy_raw(runs, results, out)
    runner_class = doc.environment["runner_class"]
    other_profiles, other_classes = _other_classes(runs, runner_class)
    docs = {r.key.run_id: r.doc for r in runs if r.key.runner_class == runner_class} | {doc.run_id: doc}
    series = regressions.build_series(runs, runner_class)
    found = changepoint.detect_all(series)
    rate_bars = latest.rate_bars(doc)
    at_latest = [cp for cps in found.values() for cp in cps if cp.run_id == doc.run_id]
    context = {
        "doc": doc,
        "env": doc.environment,
        "raw_link": links.get(doc.run_id),
        "runs": [r for r in runs if r.key.runner_class == runner_class],
        "rig": Rig.of(doc.environment),
        "other_profiles": other_profiles,
        "other_classes": other_classes,
        "links": links,
        "tiers": tiers.TIERS,
        "tier_svg": charts.bar_chart(latest.tier_bars(doc), metrics.THROUGHPUT.unit,
                                     f"Scenarios of run {doc.run_id} by throughput, coloured by tier"),
        # latency at a fixed rate beside peak throughput: its own chart, drawn only where it was measured
        "rate_svg": charts.bar_chart(rate_bars, metrics.RATE_P99.unit,
                                     f"Scenarios of run {doc.run_id} by p99 at a fixed rate") if rate_bars else None,
        "canaries": canary.canary_verdicts(doc),
        "scenario_table": latest.scenario_table(doc),
        "at_latest": at_latest,
        "all_changes": sorted((cp for cps in found.values() for cp in cps), key=lambda c: (c.date, c.scenario)),
        "trends": _trends(series, found, doc, docs),
        **factor_page.context(doc, p99_bound_ms),
        "units": {m.name: m.unit for m in metrics.METRICS.values()},
    }
    pages.render_all(sources, out, context)
    return out / "index.html"
