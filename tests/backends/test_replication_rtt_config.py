"""The replication round trip (cross-zone) without a cluster: the delays toxiproxy is given, the
brokers' replication listener and its advertised proxy address, and the option and profile values
refused with what would be valid."""

import argparse

import pytest
from conftest import run_kcliff
from kcliff.backends import replication_rtt
from kcliff.backends.latency import LatencyProxy, one_way_ms
from kcliff.backends.local import Caps, LocalCluster, Node, server_properties
from kcliff.commands import options
from kcliff.host.netns import Fabric


def test_the_two_one_way_delays_add_up_to_the_round_trip_in_whole_ms():
    assert one_way_ms(20) == (10, 10)
    assert one_way_ms(1) == (1, 0) and one_way_ms(5) == (3, 2)  # rounding each half alone gave 0 and 4
    assert one_way_ms(0) == (0, 0)
    assert all(sum(one_way_ms(ms)) == ms for ms in range(0, 1001))


def properties(node) -> dict[str, str]:
    return dict(line.split("=", 1) for line in server_properties(node, "1@h:1", {}).splitlines())


def test_without_a_round_trip_brokers_replicate_on_their_plaintext_listener(tmp_path):
    lines = properties(Node(1, 19092, 19093, tmp_path))
    assert lines["inter.broker.listener.name"] == "PLAINTEXT"
    assert "REPLICATION" not in lines["listeners"] + lines["advertised.listeners"]


def test_followers_are_told_the_proxy_in_front_of_each_brokers_replication_listener(tmp_path):
    nodes = [Node(i, 19000 + i, 19100 + i, tmp_path / str(i)) for i in (1, 2, 3)]
    routes = replication_rtt.wire(nodes, [30001, 30002, 30003, 30004, 30005, 30006], "127.0.0.1")
    assert routes == {30002: "127.0.0.1:30001", 30004: "127.0.0.1:30003", 30006: "127.0.0.1:30005"}
    lines = properties(nodes[1])
    assert lines["inter.broker.listener.name"] == "REPLICATION"
    assert lines["listeners"] == ("PLAINTEXT://127.0.0.1:19002,CONTROLLER://127.0.0.1:19102,"
                                  "REPLICATION://127.0.0.1:30003")
    # clients and admin calls keep the direct PLAINTEXT address; only replication is sent to the proxy
    assert lines["advertised.listeners"] == "PLAINTEXT://127.0.0.1:19002,REPLICATION://127.0.0.1:30004"
    assert "REPLICATION:PLAINTEXT" in lines["listener.security.protocol.map"].split(",")
    assert lines["controller.listener.names"] == "CONTROLLER"  # the quorum stays direct


def test_with_capped_links_brokers_in_namespaces_reach_the_proxy_at_the_hosts_end_of_the_fabric(tmp_path):
    fabric = Fabric("kcliff-1-abcdef", 7, 3)
    nodes = [Node(i, 19092, 19093, tmp_path / str(i), fabric.address(i)) for i in (1, 2, 3)]
    routes = replication_rtt.wire(nodes, list(range(40001, 40007)), fabric.host_address)
    assert fabric.host_address == "10.211.7.1"
    assert routes[40002] == "10.211.7.11:40001"  # the proxy, on the host, reaches the broker over the bridge
    lines = properties(nodes[0])
    assert lines["listeners"].endswith(",REPLICATION://10.211.7.11:40001")
    assert lines["advertised.listeners"].endswith(",REPLICATION://10.211.7.1:40002")


def test_a_cluster_up_clusters_replication_proxy_survives_its_state_file_for_down(tmp_path):
    cluster = LocalCluster(tmp_path, tmp_path / "libs", Caps(replication_rtt_ms=20), owned=False, mark="m")
    cluster.nodes = [Node(i, 19000 + i, 19100 + i, tmp_path / str(i)) for i in (1, 2, 3)]
    replication_rtt.wire(cluster.nodes, list(range(30001, 30007)), "127.0.0.1")
    cluster.replication_proxy = LatencyProxy(20, tmp_path / replication_rtt.LOG, register=False, mark="m",
                                             api_port=555, pid=777, listen_host="127.0.0.1")
    cluster.save_state()
    again = LocalCluster.from_state(tmp_path)
    assert again is not None and again.caps.replication_rtt_ms == 20
    proxy = again.replication_proxy
    assert proxy is not None and (proxy.api_port, proxy.pid, proxy.rtt_ms) == (555, 777, 20)
    assert proxy.log == tmp_path / replication_rtt.LOG and not proxy.register
    assert [(n.replication_port, n.replication_proxy) for n in again.nodes] == [
        (n.replication_port, n.replication_proxy) for n in cluster.nodes]
    assert again.proxy is None  # the client proxy is another matter


@pytest.mark.parametrize("value,words", [
    ("1.5", "expected whole milliseconds between 0 and 1000"),
    ("20;id", "expected milliseconds between 0 and 1000"),
])
def test_a_bad_round_trip_is_refused_naming_the_option_and_what_is_valid(value, words, tmp_path):
    done = run_kcliff("run", "--replication-rtt-ms", value, "--workdir", str(tmp_path / "w"), timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "--replication-rtt-ms" in done.stderr and words in done.stderr, done.stderr
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize("backend", ["compose", "external"])
def test_the_round_trip_is_refused_off_the_local_backend(backend, tmp_path):
    servers = ["--bootstrap-servers", "127.0.0.1:1"] if backend == "external" else []
    done = run_kcliff("run", "--backend", backend, *servers, "--replication-rtt-ms", "2",
                      "--workdir", str(tmp_path / "w"), timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"--replication-rtt-ms is for the local backend, not {backend}" in done.stderr


def test_whole_milliseconds_from_0_to_1000_are_valid_and_nothing_else():
    assert options.whole_milliseconds("20") == 20 and options.whole_milliseconds("2.0") == 2
    assert options.whole_milliseconds("0") == 0 and options.whole_milliseconds("1000") == 1000
    for bad in ("0.5", "-1", "1001", "nan", "inf", "", "2ms"):
        with pytest.raises(argparse.ArgumentTypeError, match="milliseconds between 0 and 1000"):
            options.whole_milliseconds(bad)


def test_the_run_tables_rig_line_names_the_round_trip_only_when_there_is_one():
    from kcliff.report.table import bound_lines
    from kcliff.results.model import ResultsDoc
    crossed = ResultsDoc(run_id="r", environment={"rig": {"profile": "cpu-bound"}, "caps": {"replication_rtt_ms": 20}})
    assert bound_lines(crossed)[0] == ("rig: cpu-bound (no caps: CPU binds); followers fetch across a 20 ms "
                                       "round trip")
    plain = ResultsDoc(run_id="r", environment={"rig": {"profile": "cpu-bound"}, "caps": {"replication_rtt_ms": 0}})
    assert bound_lines(plain)[0] == "rig: cpu-bound (no caps: CPU binds)"
    older = ResultsDoc(run_id="r", environment={})  # results written before the option: no caps field
    assert bound_lines(older)[0] == "rig: cpu-bound (no caps: CPU binds)"
