"""Merging a campaign's shards, from a real recorded results file split as `--shard i/n` would."""

import copy
import json
from pathlib import Path

from conftest import run_kcliff

REAL = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "results-canaries-local-2c.json"


def shards(tmp_path: Path, count: int = 2) -> list[Path]:
    doc = json.loads(REAL.read_text())
    reference = doc["scenarios"][0]
    others = doc["scenarios"][1:]
    paths = []
    for i in range(count):
        shard = copy.deepcopy(doc)
        shard["run_id"] = f"{doc['run_id']}-s{i + 1}"
        shard["scenarios"] = [reference, *others[i::count]]
        shard["parameters"]["shard"] = [i + 1, count]  # as `kcliff run --shard i/n` records it
        paths.append(tmp_path / f"shard-{i + 1}.json")
        paths[-1].write_text(json.dumps(shard))
    return paths


def test_shards_merge_into_one_document(tmp_path):
    out = tmp_path / "merged.json"
    done = run_kcliff("results", "merge", *map(str, shards(tmp_path)), "--out", str(out))
    assert done.returncode == 0, done.stderr
    merged = json.loads(out.read_text())
    original = json.loads(REAL.read_text())
    assert sorted(e["id"] for e in merged["scenarios"]) == sorted(e["id"] for e in original["scenarios"])
    assert len(merged["shards"]) == 2 and merged["schema_version"] == 1
    assert all(e["shard_reference_mb_per_sec"] > 0 for e in merged["scenarios"])
    assert run_kcliff("export", str(out), "--out-dir", str(tmp_path / "bench")).returncode == 0


def test_shards_from_another_runner_class_or_overlapping_are_refused(tmp_path):
    first, second = shards(tmp_path)
    doc = json.loads(second.read_text())
    doc["environment"]["runner_class"] = "other-8c-32g"
    second.write_text(json.dumps(doc))
    out = tmp_path / "merged.json"
    done = run_kcliff("results", "merge", str(first), str(second), "--out", str(out))
    assert done.returncode == 2 and "only shards of one campaign merge" in done.stderr and not out.exists()
    doc = json.loads(first.read_text())
    doc["parameters"]["shard"] = [2, 2]  # shard 2 that measured shard 1's scenarios
    second.write_text(json.dumps(doc))
    done = run_kcliff("results", "merge", str(first), str(second), "--out", str(out))
    assert done.returncode == 2 and "shards must not overlap" in done.stderr and not out.exists()


def test_a_campaign_with_a_shard_missing_is_refused(tmp_path):
    first, _ = shards(tmp_path)
    out = tmp_path / "merged.json"
    done = run_kcliff("results", "merge", str(first), "--out", str(out))
    assert done.returncode == 2 and not out.exists()
    assert f"campaign of 2 shards: shard 2 is missing (given: {first})" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_two_files_of_one_shard_or_of_other_campaigns_are_refused(tmp_path):
    first, second, third = shards(tmp_path, 3)
    out = tmp_path / "merged.json"
    done = run_kcliff("results", "merge", str(first), str(first), str(third), "--out", str(out))
    assert done.returncode == 2 and not out.exists()
    assert f"{first}: shard 1/3 again: {first} is that shard too" in done.stderr
    doc = json.loads(third.read_text())
    doc["parameters"]["shard"] = [3, 4]
    third.write_text(json.dumps(doc))
    done = run_kcliff("results", "merge", str(first), str(second), str(third), "--out", str(out))
    assert done.returncode == 2 and "is a shard of 3: only shards of one campaign merge" in done.stderr


def test_a_results_file_that_records_no_shard_is_refused(tmp_path):
    first, second = shards(tmp_path)
    doc = json.loads(second.read_text())
    del doc["parameters"]["shard"]  # results written before shards were recorded, or a run without --shard
    second.write_text(json.dumps(doc))
    out = tmp_path / "merged.json"
    done = run_kcliff("results", "merge", str(first), str(second), "--out", str(out))
    assert done.returncode == 2 and not out.exists()
    assert f"{second}: does not record which shard it is" in done.stderr


def test_shards_of_two_rig_profiles_never_merge(tmp_path):
    # Real checks of one host (tests/data/results, see tests/results/test_rig.py), each made a shard of 2:
    # one measured at aws-m5.xlarge-gp3, one CPU-bound.
    data = Path(__file__).resolve().parents[1] / "data" / "results"
    paths = []
    for index, name in ((1, "profile-check-aws-m5.xlarge-gp3.json"), (2, "check-cpu-bound.json")):
        doc = json.loads((data / name).read_text())
        doc["parameters"]["shard"] = [index, 2]
        paths.append(tmp_path / f"shard-{index}.json")
        paths[-1].write_text(json.dumps(doc))
    out = tmp_path / "merged.json"
    done = run_kcliff("results", "merge", *map(str, paths), "--out", str(out))
    assert done.returncode == 2 and not out.exists(), done.stderr
    assert "measured at rig profile 'cpu-bound'" in done.stderr and "at 'aws-m5.xlarge-gp3'" in done.stderr
    assert "shards of two profiles never merge" in done.stderr
