"""Where config files may come from and how annotations name them: paths relative to the checked-out
repository's root (what GitHub needs to show them on the changed lines), and no symbolic link out of
the config repo (a runner's files would end up in a public pull-request annotation)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import run_kcliff
from kcliff import configrepo
from kcliff.errors import InputError
from kcliff.lint.github import github_path

from tests.lint.test_lint_cli import BASE_REPO, make_repo

FLUSH_1 = {"kafka/server.properties": BASE_REPO["kafka/server.properties"] + "log.flush.interval.messages=1\n"}
SECRET = "root:x:0:0:root:/root:/bin/bash\n"  # what a link to /etc/passwd would leak


def checkout(path: Path, changes: dict[str, str] | None = None) -> Path:
    """A config repo in a git checkout, as actions/checkout leaves it under the workspace."""
    make_repo(path, changes)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def annotations(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("::")]


def test_lint_annotations_are_relative_to_the_checkout_found_above_the_path(tmp_path):
    checkout(tmp_path / "repo", FLUSH_1)
    done = run_kcliff("lint", "--format", "github", "repo/kafka", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    [line] = annotations(done.stdout)
    assert line.startswith("::error file=kafka/server.properties,line=5,")


def test_lint_annotations_follow_repo_root_when_given(tmp_path):
    make_repo(tmp_path / "repo", FLUSH_1)  # no .git: only --repo-root says where the repository starts
    done = run_kcliff("lint", "--format", "github", "--repo-root", "repo", "repo", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert annotations(done.stdout)[0].startswith("::error file=kafka/server.properties,line=5,")
    outside = run_kcliff("lint", "--format", "github", "--repo-root", "repo/kafka", "repo", cwd=tmp_path)
    assert outside.returncode == 2 and "repo: is not inside the repository root repo/kafka" in outside.stderr


def test_bad_input_annotation_is_relative_to_the_checkout(tmp_path):
    producer = BASE_REPO["clients/producer.properties"].replace("linger.ms=5", "linger.msec=5")
    checkout(tmp_path / "repo", {"clients/producer.properties": producer})
    done = run_kcliff("lint", "--format", "github", "repo", cwd=tmp_path)
    assert done.returncode == 2
    assert annotations(done.stdout)[0].startswith("::error file=clients/producer.properties,line=3,")


def test_check_annotations_are_relative_to_the_heads_checkout(tmp_path):
    checkout(tmp_path / "base")
    checkout(tmp_path / "head", FLUSH_1)
    done = run_kcliff("check", "--static-only", "--format", "github", "--base", "base", "--head", "head",
                      cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert annotations(done.stdout)[0].startswith("::error file=kafka/server.properties,line=5,")
    explicit = run_kcliff("check", "--static-only", "--format", "github", "--base", "base", "--head", "head/kafka",
                          "--repo-root", "head", cwd=tmp_path)
    assert annotations(explicit.stdout)[0].startswith("::error file=kafka/server.properties,line=5,")


def test_github_path_outside_any_checkout_stays_as_given(tmp_path):
    assert github_path("no/such/dir/server.properties") == "no/such/dir/server.properties"
    assert github_path("") == ""


def test_a_file_linked_out_of_the_repo_is_refused_naming_the_link(tmp_path):
    secret = tmp_path / "passwd"
    secret.write_text(SECRET)
    checkout(tmp_path / "repo")
    (tmp_path / "repo" / "producers").mkdir()
    os.symlink(secret, tmp_path / "repo" / "producers" / "app-producer.properties")
    for fmt in ("text", "github"):
        done = run_kcliff("lint", "--format", fmt, "repo", cwd=tmp_path)
        assert done.returncode == 2, done.stdout + done.stderr
        out = done.stdout + done.stderr
        assert "root" not in out.replace("repo", "") and str(secret) not in out and "passwd" not in out
        assert "repo/producers/app-producer.properties: a symbolic link leading out of the config repo" in done.stderr
        assert "links that stay inside the repo are fine" in done.stderr and "Traceback" not in done.stderr
    assert annotations(done.stdout)[0].startswith("::error file=producers/app-producer.properties,title=kcliff%3A bad")
    named = run_kcliff("lint", "repo/producers/app-producer.properties", cwd=tmp_path)
    assert named.returncode == 2 and "repo/producers/app-producer.properties: a symbolic link" in named.stderr


def test_the_target_is_never_read(tmp_path, monkeypatch):
    secret = tmp_path / "outside" / "server.properties"
    secret.parent.mkdir()
    secret.write_text("log.flush.interval.messages=1\n")
    make_repo(tmp_path / "repo")
    os.symlink(secret, tmp_path / "repo" / "kafka" / "broker-2.properties")
    read = Path.read_bytes

    def guarded(self: Path) -> bytes:
        assert self.resolve() != secret, "read the link's target"
        return read(self)

    monkeypatch.setattr(Path, "read_bytes", guarded)
    with pytest.raises(InputError) as caught:
        configrepo.load([str(tmp_path / "repo")])
    assert caught.value.path == str(tmp_path / "repo" / "kafka" / "broker-2.properties")


def test_links_that_stay_inside_the_repo_are_read(tmp_path):
    repo = make_repo(tmp_path / "repo")
    (repo / "shared").mkdir()
    (repo / "shared" / "orders.conf").write_text("linger.ms=20\n")
    os.symlink("../shared/orders.conf", repo / "clients" / "orders-producer.properties")
    loaded = configrepo.load([str(repo)])
    assert [e.value for e in loaded.entries if e.path.endswith("orders-producer.properties")] == [20]


def test_a_directory_linked_out_of_the_repo_is_refused(tmp_path):
    outside = tmp_path / "etc-kafka"
    outside.mkdir()
    (outside / "server.properties").write_text("log.flush.interval.messages=1\n")
    repo = make_repo(tmp_path / "repo")
    os.symlink(outside, repo / "conf")
    with pytest.raises(InputError, match="leading out of the config repo") as caught:  # by convention
        configrepo.load([str(repo)])
    assert caught.value.path == str(repo / "conf")
    (repo / "kcliff.yaml").write_text("version: 1\nfiles:\n  - {path: conf/*.properties, role: broker}\n")
    with pytest.raises(InputError, match="leading out of the config repo") as caught:  # by the manifest
        configrepo.load([str(repo)])
    assert caught.value.path == str(repo / "conf")


def test_a_config_dir_that_is_a_link_out_of_its_checkout_is_refused(tmp_path):
    outside = make_repo(tmp_path / "elsewhere")
    workspace = checkout(tmp_path / "repo")
    os.symlink(outside / "kafka", workspace / "config")
    done = run_kcliff("lint", "repo/config", cwd=tmp_path)
    assert done.returncode == 2 and "repo/config: a symbolic link leading out of the config repo repo" in done.stderr


def test_a_manifest_linked_out_of_the_repo_is_refused(tmp_path):
    manifest = tmp_path / "kcliff.yaml"
    manifest.write_text("version: 1\nfiles: [{path: '*.properties', role: broker}]\n")
    repo = make_repo(tmp_path / "repo")
    os.symlink(manifest, repo / "kcliff.yaml")
    with pytest.raises(InputError, match="leading out") as caught:
        configrepo.load([str(repo)])
    assert caught.value.path == str(repo / "kcliff.yaml")
