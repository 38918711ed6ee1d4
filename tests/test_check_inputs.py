"""`kcliff check`'s inputs and outputs that need no cluster: the PR comment file, annotation paths,
symlinks, the annotations of a measured regression, a head that changes nothing measured."""

from __future__ import annotations

from pathlib import Path

from conftest import run_kcliff
from test_lint_cli import BASE_REPO, make_repo


def test_comment_is_written_fresh_and_summary_appends(tmp_path):
    base = make_repo(tmp_path / "base")
    head = make_repo(tmp_path / "head", {"clients/producer.properties":
                                         BASE_REPO["clients/producer.properties"].replace("linger.ms=5", "linger.ms=10")})
    comment, summary = tmp_path / "comment.md", tmp_path / "summary.md"
    comment.write_text("## the previous pull request's verdict\n")
    for _ in range(2):
        done = run_kcliff("check", "--static-only", "--base", str(base), "--head", str(head), "--format", "text",
                          "--comment", str(comment), "--summary", str(summary))
        assert done.returncode == 3, done.stdout + done.stderr
    assert comment.read_text().count("## kcliff config check") == 1
    assert "previous pull request" not in comment.read_text()
    assert summary.read_text().count("## kcliff config check") == 2
