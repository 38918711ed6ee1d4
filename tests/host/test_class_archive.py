"""The client tools' class archives (kcliff.class_archive) with a real JVM on a class of its own:
a first run lists its classes, the archive is built from the list before the next run, a list that
cannot build is dropped, a JVM started otherwise never gets another's archive, and archives no run
has used for two weeks go when another is built."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from kcliff.host import class_archive

pytestmark = pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK")

JVM = ["-Xmx64m", "-XX:+UseSerialGC"]
HELLO = 'public class Hello { public static void main(String[] a) { System.out.println("hello " + a.length); } }'


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(class_archive, "_tried", set())  # as if each test were a new kcliff


@pytest.fixture(scope="module")
def classes(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("classes")
    (out / "Hello.java").write_text(HELLO)
    subprocess.run(["javac", "-d", str(out / "classes"), str(out / "Hello.java")], check=True)
    # class-data sharing takes jars only, as Kafka's libs are
    subprocess.run(["jar", "cf", str(out / "hello.jar"), "-C", str(out / "classes"), "."], check=True)
    return str(out / "hello.jar")


def run(options: list[str], classes: str, jvm: list[str] = JVM) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["java", *options, *jvm, "-cp", classes, "Hello", "x"], capture_output=True, text=True)


def backdate(path: Path, days: float) -> None:
    then = time.time() - days * 86400
    os.utime(path, (then, then))


def test_first_run_lists_its_classes_and_the_next_starts_from_the_archive(tmp_path: Path, classes: str) -> None:
    first = class_archive.jvm_options(tmp_path, JVM, classes, "Hello")
    assert any(o.startswith("-XX:DumpLoadedClassList=") for o in first)
    done = run(first, classes)
    assert (done.returncode, done.stdout) == (0, "hello 1\n")  # listing changes nothing the tool prints
    second = class_archive.jvm_options(tmp_path, JVM, classes, "Hello")
    archive = class_archive.archive_path(tmp_path, JVM, classes, "Hello")
    assert second[0] == f"-XX:SharedArchiveFile={archive}" and archive.exists()
    assert [p.name for p in tmp_path.iterdir()] == [archive.name]  # the list is gone, no part is left
    done = run(["-Xshare:on", *second], classes)  # -Xshare:on: fails unless the archive is mapped
    assert (done.returncode, done.stdout) == (0, "hello 1\n")


def test_a_list_that_cannot_build_is_dropped_and_not_listed_again_by_this_process(tmp_path: Path,
                                                                                   classes: str) -> None:
    run(class_archive.jvm_options(tmp_path, JVM, classes, "Hello"), classes)
    listed = next(tmp_path.glob("*.classes"))
    listed.write_text("@@ not a class list\n")
    assert class_archive.jvm_options(tmp_path, JVM, classes, "Hello") == []
    assert not list(tmp_path.iterdir())


def test_a_list_another_live_process_writes_is_left_alone(tmp_path: Path, classes: str) -> None:
    archive = class_archive.archive_path(tmp_path, JVM, classes, "Hello")
    writing = archive.with_name(f"{archive.name}.{os.getppid()}.classes")  # a live pid that is not ours
    writing.write_text("Hello\n")
    class_archive.build_from_lists(archive, JVM, classes)
    assert writing.exists() and not archive.exists()


def test_a_dead_process_list_builds_the_archive(tmp_path: Path, classes: str) -> None:
    archive = class_archive.archive_path(tmp_path, JVM, classes, "Hello")
    dead = subprocess.Popen(["true"])
    dead.wait()
    run([f"-XX:DumpLoadedClassList={archive}.{dead.pid}.classes"], classes)
    assert class_archive.jvm_options(tmp_path, JVM, classes, "Hello")[0] == f"-XX:SharedArchiveFile={archive}"


def test_a_jvm_started_otherwise_gets_its_own_archive(tmp_path: Path, classes: str) -> None:
    same = class_archive.archive_path(tmp_path, JVM, classes, "Hello")
    assert class_archive.archive_path(tmp_path, ["-Xmx128m", "-XX:+UseSerialGC"], classes, "Hello") != same
    assert class_archive.archive_path(tmp_path, JVM, classes + os.pathsep + "/x.jar", "Hello") != same
    assert class_archive.archive_path(tmp_path, JVM, classes, "Other") != same


def test_no_archive_where_none_can_be_written(tmp_path: Path, classes: str) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert class_archive.jvm_options(blocked / "archives", JVM, classes, "Hello") == []


def test_archives_unused_for_two_weeks_go_when_another_is_built(tmp_path: Path, classes: str) -> None:
    old, recent = tmp_path / "ProducerPerformance-0.jsa", tmp_path / "ProducerPerformance-1.jsa"
    for path, days in ((old, class_archive.UNUSED_DAYS + 1), (recent, class_archive.UNUSED_DAYS - 1)):
        path.write_text("")
        backdate(path, days)
    run(class_archive.jvm_options(tmp_path, JVM, classes, "Hello"), classes)
    class_archive.jvm_options(tmp_path, JVM, classes, "Hello")
    archive = class_archive.archive_path(tmp_path, JVM, classes, "Hello")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([archive.name, recent.name])


def test_a_run_from_an_archive_marks_it_used(tmp_path: Path, classes: str) -> None:
    run(class_archive.jvm_options(tmp_path, JVM, classes, "Hello"), classes)
    class_archive.jvm_options(tmp_path, JVM, classes, "Hello")
    archive = class_archive.archive_path(tmp_path, JVM, classes, "Hello")
    backdate(archive, class_archive.UNUSED_DAYS + 1)
    class_archive.jvm_options(tmp_path, JVM, classes, "Hello")
    class_archive.remove_unused(tmp_path)
    assert archive.exists()


def test_a_jvm_whose_archive_was_just_removed_starts_without_it(tmp_path: Path, classes: str) -> None:
    done = run([f"-XX:SharedArchiveFile={tmp_path / 'gone.jsa'}", *class_archive.QUIET], classes)
    assert (done.returncode, done.stdout) == (0, "hello 1\n")
