"""Every followed tool's stderr goes to a file beside its log (a client's warnings through a restart or a
leader move used to fill the terminal), and a run that ended without a summary says the tool's last error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kcliff.host.procs import FollowedTool, last_error
from kcliff.measure.at_rate import failure
from kcliff.measure.producer import _tool_run
from kcliff.results.model import StopKind

TRACE = """[2026-11-30 15:01:02,003] WARN [Producer clientId=perf-producer-client] Got error produce response \
with correlation id 12 on topic-partition kcliff-x-5, retrying (2147483646 attempts left). Error: NOT_ENOUGH_REPLICAS
Exception in thread "main" org.apache.kafka.common.errors.TimeoutException: Topic kcliff-x not present in metadata \
after 60000 ms.
\tat org.apache.kafka.clients.producer.KafkaProducer.waitOnMetadata(KafkaProducer.java:1145)
\t... 4 more
"""


def test_a_run_without_a_summary_names_the_tools_last_error(tmp_path: Path) -> None:
    errors = tmp_path / "run.stderr.log"
    errors.write_text(TRACE)
    said = last_error(errors)
    assert said is not None and said.startswith('Exception in thread "main" org.apache.kafka.common.errors.Timeout')
    run = _tool_run([], [], 61.0, 1, None, None, 1024, said)
    assert run.stop_kind is StopKind.FAILED and run.stop_reason is not None
    assert run.stop_reason.startswith("perf tool exited 1 without a summary: Exception in thread")
    assert last_error(tmp_path / "none.stderr.log") is None


def test_every_followed_tool_keeps_its_stderr_beside_its_log_and_off_the_terminal(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    script = "import sys; print('line'); sys.stderr.write('WARN not the correct coordinator\\n')"
    log = tmp_path / "rate.log"
    with FollowedTool([sys.executable, "-c", script], log) as tool:
        while tool.next_line(timeout=10.0) is not None:
            pass
    assert tool.errors == tmp_path / "rate.stderr.log"
    assert last_error(tool.errors) == "WARN not the correct coordinator"
    assert "coordinator" not in capfd.readouterr().err
    assert failure(1, last_error(tool.errors)) == ("load generator could not reach the cluster or the topic (exit 1): "
                                                   "WARN not the correct coordinator")
