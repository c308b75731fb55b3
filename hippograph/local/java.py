"""Finding a Java the local Neo4j can run on.

Neo4j 2026 needs Java 21 or newer, while many machines keep an older default on PATH with newer
JDKs installed beside it. So ``JAVA_HOME`` is asked first, then the usual JVM folders (newest
first), then ``java`` on PATH; the first new enough is used, and when none is the error lists
every Java seen with its version.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

MINIMUM = 21
JVM_FOLDERS = ("/usr/lib/jvm", "/usr/java", "/opt/java", "/Library/Java/JavaVirtualMachines")
# `release` says JAVA_VERSION="25.0.1" (or "1.8.0_392"); `java -version` says version "25.0.1".
_VERSION = re.compile(r'(?:JAVA_VERSION=|version )"(?:1\.)?(\d+)')


class JavaNotFound(RuntimeError):
    """No Java new enough; the message lists what was found and says what to do."""


@dataclass(frozen=True)
class Java:
    executable: Path
    major: int
    # Where it came from: JAVA_HOME, a JVM folder, or PATH.
    origin: str

    def describe(self) -> str:
        return f"Java {self.major} at {self.executable} ({self.origin})"


def find_java(environ: Mapping[str, str] | None = None, folders: Iterable[str] = JVM_FOLDERS) -> Java:
    """The Java the local Neo4j runs on: the first of JAVA_HOME, the JVM folders, PATH that is new enough."""
    seen: list[Java] = []
    for found in javas(environ, folders):
        if found.major >= MINIMUM:
            return found
        seen.append(found)
    listed = "; ".join(f"{java.executable} is Java {java.major} ({java.origin})" for java in seen) or "no Java at all"
    raise JavaNotFound(
        f"Neo4j 2026 needs Java {MINIMUM} or newer, and this machine offers {listed}: "
        f"install a JDK {MINIMUM}+ (e.g. apt-get install openjdk-21-jdk-headless) or point JAVA_HOME at one"
    )


def javas(environ: Mapping[str, str] | None = None, folders: Iterable[str] = JVM_FOLDERS) -> Iterable[Java]:
    """Every Java this machine offers, in the order they are asked: JAVA_HOME, the JVM folders
    (newest first), PATH."""
    environ = os.environ if environ is None else environ
    if (home := environ.get("JAVA_HOME")) and (found := _java_in(Path(home), "JAVA_HOME")):
        yield found
    installed = [
        found
        for folder in folders
        if Path(folder).is_dir()
        for home in sorted(Path(folder).iterdir())
        if (found := _java_in(home, f"in {folder}")) is not None
    ]
    yield from sorted(installed, key=lambda java: java.major, reverse=True)
    if (on_path := shutil.which("java", path=environ.get("PATH"))) and (major := _major_of(Path(on_path))) is not None:
        yield Java(Path(on_path), major, "on PATH")


def _java_in(home: Path, origin: str) -> Java | None:
    # A macOS bundle keeps its JDK under Contents/Home.
    for root in (home, home / "Contents" / "Home"):
        executable = root / "bin" / "java"
        if executable.is_file() and os.access(executable, os.X_OK):
            major = _release_major(root) or _major_of(executable)
            if major is not None:
                return Java(executable, major, origin)
    return None


def _release_major(root: Path) -> int | None:
    try:
        match = _VERSION.search((root / "release").read_text(errors="replace"))
    except OSError:
        return None
    return int(match.group(1)) if match else None


def _major_of(executable: Path) -> int | None:
    try:
        result = subprocess.run([str(executable), "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION.search(result.stderr + result.stdout)
    return int(match.group(1)) if match else None
