"""`kcliff results merge SHARD... --out FILE`: one results document from a campaign's shards.

Shards are `kcliff run --shard i/n` on runners of one class, each measuring the reference beside its
own scenarios. The merged file keeps the first shard's reference as `reference`, and every other
scenario keeps the reference median of its own shard (`shard_reference_mb_per_sec`), so ratios stay
within the runner that measured them. Shards from different Kafka versions, rig profiles (a campaign
at `--profile`: its runner class carries the profile) or runner classes, that
measured a scenario twice, or that do not cover shards 1..n of the campaign exactly once (each
results file records its `parameters.shard` [i, n]) are refused (exit 2) and nothing is written.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kcliff.errors import InputError
from kcliff.results import model
from kcliff.results.metrics import THROUGHPUT
from kcliff.results.model import REFERENCE_ID, ResultsDoc, RunStatus
from kcliff.results.rig import profile_of


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("results", help="work with results files")
    verbs = parser.add_subparsers(dest="verb", required=True)
    merge = verbs.add_parser("merge", help="merge a campaign's shard results into one file")
    merge.add_argument("shards", nargs="+", type=Path, metavar="SHARD")
    merge.add_argument("--out", type=Path, required=True)
    merge.set_defaults(func=run_merge)


def shard_of(path: Path, doc: ResultsDoc) -> tuple[int, int]:
    """(i, n) as `kcliff run --shard i/n` recorded it; a file without it cannot be placed in a campaign."""
    shard = doc.parameters.get("shard")
    if not (isinstance(shard, list) and len(shard) == 2 and all(isinstance(x, int) for x in shard)
            and 1 <= shard[0] <= shard[1]):
        raise InputError("does not record which shard it is (parameters.shard): only results of "
                         "`kcliff run --shard i/n` merge", str(path))
    return shard[0], shard[1]


def check_coverage(docs: list[tuple[Path, ResultsDoc]]) -> None:
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


def merge(docs: list[tuple[Path, ResultsDoc]]) -> ResultsDoc:
    check_coverage(docs)
    first_path, first = docs[0]
    key = _key(first)
    scenarios: list[model.Entry] = []
    shards: list[dict[str, object]] = []
    seen: dict[str, Path] = {}
    for path, doc in docs:
        if _key(doc) != key and _profile(doc) != _profile(first):
            raise InputError(f"shard was measured at rig profile '{_profile(doc)}', but {first_path} at "
                             f"'{_profile(first)}': shards of two profiles never merge (each binds on another "
                             "resource); measure every shard with the same --profile", str(path))
        if _key(doc) != key:
            raise InputError(f"shard is Kafka {_key(doc)[0]} on runner class {_key(doc)[1]}, but {first_path} is "
                             f"Kafka {key[0]} on {key[1]}: only shards of one campaign merge", str(path))
        shards.append({"file": str(path), "shard": list(shard_of(path, doc)), "run_id": doc.run_id,
                       "status": str(doc.status), "parameters": doc.parameters, "environment": doc.environment})
        reference = doc.reference()
        ref_mb = reference.median(THROUGHPUT) if reference else None
        for entry in doc.scenarios:
            if entry.id == REFERENCE_ID and REFERENCE_ID in seen:
                continue
            if entry.id in seen:
                raise InputError(f"scenario '{entry.id}' is also in {seen[entry.id]}: shards must not overlap",
                                 str(path))
            seen[entry.id] = path
            scenarios.append(entry.model_copy(update={"shard_reference_mb_per_sec": ref_mb}, deep=True))
    complete = all(doc.status is RunStatus.COMPLETE for _, doc in docs)
    merged = first.model_copy(deep=True, update={"scenarios": scenarios, "shards": shards,
                                                 "status": RunStatus.COMPLETE if complete else RunStatus.INCOMPLETE})
    return ResultsDoc.model_validate(merged.to_json())


def _profile(doc: ResultsDoc) -> str:
    return profile_of(str(doc.environment.get("runner_class") or ""))


def _key(doc: ResultsDoc) -> tuple[str | None, str | None]:
    env = doc.environment
    return env.get("kafka_version"), env.get("runner_class")


def run_merge(args: argparse.Namespace) -> int:
    docs = [(path, model.load(path)) for path in args.shards]
    merged = merge(docs)
    model.save(merged, args.out)
    print(f"merged {len(docs)} shard(s), {len(merged.scenarios)} scenarios -> {args.out}")
    return 0
