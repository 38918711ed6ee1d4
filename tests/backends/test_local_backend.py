"""Unit facts about the local backend that need no cluster."""

from kcliff.backends.base import new_cluster_id
from kcliff.backends.local import Node, server_properties


def test_cluster_ids_never_look_like_a_flag():
    ids = [new_cluster_id() for _ in range(3000)]
    assert all(len(i) == 22 and not i.startswith("-") for i in ids)


def test_server_properties_carry_invariants_and_overrides(tmp_path):
    node = Node(2, 19092, 19093, tmp_path)
    text = server_properties(node, "1@127.0.0.1:1,2@127.0.0.1:19093", {"socket.send.buffer.bytes": 4096})
    lines = dict(line.split("=", 1) for line in text.splitlines())
    assert lines["node.id"] == "2" and lines["min.insync.replicas"] == "2"
    assert lines["default.replication.factor"] == "3" and lines["socket.send.buffer.bytes"] == "4096"
    assert lines["listeners"] == "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093"
