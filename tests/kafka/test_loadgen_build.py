"""kcliff's load generator is built once per source tree into the cache, and says clearly why it
cannot be (docs/loadgen.md). The `jars` tests run Maven and the JVM, no cluster."""

import shutil
import subprocess
from pathlib import Path

import pytest
from kcliff.errors import InputError
from kcliff.kafka import dist, loadgen
from kcliff.kafka.release import LogRole

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    copy = tmp_path / "loadgen"
    shutil.copytree(ROOT / "loadgen", copy, ignore=shutil.ignore_patterns("target"))
    return copy


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KCLIFF_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def main_source(tree: Path) -> Path:
    return tree / "src" / "main" / "java" / "dev" / "kcliff" / "loadgen" / "LoadGen.java"


def test_an_edit_to_a_source_rebuilds_and_a_build_left_in_the_tree_does_not(tree: Path):
    before = loadgen.source_hash(tree)
    (tree / "target").mkdir()
    (tree / "target" / "kcliff-loadgen.jar").write_bytes(b"left by a manual mvn package")
    assert loadgen.source_hash(tree) == before
    main_source(tree).write_text(main_source(tree).read_text() + "\n// an edit\n")
    assert loadgen.source_hash(tree) != before


def test_a_built_tree_is_used_as_it_is_with_no_maven_run(tree: Path, cache: Path, monkeypatch: pytest.MonkeyPatch):
    done = loadgen.built_dir(tree)
    (done / "lib").mkdir(parents=True)
    for jar in (done / loadgen.JAR, done / "lib" / "HdrHistogram-2.2.2.jar"):
        jar.write_bytes(b"")
    (done / ".complete").touch()
    monkeypatch.setenv("PATH", str(tree))  # no mvn on it: a build would fail
    assert loadgen.ensure(tree) == (done / loadgen.JAR, done / "lib" / "HdrHistogram-2.2.2.jar")
    assert done.parent == dist.cache_dir()


def test_without_maven_the_error_says_what_to_install(tree: Path, cache: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PATH", str(tree))
    with pytest.raises(InputError, match=r"Maven \(mvn\) is needed to build kcliff's load generator"):
        loadgen.ensure(tree)


@pytest.mark.jars
def test_a_source_that_does_not_compile_is_a_clear_error_and_leaves_nothing_cached(tree: Path, cache: Path):
    main_source(tree).write_text(main_source(tree).read_text().replace("public final class", "public final klass"))
    with pytest.raises(InputError, match="could not build kcliff's load generator") as raised:
        loadgen.ensure(tree)
    assert "LoadGen.java" in str(raised.value)  # Maven's own error, where the source is wrong
    assert not loadgen.built_dir(tree).exists()


@pytest.mark.jars
def test_bad_arguments_exit_2_naming_each_and_the_usage():
    jars = loadgen.ensure()
    libs = dist.ensure()
    argv = dist.java_command(libs, loadgen.MAIN_CLASS, 128, jars=jars)
    done = subprocess.run([*argv, "--topic", "t", "--rate", "fast"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    # every problem at once, then the usage
    for problem in ("--bootstrap-servers is required", "--rate must be a number, got 'fast'",
                    "--producer-config is required", "usage: LoadGen"):
        assert problem in done.stderr


@pytest.mark.jars
def test_a_payload_file_and_a_record_size_together_or_a_bad_payload_file_exit_2(tmp_path: Path):
    jars = loadgen.ensure()
    argv = dist.java_command(dist.ensure(), loadgen.MAIN_CLASS, 128, jars=jars)
    bad = tmp_path / "records.b64"
    bad.write_text("aGVsbG8=\nnot base64 at all!\n")
    common = ["--bootstrap-servers", "127.0.0.1:1", "--topic", "t", "--rate", "10", "--duration-s", "1",
              "--producer-config", str(tmp_path / "none.properties")]
    done = subprocess.run([*argv, *common, "--record-size", "10", "--payload-file", str(bad)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert "give --record-size or --payload-file, not both" in done.stderr
    assert f"--payload-file {bad}: line 2 is not [base64 key TAB] base64 value" in done.stderr


@pytest.mark.jars
def test_flat_out_and_at_a_rate_each_refuse_the_others_arguments_exit_2(tmp_path: Path):
    argv = dist.java_command(dist.ensure(), loadgen.MAIN_CLASS, 128, jars=loadgen.ensure())
    common = ["--bootstrap-servers", "127.0.0.1:1", "--topic", "t", "--record-size", "10",
              "--producer-config", str(tmp_path / "none.properties")]
    flat = subprocess.run([*argv, *common, "--num-records", "10", "--warmup-records", "10", "--rate", "5",
                           "--consumer-config", "c"], capture_output=True, text=True, timeout=60)
    assert flat.returncode == 2 and flat.stdout == ""
    for problem in ("--rate is for a run at a rate, not with --num-records", "--consumer-config is for a run at a rate",
                    "--warmup-records must be fewer than --num-records"):
        assert problem in flat.stderr
    at_rate = subprocess.run([*argv, *common, "--rate", "5", "--duration-s", "1", "--warmup-records", "3",
                              "--throughput", "7"], capture_output=True, text=True, timeout=60)
    assert at_rate.returncode == 2
    for problem in ("--warmup-records is for a run with --num-records", "--throughput is for a run with --num-records"):
        assert problem in at_rate.stderr


@pytest.mark.jars
def test_only_the_brokers_run_at_c1() -> None:
    """Brokers steady from their first run (BROKER_JVM_OPTIONS); a client tool keeps the default JIT."""
    libs = dist.ensure()
    broker = dist.java_command(libs, "kafka.Kafka", 1024, LogRole.BROKER)
    tool = dist.java_command(libs, loadgen.MAIN_CLASS, 128)
    assert all(option in broker[:broker.index("-cp")] for option in dist.BROKER_JVM_OPTIONS)
    assert not any(option in tool for option in dist.BROKER_JVM_OPTIONS)
