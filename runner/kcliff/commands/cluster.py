"""`kcliff cluster up|down|status`: a local 3-broker cluster that outlives the command, for
exploring or for several `kcliff run` calls in a row."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kcliff.backends.admin import Admin
from kcliff.backends.local import LocalCluster, shared_dir, start_local_cluster
from kcliff.backends.local_nodes import NODES
from kcliff.backends.open import reap_leftovers
from kcliff.commands import options
from kcliff.errors import InputError
from kcliff.host import leftovers, procs


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("cluster", help="start, stop or inspect a local 3-broker KRaft cluster")
    verbs = parser.add_subparsers(dest="verb", required=True)
    up = verbs.add_parser("up", help="start the cluster and leave it running")
    options.add_cluster_options(up)
    up.set_defaults(func=run_up)
    broker = verbs.add_parser("broker", help="crash, stop or start one broker of the cluster `cluster up` left "
                                             "running (commands for --broker-control, to try runs through a fault "
                                             "on an external cluster)")
    broker.add_argument("action", choices=["kill", "stop", "start"])
    broker.add_argument("node_id", type=int, choices=NODES, metavar="NODE_ID", help=f"one of {NODES}")
    broker.add_argument("--workdir", type=Path, default=options.DEFAULT_WORKDIR)
    broker.add_argument("--grace", type=options.seconds, default=30.0, help="stop: seconds before it is killed")
    broker.set_defaults(func=run_broker)
    for name, func, text in (("down", run_down, "stop the cluster and remove its data"),
                             ("status", run_status, "show whether the cluster runs and where")):
        verb = verbs.add_parser(name, help=text)
        verb.add_argument("--workdir", type=Path, default=options.DEFAULT_WORKDIR)
        verb.set_defaults(func=func)


def run_up(args: argparse.Namespace) -> int:
    existing = LocalCluster.from_state(shared_dir(args.workdir))
    if existing and not existing.dead_nodes():
        print(f"already running: bootstrap {existing.admin_bootstrap}")
        return 0
    if existing:
        existing.down()
    for said in reap_leftovers():
        print(f"warning: {said}", file=sys.stderr)
    procs.install_handlers()
    cluster = start_local_cluster(shared_dir(args.workdir), args.kafka_version, options.caps(args),
                                  args.kafka_home, owned=False)
    print(f"cluster up in {cluster.bringup_s:.1f}s: bootstrap {cluster.admin_bootstrap} (Kafka {args.kafka_version})")
    print(f"logs under {cluster.workdir}; stop with: kcliff cluster down")
    return 0


def run_down(args: argparse.Namespace) -> int:
    cluster = LocalCluster.from_state(shared_dir(args.workdir))
    strays = leftovers.of_cluster(shared_dir(args.workdir))
    if cluster is None and not strays:
        print("no cluster running")
        return 0
    if cluster is not None:
        cluster.down()
    procs.stop_pids(leftovers.of_cluster(shared_dir(args.workdir)))  # e.g. a `cluster up` killed mid-start
    print("cluster stopped")
    return 0


def run_status(args: argparse.Namespace) -> int:
    cluster = LocalCluster.from_state(shared_dir(args.workdir))
    if cluster is None:
        print("no cluster running")
        return 1
    dead = cluster.dead_nodes()
    brokers = Admin(cluster.admin_bootstrap).broker_ids(timeout=5)
    print(f"bootstrap {cluster.admin_bootstrap}; brokers registered: {brokers}; "
          f"dead nodes: {dead or 'none'}; started in {cluster.bringup_s}s; libs {cluster.libs}")
    return 0 if not dead and len(brokers) == 3 else 1


def run_broker(args: argparse.Namespace) -> int:
    """One broker crashed (SIGKILL), stopped (a controlled shutdown) or started again; start does nothing to a
    running broker, as a --broker-control start command must."""
    cluster = LocalCluster.from_state(shared_dir(args.workdir))
    if cluster is None:
        raise InputError(f"no cluster running in {shared_dir(args.workdir)}: start one with `kcliff cluster up`")
    {"kill": lambda: cluster.kill_broker(args.node_id),
     "stop": lambda: cluster.stop_broker(args.node_id, args.grace),
     "start": lambda: cluster.start_broker(args.node_id)}[args.action]()
    cluster.save_state()
    return 0
