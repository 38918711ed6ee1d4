"""`kcliff check` of a consumer service that commits as it says (#44), end to end on the shared cluster: the
ledger writer of tests/data/real-repos/consumer-services commits synchronously after each poll, works 0.2 ms
on each record and runs three members (its kcliff.yaml); a head that sets max.poll.records 500 -> 1 commits
after every record. The check fails it on consumption, a cliff measured and annotated on that line, with the
commit canary in its self-test."""

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff

CORPUS = ROOT / "tests" / "data" / "real-repos" / "consumer-services"
LEDGER = Path("consumers") / "ledger-consumer.properties"
# Consumption alone decides it (--no-rate); 4 rounds at most, 20,000 records a producer run. The head's reads are
# cut at their cap twice running, so the check stops after round 2. In three runs of this test its consumption
# read 0.10-0.15x of the base's (about 1,000 records/s against 10,000: a 75,000-record read would need 75 s, its
# cap is 13 s) and the commit canary 0.007x of its 0.5 bound, in 86-126 s; the test holds the head under 0.3x.
COMMITS = ["--records", "20000", "--repeats", "1", "--prime", "5", "--rounds", "4", "--run-seconds", "3", "--no-rate",
           "--format", "github"]


def line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if line.startswith(text))


@pytest.mark.kafka
def test_a_consumer_head_committing_each_record_fails_on_consumption_on_its_line(shared_cluster, tmp_path):
    base, head = tmp_path / "base", tmp_path / "head"
    for side in (base, head):
        shutil.copytree(CORPUS, side)
        # the shared cluster's release and broker settings: the consumer alone is the change
        shutil.rmtree(side / "brokers")
        (side / "kafka-version").unlink()
    ledger = head / LEDGER
    ledger.write_text(ledger.read_text().replace("max.poll.records=500", "max.poll.records=1"))
    out = tmp_path / "verdict.json"
    done = run_kcliff("check", "--base", str(base), "--head", str(head), *COMMITS, "--json", str(out),
                      "--workdir", str(shared_cluster), timeout=900)
    result = json.loads(out.read_text())
    assert (done.returncode, result["verdict"]) == (1, "cliff"), (result["reasons"], done.stderr[-3000:])
    at = f"file={ledger},line={line_of(ledger, 'max.poll.records')}"
    measured = [a for a in done.stdout.splitlines() if a.startswith(f"::error {at},title=kcliff%3A measured cliff::")]
    assert len(measured) == 1 and "measured with this change: consumed 0." in measured[0], done.stdout
    assert f"::error {at},title=kcliff%3A commit-tiny-polls::" in done.stdout
    scenario = result["scenarios"][0]
    assert scenario["read_cliff"] < 0.3, scenario
    assert {c["id"]: c["shows_cliff"] for c in result["canaries"]}.get("commit-each-record") is True, result["canaries"]
