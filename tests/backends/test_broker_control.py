"""--broker-control (backends/broker_control.py): an external cluster's operator names the commands that crash,
stop and start each broker. Read as an operator writes it; every bad entry reported at once on its line, exit 2,
before any cluster is reached; a fault its file gives no command for is skipped with why. The real runs through
a fault with it: tests/measure/test_failover_real.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import run_kcliff
from kcliff.backends.broker_control import Action, BrokerControl, ControlledCluster
from kcliff.errors import ClusterError
from kcliff.measure import failover_side
from kcliff.results.metrics import Fault

OPERATOR_FILE = """\
# kcliff --broker-control for the orders cluster (prod-eu-1).
# Owned by the platform team; each command runs from the CI runner through the bastion.
brokers:
  101:
    kill: [ssh, -o, BatchMode=yes, -p, 2222, kafka-101.orders.internal, sudo, systemctl, kill, --signal=SIGKILL, kafka]
    start: [ssh, -o, BatchMode=yes, -p, 2222, kafka-101.orders.internal, sudo, systemctl, start, kafka]
    stop: [ssh, -o, BatchMode=yes, -p, 2222, kafka-101.orders.internal, sudo, systemctl, stop, kafka]
  102:
    kill: [ssh, -p, 2222, kafka-102.orders.internal, sudo, systemctl, kill, --signal=SIGKILL, kafka]
    start: [ssh, -p, 2222, kafka-102.orders.internal, sudo, systemctl, start, kafka]
    stop: [ssh, -p, 2222, kafka-102.orders.internal, sudo, systemctl, stop, kafka]
  103:
    # this host has no systemd unit yet: its broker runs in a container
    kill: [ssh, -p, 2222, kafka-103.orders.internal, docker, kill, --signal=KILL, kafka]
    start: [ssh, -p, 2222, kafka-103.orders.internal, docker, start, kafka]
"""

BAD_FILE = """\
# written as a shell script would be
brokers:
  1:
    kill: systemctl kill --signal=KILL kafka
    start: [systemctl, start, kafka]
    restart: [systemctl, restart, kafka]
  2:
    kill: [systemctl, kill, --signal=KILL, kafka]
    pause: [kill, -STOP, 1234]
  kafka-3:
    kill: [ssh, kafka-3]
"""


def test_an_operators_file_is_read_as_lists_of_arguments(tmp_path: Path):
    path = tmp_path / "brokers.yaml"
    path.write_text(OPERATOR_FILE)
    control = BrokerControl.load(path)
    assert sorted(control.brokers) == [101, 102, 103]
    assert control.brokers[101][Action.KILL][:5] == ("ssh", "-o", "BatchMode=yes", "-p", "2222")  # 2222: a string
    assert control.missing(Action.STOP) == [103] and control.missing(Action.PAUSE) == [101, 102, 103]


def test_a_fault_the_file_has_no_command_for_is_skipped_with_why(tmp_path: Path):
    path = tmp_path / "brokers.yaml"
    path.write_text(OPERATOR_FILE)
    cluster = ControlledCluster("kafka-101.orders.internal:9092", tmp_path, control=BrokerControl.load(path))
    assert failover_side.unmakeable(Fault.BROKER_KILL, cluster) is None
    assert failover_side.unmakeable(Fault.MEMBER_KILL, cluster) is None
    rolling = failover_side.unmakeable(Fault.ROLLING_RESTART, cluster)
    assert rolling is not None and "no stop command for broker(s) [103]" in rolling
    assert "no pause command" in (failover_side.unmakeable(Fault.FOLLOWER_BEHIND, cluster) or "")


def test_every_bad_entry_is_reported_on_its_line_before_any_cluster_is_reached(tmp_path: Path):
    (tmp_path / "brokers.yaml").write_text(BAD_FILE)
    done = run_kcliff("run", "--suite", "failover", "--backend", "external", "--bootstrap-servers", "127.0.0.1:1",
                      "--broker-control", str(tmp_path / "brokers.yaml"), "--workdir", str(tmp_path / "w"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    said = [line.split("brokers.yaml:", 1)[1] for line in done.stderr.splitlines() if "brokers.yaml:" in line]
    assert said == ["4: broker 1: kill must be a non-empty list of arguments, run without a shell, e.g. "
                    "[systemctl, kill, kafka]",
                    "6: broker 1: unknown command 'restart'; expected one of kill, start, stop, pause, resume",
                    "7: broker 2: no start command; kill and start are required",
                    "7: broker 2: pause and resume come together",
                    "10: broker id 'kafka-3' is not a broker's node.id (a whole number)"]


def test_broker_control_is_refused_where_kcliff_starts_the_brokers(tmp_path: Path):
    (tmp_path / "brokers.yaml").write_text(OPERATOR_FILE)
    done = run_kcliff("run", "--suite", "failover", "--broker-control", str(tmp_path / "brokers.yaml"),
                      "--workdir", str(tmp_path / "w"))
    assert done.returncode == 2 and "--broker-control is for the external backend, not local" in done.stderr


PAUSE = "[ssh, -p, 2222, kafka-101.orders.internal, sudo, systemctl, kill, --signal=SIGSTOP, kafka]"


def test_a_command_that_fails_is_named_with_its_exit_and_what_it_said(tmp_path: Path):
    # the operator's pause, and a resume that fails as ssh does when the host refuses it
    said = "ssh: connect to host kafka-101.orders.internal port 2222: Connection refused"
    refused = f"[{sys.executable}, -c, \"import sys; sys.stderr.write('{said}\\\\n'); sys.exit(255)\"]"
    path = tmp_path / "brokers.yaml"
    path.write_text(OPERATOR_FILE.replace("  102:", f"    pause: {PAUSE}\n    resume: {refused}\n  102:", 1))
    cluster = ControlledCluster("kafka-101.orders.internal:9092", tmp_path, control=BrokerControl.load(path))
    with pytest.raises(ClusterError) as raised:
        cluster.resume_broker(101)
    assert str(raised.value) == f"{path}: broker 101's resume command {sys.executable!r} exited 255: {said}"
