"""The storage probe that tells whether fsync cliffs can show on the brokers' data dir."""

from pathlib import Path

import pytest
from kcliff.measure import environment


def test_tmpfs_is_named_and_its_fsync_is_free(tmp_path):
    shm = Path("/dev/shm")
    if environment.filesystem_of(shm) != "tmpfs":
        pytest.skip("no tmpfs at /dev/shm on this machine")
    probe = environment.storage(shm / f"kcliff-probe-{tmp_path.name}")
    try:
        assert probe["filesystem"] == "tmpfs"
        assert probe["fsync_us"] < environment.FSYNC_FREE_US
        assert environment.fsync_is_free({"storage": probe})
    finally:
        (shm / f"kcliff-probe-{tmp_path.name}").rmdir()


def test_longest_mount_point_wins():
    assert environment.filesystem_of(Path("/proc/self")) == "proc"
    assert environment.filesystem_of(Path("/")) not in ("proc", "unknown")


def test_probe_leaves_nothing_behind(tmp_path):
    probe = environment.storage(tmp_path / "data")
    assert probe["fsync_us"] > 0 and probe["path"] == str(tmp_path / "data")
    assert list((tmp_path / "data").iterdir()) == []


def test_no_local_data_dir_means_no_verdict():
    assert environment.storage(None) is None
    assert not environment.fsync_is_free({"storage": None})
    assert not environment.fsync_is_free({"storage": {"fsync_us": 150.0}})
