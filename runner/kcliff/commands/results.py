"""`kcliff results merge SHARD... --out FILE`: one results document from a campaign's shards.

Shards are `kcliff run --shard i/n` on runners of one class, each measuring the reference beside its
own scenarios. The merged file keeps the first shard's reference as `reference`, and every other
scenario keeps the reference median of its own shard (`shard_reference_mb_per_sec`), so ratios stay
within the runner that measured them. Shards from different Kafka versions or runner classes, that
measured a scenario twice, or that do not cover shards 1..n of the campaign exactly once (each
results file records its `parameters.shard` [i, n]) are refused (exit 2) and nothing is written.
"""

from __future__ import annotations

import argparse
import copy
from pathlib import Path
from typing import Any

from .. import results
from ..errors import InputError
from ..scenario import REFERENCE_ID


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("results", help="work with results files")
    verbs = parser.add_subparsers(dest="verb", required=True)
    merge = verbs.add_parser("merge", help="merge a campaign's shard results into one file")
    merge.add_argument("shards", nargs="+", type=Path, metavar="SHARD")
    merge.add_argument("--out", type=Path, required=True)
    merge.set_defaults(func=run_merge)


def shard_of(path: Path, doc: dict[str, Any]) -> tuple[int, int]:
    """(i, n) as `kcliff run --shard i/n` recorded it; a file without it cannot be placed in a campaign."""
    shard = (doc.get("parameters") or {}).get("shard")
    if not (isinstance(shard, list) and len(shard) == 2 and all(isinstance(x, int) for x in shard)
            and 1 <= shard[0] <= shard[1]):
        raise InputError("does not record which shard it is (parameters.shard): only results of "
                         "`kcliff run --shard i/n` merge", str(path))
    return shard[0], shard[1]


def check_coverage(docs: list[tuple[Path, dict[str, Any]]]) -> None:
    """The shards must be 1..n of one campaign, each once: a missing shard would merge into a campaign
    that silently lacks its scenarios."""
    by_index: dict[int, Path] = {}
    first_path, (_, count) = docs[0][0], shard_of(*docs[0])
    for path, doc in docs:
        index, n = shard_of(path, doc)
        if n != count:
            raise InputError(f"shard {index}/{n}, but {first_path} is a shard of {count}: only shards of one "
                             "campaign merge", str(path))
        if index in by_index:
            raise InputError(f"shard {index}/{n} again: {by_index[index]} is that shard too", str(path))
        by_index[index] = path
    missing = [str(i) for i in range(1, count + 1) if i not in by_index]
    if missing:
        given = ", ".join(str(p) for p in by_index.values())
        which = f"shard {missing[0]} is" if len(missing) == 1 else f"shards {', '.join(missing)} are"
        raise InputError(f"campaign of {count} shards: {which} missing (given: {given})")


def merge(docs: list[tuple[Path, dict[str, Any]]]) -> dict[str, Any]:
    check_coverage(docs)
    first_path, first = docs[0]
    key = _key(first)
    merged = copy.deepcopy(first)
    merged["scenarios"], merged["shards"] = [], []
    seen: dict[str, Path] = {}
    for path, doc in docs:
        if _key(doc) != key:
            raise InputError(f"shard is Kafka {_key(doc)[0]} on runner class {_key(doc)[1]}, but {first_path} is "
                             f"Kafka {key[0]} on {key[1]}: only shards of one campaign merge", str(path))
        merged["shards"].append({"file": str(path), "shard": list(shard_of(path, doc)), "run_id": doc["run_id"],
                                 "status": doc.get("status"),
                                 "parameters": doc.get("parameters"), "environment": doc["environment"]})
        reference = results.scenario_entry(doc, REFERENCE_ID)
        ref_mb = results.median(reference, "mb_per_sec") if reference else None
        for entry in doc["scenarios"]:
            if entry["id"] == REFERENCE_ID and REFERENCE_ID in seen:
                continue
            if entry["id"] in seen:
                raise InputError(f"scenario '{entry['id']}' is also in {seen[entry['id']]}: shards must not overlap",
                                 str(path))
            seen[entry["id"]] = path
            merged["scenarios"].append({**entry, "shard_reference_mb_per_sec": ref_mb})
    statuses = {doc.get("status") for _, doc in docs}
    merged["status"] = "complete" if statuses == {"complete"} else "incomplete"
    return merged


def _key(doc: dict[str, Any]) -> tuple[str, str]:
    env = doc["environment"]
    return env.get("kafka_version"), env.get("runner_class")


def run_merge(args: argparse.Namespace) -> int:
    docs = [(path, results.load(path)) for path in args.shards]
    merged = merge(docs)
    results.save(merged, args.out)
    print(f"merged {len(docs)} shard(s), {len(merged['scenarios'])} scenarios -> {args.out}")
    return 0
