"""`kcliff nightly publish|verdict`: what the nightly workflow does with a night's results.

publish  files the night in the history, compares it with the runner class's baseline (kept beside
         the history on the gh-pages branch, seeded from the repository's baselines/ the first
         time), builds the report and the site's front page, and moves the baseline on only from a
         complete night whose canaries all showed their cliff and that is no regression. Writes
         what it found to --outcome. The first night on a new Kafka version is compared with the
         newest older version's baseline: the nightly judges the upgrade.
verdict  reads that outcome after the site is published: exit 1 when the night must fail (the
         measuring job failed, a canary missed, a regression against the baseline), else 0.

Publishing first and failing after means a bad night is still on the site, marked as such.

A night measured at a rig profile (`kcliff run --profile`, the workflow's `profile`) has a runner class of
its own, `<class>@<profile>`: its history, baseline, report series and trend are that profile's alone.
--profile names the profile the night was asked for, and results measured at another are refused.
"""

from __future__ import annotations

import argparse
import json
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from kcliff.errors import InputError
from kcliff.judge import baseline_verdict, regressions
from kcliff.judge.verdict import Outcome
from kcliff.report import markdown as report_md
from kcliff.report import table
from kcliff.results import baseline as baselines
from kcliff.results import baseline_host
from kcliff.results import history
from kcliff.results.model import ResultsDoc, RunStatus
from kcliff.results.rig import CPU_BOUND, Rig, profile_of
from kcliff.scenario.profile import PRESETS


@dataclass
class NightOutcome:
    run_id: str
    measured: str                     # the measuring job's result: success, failure, ...
    status: str                       # the results document's status
    canaries_missed: list[str] = field(default_factory=list)
    baseline: str | None = None       # the baseline file compared with, relative to the site
    comparison: str | None = None     # pass, regression, cliff, inconclusive; None without a baseline
    comparison_reasons: list[str] = field(default_factory=list)
    baseline_updated: bool = False
    change_points: list[str] = field(default_factory=list)  # regressions the history's change points start here
    profile: str = CPU_BOUND          # the rig profile the night was measured at (its runner class's)
    rig: str = ""                     # that profile and the caps it set, in words (results/rig.py)

    def failures(self) -> list[str]:
        """Why the night fails; empty when it passes."""
        found = []
        if self.measured != "success":
            found.append(f"the measuring job ended with '{self.measured}'")
        found += [f"canary {c} did not show its cliff: the rig may not be able to see cliffs"
                  for c in self.canaries_missed]
        if self.comparison is not None and Outcome(self.comparison).fails:
            found.append(f"{self.comparison} against the baseline ({self.baseline})")
        found += [f"change point: {c}" for c in self.change_points]
        return found


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("nightly", help="the nightly workflow's publishing and verdict steps")
    verbs = parser.add_subparsers(dest="verb", required=True)
    pub = verbs.add_parser("publish", help="history, baseline comparison, report and front page of a night")
    pub.add_argument("results", type=Path, help="the night's results file")
    pub.add_argument("--site", type=Path, required=True, help="the gh-pages checkout")
    pub.add_argument("--seed-baselines", type=Path, help="baselines/ of the repository, used when the site has none")
    pub.add_argument("--measured", default="success", help="the measuring job's result (needs.measure.result)")
    pub.add_argument("--summary", type=Path, help="append the comparison's Markdown here ($GITHUB_STEP_SUMMARY)")
    pub.add_argument("--outcome", type=Path, required=True, help="write the night's outcome (JSON) here")
    pub.add_argument("--profile", choices=[CPU_BOUND, *PRESETS],
                     help="the rig profile the night was asked to measure at (the workflow's `profile`): results "
                          "measured at another are refused, so a night never joins another profile's series, "
                          "baseline or trend")
    pub.set_defaults(func=run_publish)
    ver = verbs.add_parser("verdict", help="exit 1 when the published night must fail")
    ver.add_argument("outcome", type=Path)
    ver.set_defaults(func=run_verdict)


def _baseline_file(site: Path, seed: Path | None, doc: ResultsDoc) -> Path:
    """The site's baseline for this runner class, copied from the repository's on the first night."""
    env = doc.environment
    kept = baselines.baseline_path(site / "baselines", env["kafka_version"], env["runner_class"])
    if not kept.exists() and seed is not None:
        seeded = baselines.baseline_path(seed, env["kafka_version"], env["runner_class"])
        if seeded.exists():
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(seeded, kept)
    return kept


def _previous_release(site: Path, doc: ResultsDoc) -> Path | None:
    """The runner class's baseline of the newest Kafka version older than the night's, if any."""
    env = doc.environment

    def release(version: str) -> tuple[int, ...]:
        return tuple(int(p) for p in version.split(".") if p.isdigit())
    older = [p for p in (site / "baselines").glob(f"*/{env['runner_class']}.json")
             if release(p.parent.name) < release(env["kafka_version"])]
    return max(older, key=lambda p: release(p.parent.name), default=None)


def _compare(outcome: NightOutcome, doc: ResultsDoc, path: Path, site: Path, summary: Path | None) -> None:
    if not path.exists():
        outcome.comparison_reasons = ["no baseline for this runner class yet: this night starts it"]
        markdown = f"### kcliff compare\n\nNo baseline for `{doc.environment['runner_class']}` yet: this night starts it.\n"
    else:
        stored = baselines.load_baseline(path)
        # the nightly's baseline is its runner pool's, built from its own nights on whichever runner the
        # pool gave each: the pool stands as one host, so its figures are compared as measured
        v = baseline_verdict.compare(doc, stored, baseline_host.runner_pool(stored))
        outcome.baseline, outcome.comparison, outcome.comparison_reasons = str(path.relative_to(site)), v.verdict, list(v.reasons)
        upgrade = (f" **Kafka upgrade: {stored.kafka_version} -> {doc.environment['kafka_version']}.**"
                   if stored.kafka_version != doc.environment["kafka_version"] else "")
        markdown = report_md.render(v, title="kcliff compare with the stored baseline",
                                    context=f"Night `{doc.run_id}` against `{outcome.baseline}` "
                                            f"({len(stored.sources)} past runs).{upgrade}")
    (site / "report").mkdir(parents=True, exist_ok=True)
    (site / "report" / "compare.md").write_text(markdown + "\n")
    if summary is not None:
        with open(summary, "a", encoding="utf-8") as out:
            out.write(markdown + "\n")


def _update_baseline(outcome: NightOutcome, doc: ResultsDoc, path: Path) -> None:
    # a regression must not become the new normal; neither may a night the rig could not vouch for
    if outcome.failures() or doc.status is not RunStatus.COMPLETE:
        return
    current = baselines.load_baseline(path) if path.exists() else \
        baselines.new_baseline(doc.environment["kafka_version"], doc.environment["runner_class"])
    updated, _ = baseline_verdict.admit(current, doc)
    baselines.save(updated, path)
    outcome.baseline_updated = True


def write_front_page(site: Path, outcome: NightOutcome) -> Path:
    """site/index.html: the night's state and the links to the report and both trend charts."""
    from kcliff.report.site import site_sources

    jinja = Environment(loader=FileSystemLoader(site_sources() / "site"), autoescape=select_autoescape())
    page = site / "index.html"
    page.write_text(jinja.get_template("index.html").render(night=outcome, failures=outcome.failures()))
    return page


def check_profile(doc: ResultsDoc, asked: str | None, where: str) -> str:
    """The rig profile the night was measured at; InputError when it is not the one asked for."""
    measured = profile_of(doc.environment["runner_class"])
    if asked is not None and asked != measured:
        raise InputError(f"the night was asked to measure at rig profile '{asked}' but its results were measured "
                         f"at '{measured}' (runner class '{doc.environment['runner_class']}'): published, they "
                         f"would join the series, baseline and trend of '{measured}'", where)
    return measured


def run_publish(args: argparse.Namespace) -> int:
    from kcliff.report.site import build_site

    doc = history.read_results(args.results)
    profile = check_profile(doc, args.profile, str(args.results))
    outcome = NightOutcome(run_id=doc.run_id, measured=args.measured, status=str(doc.status),
                           canaries_missed=[e.id for e, _ in table.unseen_canaries(doc)], profile=profile,
                           rig=Rig.of(doc.environment, str(args.results)).describe())
    history.add(args.results, args.site / "history", allow_running=True)
    runs = [r for r in history.load(args.site / "history") if r.key.runner_class == doc.environment["runner_class"]]
    outcome.change_points = regressions.newest(runs)
    path = _baseline_file(args.site, args.seed_baselines, doc)
    _compare(outcome, doc, path if path.exists() else (_previous_release(args.site, doc) or path), args.site,
             args.summary)
    build_site(args.site / "history", args.site / "report", results=args.results)
    _update_baseline(outcome, doc, path)
    write_front_page(args.site, outcome)
    args.outcome.write_text(json.dumps(asdict(outcome), indent=1) + "\n")
    print(f"night {outcome.run_id}: comparison {outcome.comparison or 'none'}; "
          f"baseline {'updated' if outcome.baseline_updated else 'kept'}; "
          f"{'FAILS: ' + '; '.join(outcome.failures()) if outcome.failures() else 'passes'}")
    return 0


def run_verdict(args: argparse.Namespace) -> int:
    try:
        outcome = NightOutcome(**json.loads(args.outcome.read_text()))
    except (OSError, ValueError, TypeError) as exc:
        raise InputError(f"not a night's outcome written by `kcliff nightly publish`: {exc}", str(args.outcome)) from None
    failures = outcome.failures()
    for reason in failures:
        print(f"::error title=kcliff nightly::{reason}")
    if not failures:
        print(f"night {outcome.run_id}: pass")
    return 1 if failures else 0
