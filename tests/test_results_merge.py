"""Merging a campaign's shards, from a real recorded results file split as `--shard i/n` would."""

import copy
import json
from pathlib import Path

from conftest import run_kcliff

REAL = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "results-canaries-local-2c.json"


def shards(tmp_path: Path, count: int = 2) -> list[Path]:
    doc = json.loads(REAL.read_text())
    reference = doc["scenarios"][0]
    others = doc["scenarios"][1:]
    paths = []
    for i in range(count):
        shard = copy.deepcopy(doc)
        shard["run_id"] = f"{doc['run_id']}-s{i + 1}"
        shard["scenarios"] = [reference, *others[i::count]]
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
    done = run_kcliff("results", "merge", str(first), str(first), "--out", str(out))
    assert done.returncode == 2 and "shards must not overlap" in done.stderr and not out.exists()
