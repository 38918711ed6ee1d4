"""The committed baseline and what `kcliff run` prints against it, on REAL results files.

The inputs are results files measured on the 2-core development VM (benchmarks/data/); where a test
needs a slower run it scales one real run's figures and says so. No Kafka is started.

The committed baseline records no host (written before kcliff did), so against it every run is another
host's (results/baseline_host.py): that is what a fresh clone prints. Where a test is about a host
comparing with its own baseline, the baseline's sources and the run are stamped with one host id
(`as_measured_here`), standing for the VM that measured both.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff.judge import baseline_verdict
from kcliff.report import table
from kcliff.results import baseline
from kcliff.results.model import ResultsDoc

STORED = ROOT / "baselines" / "4.2.0" / "local-2c-24g.json"
NOTE = ROOT / "baselines" / "README.md"
ON = ROOT / "benchmarks" / "data" / "early-stop-100k-on.json"
OLD_CANARIES = ROOT / "benchmarks" / "data" / "results-canaries-local-2c.json"


def named_sources() -> list[Path]:
    """The results files the baselines note says the committed baseline was built from, in order."""
    found = re.findall(r"^kcliff baseline update (\S+\.json)", NOTE.read_text(encoding="utf-8"), re.MULTILINE)
    return [ROOT / f for f in found]


def real(path: Path = ON) -> ResultsDoc:
    return baseline.load_results(path)


def stored() -> baseline.Baseline:
    return baseline.load_baseline(STORED)


def rows(doc: ResultsDoc, base: baseline.Baseline) -> dict[str, str]:
    return dict(table.baseline_rows(doc, base))


VM = "dev-vm"  # stands for the development VM's host id, which the committed files predate


def as_measured_here(doc: ResultsDoc, base: baseline.Baseline) -> baseline.Baseline:
    """`doc` and a copy of `base` stamped as measured on one host (the VM measured both)."""
    doc.environment["host_id"] = VM
    mine = base.model_copy(deep=True)
    for source in mine.sources:
        source.host_id = VM
    return mine


def elsewhere(doc: ResultsDoc) -> ResultsDoc:
    """`doc` as a fresh clone on another host of the same class would record it."""
    doc.environment["host_id"] = "fresh-clone"
    return doc


def scaled(doc: ResultsDoc, factor: float, only: str | None = None) -> ResultsDoc:
    """The real runs' MB/s times `factor` (one scenario's, or every scenario's: a slower host)."""
    for entry in doc.scenarios:
        if only in (None, entry.id):
            for run in entry.runs:
                run.mb_per_sec = run.mb_per_sec * factor if run.mb_per_sec is not None else None
            entry.resummarise()
    return doc


# --- the committed baseline --------------------------------------------------------------------------


def test_the_committed_baseline_is_for_the_class_and_version_its_path_names():
    doc = stored()
    assert (doc.kafka_version, doc.runner_class) == (STORED.parent.name, STORED.stem) == ("4.2.0", "local-2c-24g")
    assert baseline.stored_for(ROOT / "baselines", "4.2.0", "local-2c-24g") == (STORED, doc)


def test_its_sources_are_the_runs_of_the_files_the_note_names():
    files = named_sources()
    assert len(files) == 2 and all(f.is_file() for f in files)
    docs = [baseline.load_results(f) for f in files]
    assert [s.run_id for s in stored().sources] == [d.run_id for d in docs]
    assert {d.environment["runner_class"] for d in docs} == {"local-2c-24g"}
    assert {d.environment["kafka_version"] for d in docs} == {"4.2.0"}


def test_every_figure_in_it_comes_from_those_runs():
    # Rebuilding it with `baseline update`'s own function from the named files gives the same runs:
    # no figure was typed in or edited by hand.
    rebuilt = baseline.new_baseline("4.2.0", "local-2c-24g")
    for path in named_sources():
        rebuilt, _ = baseline.update(rebuilt, baseline.load_results(path))
    doc = stored()
    assert rebuilt.scenarios == doc.scenarios and rebuilt.sources == doc.sources


def test_the_old_canaries_run_could_not_become_the_baseline(tmp_path):
    done = run_kcliff("baseline", "update", str(OLD_CANARIES), "--dir", str(tmp_path))
    assert done.returncode == 1 and "failed canary: flush-1" in done.stderr
    assert not any(tmp_path.iterdir())


# --- what kcliff run prints against a host's own baseline --------------------------------------------


def test_each_scenario_gets_one_line_and_canaries_are_left_to_the_canary_column():
    doc = real()
    got = rows(doc, as_measured_here(doc, stored()))
    assert list(got) == [s.id for s in doc.scenarios]
    assert got["reference"].startswith("ok (throughput ")
    assert all(got[c].startswith("canary") for c in ("batching-off", "flush-1", "inflight-1"))
    # pw-08 was stopped on its cliff after one run: too few to judge, which must be said, not passed
    assert got["pw-08"].startswith("inconclusive: too few runs")


def test_the_lines_say_what_kcliff_compare_decides():
    doc = real()
    base = as_measured_here(doc, stored())
    decided = {sv.id: sv.verdict for sv in baseline_verdict.compare(doc, base).scenarios}
    got = rows(doc, base)
    assert decided and all(got[sid].startswith("ok" if v == "pass" else v) for sid, v in decided.items())


def test_a_slower_run_is_a_regression_line():
    doc = real()
    for run in doc.scenarios[[s.id for s in doc.scenarios].index("pw-01")].runs:
        run.mb_per_sec *= 0.5  # the real runs, scaled: halved, yet well above the canaries' tier
    line = rows(doc, as_measured_here(doc, stored()))["pw-01"]
    assert line.startswith("regression: throughput down to 0.5"), line


def test_a_run_fallen_to_the_canaries_tier_is_a_cliff_line():
    doc = real()
    for run in doc.scenarios[[s.id for s in doc.scenarios].index("pw-03")].runs:
        run.mb_per_sec *= 0.3  # the real runs, scaled down to the flush canary's level
    assert rows(doc, as_measured_here(doc, stored()))["pw-03"].startswith("cliff: head throughput is at or below the slowest tier")


def test_a_scenario_the_baseline_lacks_or_whose_settings_changed_says_so():
    doc = real()
    base = as_measured_here(doc, stored())
    del base.scenarios["pw-01"]
    base.scenarios["pw-02"].settings_hash = "0ld0ld0ld0ld"
    got = rows(doc, base)
    assert got["pw-01"] == "not in the baseline yet"
    assert got["pw-02"].startswith("settings changed since the baseline (hash 0ld0ld0ld0ld ->")


def test_section_headline_and_the_one_line_notes():
    doc = real()
    text = table.baseline_section(doc, STORED, as_measured_here(doc, stored()))
    assert text.splitlines()[0].startswith(f"vs baseline {STORED} (2 past runs, this host's own")
    assert len(text.splitlines()) == 1 + len(doc.scenarios)
    missing = table.baseline_section(doc, Path("b/4.2.0/local-2c-24g.json"), None)
    assert missing == ("vs baseline: none stored for Kafka 4.2.0 on runner class 'local-2c-24g' "
                       "(b/4.2.0/local-2c-24g.json)")
    other = stored().model_copy(update={"runner_class": "big-16c"})
    assert "\n" not in table.baseline_section(doc, STORED, other)
    assert "not used: results come from runner class 'local-2c-24g'" in table.baseline_section(doc, STORED, other)


# --- what a fresh clone prints against it: another host's baseline ----------------------------------


def test_a_slower_host_reads_no_false_verdict_against_another_hosts_baseline():
    # The first run on a fresh machine of the class measured its reference at 0.68x the baseline's. The
    # real run with every MB/s times 0.68, as that host recorded it: one line says absolute figures are
    # not compared and how to make a baseline of its own; nothing is called a regression or a cliff.
    doc = scaled(elsewhere(real()), 0.68)
    text = table.baseline_section(doc, STORED, stored(), results=Path("results/r.json"))
    first, head = text.splitlines()[:2]
    assert first.startswith("vs baseline: this host has no baseline of its own yet: absolute figures (MB/s, ms) "
                            "are not compared")
    assert "(`kcliff baseline update results/r.json` on this host makes it one)" in first
    assert head.startswith(f"vs baseline {STORED} (2 past runs, measured on another host")
    assert "regression" not in text and "cliff:" not in text
    got = rows(doc, stored())
    assert got["reference"] == "not judged: the yardstick of the ratios below"
    assert got["pw-01"].startswith("ratio to the reference: ok (throughput ")
    # the same figures against the same runs stamped as this host's own: the false verdict the rule prevents
    doc = scaled(real(), 0.68)
    assert rows(doc, as_measured_here(doc, stored()))["reference"].startswith("regression: throughput down to 0.6")


def test_a_results_file_without_a_host_is_not_taken_for_the_baselines_host():
    # written before kcliff recorded hosts (every committed results file): it cannot be shown to be the
    # baseline's host, so only ratios are compared
    assert rows(real(), stored())["reference"].startswith("not judged")


def test_on_another_host_a_scenario_slower_beside_its_reference_is_still_found():
    doc = scaled(elsewhere(real()), 0.5, only="pw-01")  # halved, the reference as measured
    line = rows(doc, stored())["pw-01"]
    assert line.startswith("ratio to the reference: regression: throughput down to 0.5"), line
    # pw-13 (1.2-1.4x its reference in the baseline) at 0.3x: below the flush canary's 0.6x of this run's reference
    doc = scaled(elsewhere(real()), 0.3, only="pw-13")
    assert rows(doc, stored())["pw-13"].startswith("ratio to the reference: cliff: head throughput is at or below")


# --- bad input to kcliff run: refused before any cluster starts --------------------------------------

# An unreachable external cluster: if the baseline checks were skipped, the run fails fast elsewhere.
NO_CLUSTER = ("run", "--backend", "external", "--bootstrap-servers", "127.0.0.1:9", "--prime", "0")


def test_run_refuses_a_baselines_dir_that_does_not_exist(tmp_path):
    done = run_kcliff(*NO_CLUSTER, "--baselines", str(tmp_path / "nowhere"), timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{tmp_path / 'nowhere'}: --baselines: not a directory" in done.stderr


@pytest.mark.parametrize("content, words", [
    ('{"schema": "kcliff.baseline", "schema_v', "not valid JSON (truncated?)"),
    ('{"schema": "kcliff.baseline", "schema_version": 99}', "newer than this kcliff reads"),
])
def test_run_refuses_an_unreadable_baseline_file_naming_it(tmp_path, content, words):
    bad = tmp_path / "4.2.0" / "ci-pool.json"
    bad.parent.mkdir()
    bad.write_text(content)
    done = run_kcliff(*NO_CLUSTER, "--baselines", str(tmp_path), "--kafka-version", "4.2.0", timeout=60,
                      env={"KCLIFF_RUNNER_CLASS": "ci-pool"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert str(bad) in done.stderr and words in done.stderr and "cluster" not in done.stderr


# --- kcliff compare on the committed baseline ----------------------------------------------------------


def stamped(tmp_path: Path, results: Path = OLD_CANARIES, host: str = VM) -> tuple[Path, Path]:
    """A copy of `results` recorded on `host`, and of the baselines directory with the committed baseline's
    sources stamped as the VM's: (results file, baselines directory)."""
    doc = baseline.load_results(results)
    base = as_measured_here(doc, stored())
    doc.environment["host_id"] = host
    out = tmp_path / "results.json"
    out.write_text(json.dumps(doc.to_json()))
    baseline.save(base, baseline.baseline_path(tmp_path / "baselines", "4.2.0", "local-2c-24g"))
    return out, tmp_path / "baselines"


def test_compare_fails_a_real_slower_run_and_appends_markdown(tmp_path):
    # The old canaries run (30,000 records, no round trip) has a reference far below the baseline's,
    # measured on the same host.
    summary = tmp_path / "summary.md"
    summary.write_text("# nightly\n")
    results, baselines_dir = stamped(tmp_path)
    done = run_kcliff("compare", str(results), "--baseline", str(baselines_dir),
                      "--markdown", str(summary), "--json", str(tmp_path / "v.json"))
    assert done.returncode == 1, done.stderr
    assert summary.read_text().startswith("# nightly\n## kcliff compare: regression")
    assert json.loads((tmp_path / "v.json").read_text())["scenarios"][0]["id"] == "reference"
    assert json.loads((tmp_path / "v.json").read_text())["settings"]["baseline_basis"] == "own host"


def test_compare_against_another_hosts_baseline_compares_ratios_and_is_no_gate(tmp_path):
    # pw-01 halved beside its reference, measured on a host the baseline has no runs of: the ratio's
    # regression is reported, and exits 3 (inconclusive), never 1; the reference is not judged
    doc = scaled(elsewhere(real()), 0.5, only="pw-01")
    results = tmp_path / "results.json"
    results.write_text(json.dumps(doc.to_json()))
    done = run_kcliff("compare", str(results), "--baseline", str(ROOT / "baselines"), "--json", str(tmp_path / "v.json"))
    assert done.returncode == 3, done.stderr
    assert "**This host has no baseline of its own yet: absolute figures (MB/s, ms) are not compared" in done.stdout
    assert f"`kcliff baseline update {results}` on this host makes it one" in done.stdout
    verdict = json.loads((tmp_path / "v.json").read_text())
    assert verdict["verdict"] == "regression" and verdict["exit_code"] == 3
    assert verdict["settings"]["baseline_basis"] == "other host"
    assert "reference" not in {s["id"] for s in verdict["scenarios"]}
    assert "no gate" in done.stderr


def test_compare_judges_an_upgrade_only_when_asked(tmp_path):
    # The same real run, its environment relabelled as measured on Kafka 4.3.1 (as a run of the suite
    # on the newer release would be): judged against the 4.2.0 baseline only with --upgrade.
    copied, baselines_dir = stamped(tmp_path)
    file = baseline.baseline_path(baselines_dir, "4.2.0", "local-2c-24g")
    upgraded = json.loads(copied.read_text())
    upgraded["environment"]["kafka_version"] = "4.3.1"
    results = tmp_path / "on-4.3.1.json"
    results.write_text(json.dumps(upgraded))
    refused = run_kcliff("compare", str(results), "--baseline", str(file))
    assert refused.returncode == 2 and "compare --upgrade" in refused.stderr, refused.stderr
    as_dir = run_kcliff("compare", str(results), "--baseline", str(baselines_dir), "--upgrade")
    assert as_dir.returncode == 2 and "give its file" in as_dir.stderr, as_dir.stderr
    done = run_kcliff("compare", str(results), "--baseline", str(file), "--upgrade", "--json", str(tmp_path / "v.json"))
    assert done.returncode == 1, done.stderr  # the same figures as the same-version compare above: a regression
    assert "Kafka upgrade: 4.2.0 -> 4.3.1" in done.stdout
    assert json.loads((tmp_path / "v.json").read_text())["kafka_versions"] == {"baseline": "4.2.0", "results": "4.3.1"}
