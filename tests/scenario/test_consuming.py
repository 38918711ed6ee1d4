"""How a scenario's service consumes: `consuming:` parsed with every problem named, in a suite file on its
line, and in the scenario's hash only when said."""

from __future__ import annotations

import pytest
from kcliff.errors import InputError
from kcliff.scenario import consuming, suites
from kcliff.scenario.consuming import Commit, Consuming


@pytest.mark.parametrize("raw, want", [
    ({}, Consuming()),
    ({"commit": "record-sync"}, Consuming(Commit.RECORD_SYNC)),
    ({"commit": "poll-async", "processing": "250 us", "members": 4}, Consuming(Commit.POLL_ASYNC, 250, 4)),
    ({"processing": 2}, Consuming(processing_us=2000)),  # a bare number is ms
    ({"processing": "0.5 s"}, Consuming(processing_us=500_000)),
])
def test_valid_forms(raw, want):
    assert consuming.parse(raw) == want


def test_every_problem_is_named_with_what_is_valid():
    with pytest.raises(ValueError) as bad:
        consuming.parse({"commit": "each", "members": 0, "processing": "fast", "threads": 2})
    message = str(bad.value)
    for said in ("unknown key 'threads'", "auto, poll-sync, poll-async, record-sync, record-async",
                 "from 1 to 16", "'2 ms', '250 us'"):
        assert said in message


def test_a_suite_scenario_says_it_on_its_line_and_hashes_as_before_without_it(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("scenarios:\n  - id: plain\n    description: d\n"
                    "  - id: commits\n    description: d\n    consumer: {max.poll.records: 1}\n"
                    "    consuming: {commit: poll-sync}\n")
    plain, commits = suites.load_file(path)
    assert plain.consuming is None and "consuming" not in plain.as_applied()
    assert commits.consuming == Consuming(Commit.POLL_SYNC) and "consume" in commits.workloads
    path.write_text("id: bad\ndescription: d\nconsuming: {commit: sometimes}\n")
    with pytest.raises(InputError) as bad:
        suites.load_file(path)
    assert bad.value.problems[0].line == 3 and "commit 'sometimes'" in str(bad.value)
