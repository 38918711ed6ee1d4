"""Capped links and disks on the compose backend (issue #42): the tc calls that cap a container's link
each way (the fabric's one tbf rule), the host's end of its veth found from `ip -json link`, its counters
read from /proc/<pid>/net/dev, the disk's write cap reaching every broker and no other service; a
process's link capped and counted for real (root, no Docker); and (markers `docker`, `kafka`) a compose
run held by a 40 Mbit/s link says the link bound it, near its cap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from conftest import run_kcliff
from kcliff.backends import compose, compose_caps, compose_file, docker_cli, storage
from kcliff.commands import options
from kcliff.errors import ClusterError, InputError
from kcliff.host import container_link, netns
from kcliff.host.container_link import ContainerLink

from tests.backends.test_capped_resources import CLIENT, SERVER
from tests.backends.test_compose import _config

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces need root")

# Recorded on this machine from a running compose broker (kcliff/kafka-standin, --link-mbit 40, kafka-1):
# `nsenter --target PID --net ip -json link show dev eth0`, this host's `ip -json link show` (its compose
# network's bridge and the three brokers' veths, other links left out), and the container's /proc/PID/net/dev.
INSIDE = json.loads('[{"ifindex":536,"link_index":537,"ifname":"eth0","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"'
                    'mtu":1500,"qdisc":"tbf","operstate":"UP","linkmode":"DEFAULT","group":"default","txqlen":1000,"link_'
                    'type":"ether","address":"02:42:ac:12:00:03","broadcast":"ff:ff:ff:ff:ff:ff","link_netnsid":0}]')
HOST = json.loads('[{"ifindex":533,"ifname":"br-59936a6ca7cc","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":1'
                  '500,"qdisc":"noqueue","operstate":"UP","linkmode":"DEFAULT","group":"default","link_type":"ether","a'
                  'ddress":"02:42:0b:81:67:10","broadcast":"ff:ff:ff:ff:ff:ff"},{"ifindex":535,"link_index":534,"ifname'
                  '":"vethb152c2b","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":1500,"qdisc":"tbf","master":'
                  '"br-59936a6ca7cc","operstate":"UP","linkmode":"DEFAULT","group":"default","txqlen":1000,"link_type":'
                  '"ether","address":"ba:65:cd:ba:d4:3f","broadcast":"ff:ff:ff:ff:ff:ff","link_netnsid":0},{"ifindex":5'
                  '37,"link_index":536,"ifname":"vetha46f118","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":1'
                  '500,"qdisc":"tbf","master":"br-59936a6ca7cc","operstate":"UP","linkmode":"DEFAULT","group":"default"'
                  ',"txqlen":1000,"link_type":"ether","address":"ca:9c:db:31:5c:53","broadcast":"ff:ff:ff:ff:ff:ff","li'
                  'nk_netnsid":1},{"ifindex":539,"link_index":538,"ifname":"veth9719177","flags":["BROADCAST","MULTICAS'
                  'T","UP","LOWER_UP"],"mtu":1500,"qdisc":"tbf","master":"br-59936a6ca7cc","operstate":"UP","linkmode":'
                  '"DEFAULT","group":"default","txqlen":1000,"link_type":"ether","address":"5a:0f:39:3b:de:88","broadca'
                  'st":"ff:ff:ff:ff:ff:ff","link_netnsid":2}]')
NET_DEV = """\
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    2576      48    0    0    0     0          0         0     2576      48    0    0    0     0       0          0
  eth0:   26807     218    0    0    0     0          0         0    22441     176    0    0    0     0       0          0
"""


def test_a_container_link_is_capped_each_way_by_the_fabrics_own_tbf_rule(monkeypatch):
    link = ContainerLink(4242, "veth9b0f3a1")
    cap = netns.LinkCap(40)
    tbf = ["qdisc", "replace", "dev", "eth0", "root", "tbf", "rate", "40mbit", "burst", "1048576", "latency", "50ms"]
    out, into = link.cap_argvs(cap)
    assert out == ["nsenter", "--target", "4242", "--net", "tc", *tbf]  # what it sends: its own end, inside
    assert into == ["tc", *tbf[:3], "veth9b0f3a1", *tbf[4:]]           # what it takes in: the host's end
    ran: list[list[str]] = []
    monkeypatch.setattr(netns, "run", lambda argv: ran.append(argv) or "")
    netns.Fabric("kcliff-1-abcdef", 7, 1).cap(1, cap)
    assert [argv[3:] for argv in ran] == [into[1:4] + ["b1"] + into[5:], out[5:]]  # the same tail, one rule


def test_the_hosts_end_is_the_link_whose_index_and_peer_index_match():
    assert container_link.peer_name(INSIDE, HOST) == "vetha46f118"
    with pytest.raises(ClusterError, match="Docker engine's namespace"):
        container_link.peer_name(INSIDE, [link for link in HOST if link["ifname"] != "vetha46f118"])


def test_a_containers_link_counters_are_its_eth0s_received_and_sent_bytes():
    assert container_link.net_dev_counters(NET_DEV, "eth0") == (26807, 22441)
    with pytest.raises(ClusterError, match="no eth1"):
        container_link.net_dev_counters(NET_DEV, "eth1")


def test_the_brokers_pids_come_from_one_inspect_of_their_containers():
    inspected = "kafka-1 31337\nkafka-2 31410\nkafka-3 0\n"  # a container that stopped has pid 0
    assert compose_caps.service_pids(inspected) == {"kafka-1": 31337, "kafka-2": 31410}


def test_the_disk_cap_is_the_shims_write_pacing_and_loads_the_shim_alone():
    paced = compose_file.ComposeCaps(disk_mb_s=3.0)
    assert paced.shim
    variables = compose_caps.shim_variables(paced)
    assert variables[storage.WRITE_RATE_VAR] == "3000000" and variables["KCLIFF_FSYNC_DELAY_MS"] == "0"
    assert variables["KCLIFF_BROKER_PRELOAD"] == compose_file.SHIM_IN_CONTAINER
    assert storage.WRITE_RATE_VAR not in compose_caps.shim_variables(compose_file.ComposeCaps(fsync_delay_ms=20))
    assert compose_caps.shim_variables(compose_file.ComposeCaps()) == {}


def test_the_write_cap_reaches_every_broker_and_no_other_service():
    try:
        base = docker_cli.compose_base_command()
    except InputError as exc:
        pytest.skip(f"SKIPPED, docker compose unavailable: {exc}")
    config = _config(base, {storage.WRITE_RATE_VAR: "3000000"})
    for name in compose_file.BROKERS:
        assert config["services"][name]["environment"][storage.WRITE_RATE_VAR] == "3000000"
        assert _config(base, {})["services"][name]["environment"][storage.WRITE_RATE_VAR] == "0"  # the shim: none
    assert storage.WRITE_RATE_VAR not in config["services"]["producer"].get("environment", {})


def test_link_and_disk_caps_are_for_the_backends_kcliff_starts(monkeypatch):
    import argparse
    parser = argparse.ArgumentParser()
    options.add_cluster_options(parser)
    parser.add_argument("--backend")
    parser.add_argument("--bootstrap-servers")
    for backend in ("local", "compose"):
        config = options.cluster_config(parser.parse_args(["--backend", backend, "--link-mbit", "40",
                                                           "--disk-mb-s", "3"]))
        assert (config.caps.link_mbit, config.caps.disk_mb_s) == (40, 3)
    with pytest.raises(InputError, match="not external"):
        options.cluster_config(parser.parse_args(["--bootstrap-servers", "h:9092", "--link-mbit", "40"]))
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(ClusterError, match="needs root"):
        compose_caps.require_root(compose_file.ComposeCaps(link_mbit=40))
    compose_caps.require_root(compose_file.ComposeCaps())  # uncapped: anyone


@needs_root
def test_a_processs_link_is_capped_each_way_and_counted_and_goes_with_its_namespace():
    """A container's link without Docker: a namespace joined to this host by a veth pair, a process in it,
    the link found from that process alone, capped at 40 Mbit/s (5 MB/s) and driven each way. Named as a
    fabric is, so that netns.reap removes what a killed test left."""
    fabric = netns.new_fabric(1)
    ns, host, inside, outside = fabric.netns(1), fabric.host_link, fabric.address(1), f"{netns.SUBNET}.{fabric.subnet}.1"
    sleeper = None
    try:
        netns.run(["ip", "netns", "add", ns])
        netns.run(["ip", "link", "add", host, "type", "veth", "peer", "name", "eth0", "netns", ns])
        netns.run(["ip", "addr", "add", f"{outside}/24", "dev", host])
        netns.run(["ip", "link", "set", host, "up"])
        netns.run(["ip", "-n", ns, "addr", "add", f"{inside}/24", "dev", "eth0"])
        netns.run(["ip", "-n", ns, "link", "set", "eth0", "up"])
        sleeper = subprocess.Popen(fabric.exec_prefix(1) + ["sleep", "60"])
        time.sleep(0.3)
        link = container_link.find(sleeper.pid)
        assert link.peer == host
        link.cap(netns.LinkCap(40))
        for server_ns, client_ns, address, counted in ((fabric.exec_prefix(1), [], inside, 0),
                                                       ([], fabric.exec_prefix(1), outside, 1)):
            before = link.counters()[counted]
            server = subprocess.Popen(server_ns + [sys.executable, "-c", SERVER, address])
            time.sleep(0.5)
            done = subprocess.run(client_ns + [sys.executable, "-c", CLIENT, address, "4"], capture_output=True,
                                  text=True, timeout=30)
            server.wait(timeout=10)
            assert done.returncode == 0, done.stderr
            print(f"to {address} through a 40 Mbit/s link: {float(done.stdout):.2f} MB/s")
            assert 4.0 < float(done.stdout) < 5.6, (address, done.stdout)  # into the process, then out of it
            assert link.counters()[counted] - before > 12e6
    finally:
        if sleeper is not None:
            sleeper.kill()
            sleeper.wait()
        fabric.delete()
    assert host not in subprocess.run(["ip", "link"], capture_output=True, text=True).stdout


# 1.25 MB/s each way per broker. Not 40 Mbit/s as on the local backend: the compose rig ran out of CPU
# first here (its containers and one-off producer container cost more of the 2 shared cores), its busiest
# link at 3.43 of 5.0 MB/s at 40 Mbit/s and at 2.07 of 2.5 MB/s at 20, CPU 99-100% busy (docs/profiles.md).
LINK_MBIT = 10
RECORDS, WARMUP = "8000", "1000"
# Measured here: see docs/profiles.md. The bar: within 15% of the cap.
WITHIN = 0.15


def _ours() -> tuple[set[str], set[str]]:
    """Compose containers and veths on this host now (a run's own must be gone after it)."""
    containers = subprocess.run(["docker", "ps", "--all", "--quiet", "--filter", "label=com.docker.compose.project"],
                                capture_output=True, text=True).stdout.split()
    veths = subprocess.run(["ip", "-o", "link", "show", "type", "veth"], capture_output=True, text=True).stdout
    return set(containers), {line.split(":")[1].strip().split("@")[0] for line in veths.splitlines()}


@pytest.mark.docker
@pytest.mark.kafka
@needs_root
def test_a_link_capped_compose_run_is_bound_by_its_link_near_the_cap_and_leaves_nothing(docker_engine, tmp_path):
    before = _ours()
    out = tmp_path / "r.json"
    began = time.monotonic()
    done = run_kcliff("run", "--backend", "compose", "--only", "reference", "--records", RECORDS, "--warmup-records",
                      WARMUP, "--repeats", "1", "--prime", "0", "--link-mbit", str(LINK_MBIT), "--no-baselines",
                      "--workdir", str(tmp_path / "w"), "--out", str(out), timeout=600)
    assert out.exists(), done.stderr[-3000:]
    doc = json.loads(out.read_text())
    runs = [r for r in doc["scenarios"][0]["runs"] if r["complete"]]
    assert runs, done.stderr[-3000:]
    bound = runs[0]["bound"]
    print(f"compose, --link-mbit {LINK_MBIT}: {bound} in {time.monotonic() - began:.0f} s")
    assert bound["resource"] == "link" and bound["link_cap_mb_s"] == LINK_MBIT / 8, bound
    assert abs(bound["link_mb_s"] / (LINK_MBIT / 8) - 1) <= WITHIN, bound
    assert doc["environment"]["caps"]["link_mbit"] == LINK_MBIT
    assert "reference: bound by link" in done.stdout
    # the brokers' containers went, and the qdiscs on their veths with them
    after = _ours()
    assert not after[0] - before[0] and not after[1] - before[1], (after, before)
    assert " tbf " not in subprocess.run(["tc", "qdisc", "show"], capture_output=True, text=True).stdout


def test_a_compose_cluster_with_capped_links_or_disk_holds_its_canaries_to_their_byte_bound_bounds(tmp_path):
    for caps, capped in ((compose_file.ComposeCaps(link_mbit=10), True), (compose_file.ComposeCaps(disk_mb_s=1), True),
                         (compose_file.ComposeCaps(), False)):
        cluster = compose.ComposeCluster(tmp_path, "4.2.0", docker_cli.STANDIN_IMAGE, "never", caps,
                                         project="kcliff-caps", ports=[1, 2, 3])
        cluster.capped = compose_caps.CappedBrokers(caps)  # as its first start leaves it
        assert cluster.bytes_capped() is capped, caps
