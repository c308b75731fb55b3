"""Which Java the local Neo4j runs on: JAVA_HOME if new enough, else the newest in the JVM folders, else PATH."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hippograph.local.java import MINIMUM, JavaNotFound, find_java


def jdk(folder: Path, name: str, version: str) -> Path:
    """A JDK's layout: bin/java and the `release` file every JDK ships."""
    home = folder / name
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text("#!/bin/sh\nexit 0\n")
    java.chmod(0o755)
    (home / "release").write_text(f'IMPLEMENTOR="test"\nJAVA_VERSION="{version}"\n')
    return home


def test_an_old_java_home_gives_way_to_the_newest_jdk_in_the_folders(tmp_path: Path) -> None:
    old = jdk(tmp_path / "elsewhere", "jdk-17", "17.0.12")
    jdk(tmp_path / "jvm", "jdk-21", "21.0.4")
    newest = jdk(tmp_path / "jvm", "temurin-25", "25.0.1")
    found = find_java({"JAVA_HOME": str(old), "PATH": ""}, [str(tmp_path / "jvm")])
    assert (found.executable, found.major) == (newest / "bin" / "java", 25)
    assert str(tmp_path / "jvm") in found.describe()


def test_a_java_home_new_enough_is_taken_as_it_is(tmp_path: Path) -> None:
    home = jdk(tmp_path / "elsewhere", "jdk-21", "21.0.4")
    jdk(tmp_path / "jvm", "temurin-25", "25.0.1")
    found = find_java({"JAVA_HOME": str(home), "PATH": ""}, [str(tmp_path / "jvm")])
    assert (found.executable, found.major, found.origin) == (home / "bin" / "java", 21, "JAVA_HOME")


def test_with_none_new_enough_the_error_lists_every_java_found(tmp_path: Path) -> None:
    jdk(tmp_path / "jvm", "jdk-17", "17.0.12")
    jdk(tmp_path / "jvm", "jdk-8", "1.8.0_392")
    with pytest.raises(JavaNotFound) as refused:
        find_java({"PATH": ""}, [str(tmp_path / "jvm")])
    message = str(refused.value)
    assert f"Java {MINIMUM} or newer" in message and "JAVA_HOME" in message
    assert "jdk-17/bin/java is Java 17" in message and "jdk-8/bin/java is Java 8" in message


def test_with_no_java_at_all_it_says_so(tmp_path: Path) -> None:
    with pytest.raises(JavaNotFound, match="no Java at all"):
        find_java({"PATH": str(tmp_path)}, [str(tmp_path / "none")])


def test_this_machine_offers_a_java_that_really_is_that_version() -> None:
    found = find_java()
    printed = subprocess.run([str(found.executable), "-version"], capture_output=True, text=True, check=True).stderr
    assert found.major >= MINIMUM and f'version "{found.major}' in printed
