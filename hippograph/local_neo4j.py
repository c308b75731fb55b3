"""The local Neo4j server, without Docker.

Neo4j Community and Neo4j Browser come from Maven Central (``docker/pom.xml``):
Maven copies the jars once into ``<state>/neo4j/lib`` and the server runs as
``java -cp 'lib/*' org.neo4j.server.CommunityEntryPoint`` — the same code the
Neo4j tarball runs — with a config written from ``docker/neo4j.conf``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from string import Template

from hippograph.config import RESOURCES, Settings

POM = RESOURCES / "neo4j" / "pom.xml"
CONF_TEMPLATE = RESOURCES / "neo4j" / "neo4j.conf"
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_TOOL = "org.neo4j.cli.AdminTool"
JVM_OPTIONS = [
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
]


class LocalNeo4jError(RuntimeError):
    """The local server could not be set up, started or stopped; the message says why."""


@dataclass(frozen=True)
class Layout:
    home: Path

    @property
    def lib(self) -> Path:
        return self.home / "lib"

    @property
    def conf(self) -> Path:
        return self.home / "conf"

    @property
    def data(self) -> Path:
        return self.home / "data"

    @property
    def logs(self) -> Path:
        return self.home / "logs"

    @property
    def pid_file(self) -> Path:
        return self.home / "neo4j.pid"

    @property
    def console_log(self) -> Path:
        return self.logs / "console.log"

    @property
    def lib_stamp(self) -> Path:
        return self.lib / ".pom-sha256"


@dataclass(frozen=True)
class Status:
    running: bool
    pid: int | None
    bolt: str
    http: str

    def describe(self) -> str:
        if not self.running:
            return "Neo4j is not running"
        return f"Neo4j is running (pid {self.pid}): Bolt {self.bolt}, Browser {self.http}/browser/"


def layout(settings: Settings) -> Layout:
    return Layout(settings.state_dir / "neo4j")


def status(settings: Settings) -> Status:
    lay = layout(settings)
    pid = _read_pid(lay.pid_file)
    running = pid is not None and _alive(pid)
    return Status(
        running=running,
        pid=pid if running else None,
        bolt=f"bolt://127.0.0.1:{settings.neo4j_bolt_port}",
        http=f"http://127.0.0.1:{settings.neo4j_http_port}",
    )


def start(settings: Settings, timeout: float = 180.0, log=print) -> Status:
    """Start the server in the background and wait until Bolt answers; a no-op if it runs."""
    current = status(settings)
    if current.running:
        log(f"{current.describe()} — already started, nothing to do")
        return current
    for port, env in ((settings.neo4j_bolt_port, "HIPPOGRAPH_NEO4J_BOLT_PORT"), (settings.neo4j_http_port, "HIPPOGRAPH_NEO4J_HTTP_PORT")):
        if _port_taken(port):
            raise LocalNeo4jError(
                f"port {port} on 127.0.0.1 is already in use by another process; stop that process or choose another port with {env}"
            )
    java = shutil.which("java")
    if java is None:
        raise LocalNeo4jError("java was not found on PATH; Neo4j 5.26 needs Java 17 or 21")
    lay = layout(settings)
    resolve_jars(lay, log=log)
    write_config(settings, lay)
    env = _server_env(lay)
    if not (lay.data / "dbms" / "auth.ini").exists() and not (lay.data / "databases").exists():
        _set_initial_password(java, lay, env, settings.neo4j_password)
    lay.logs.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with open(lay.console_log, "ab") as out:
        proc = subprocess.Popen(
            [java, f"-Xms{settings.neo4j_heap}", f"-Xmx{settings.neo4j_heap}", *JVM_OPTIONS,
             "-cp", f"{lay.lib}/*", ENTRY_POINT, f"--home-dir={lay.home}", f"--config-dir={lay.conf}"],
            cwd=lay.home, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    lay.pid_file.write_text(str(proc.pid))
    while time.monotonic() - started < timeout:
        if proc.poll() is not None:
            lay.pid_file.unlink(missing_ok=True)
            raise LocalNeo4jError(f"Neo4j exited with code {proc.returncode} while starting; last lines of {lay.console_log}:\n{_tail(lay.console_log)}")
        if _bolt_answers(settings.neo4j_bolt_port) and _http_answers(settings.neo4j_http_port):
            current = status(settings)
            log(f"{current.describe()} — started in {time.monotonic() - started:.1f}s")
            return current
        time.sleep(0.5)
    stop(settings, log=lambda _: None)
    raise LocalNeo4jError(f"Neo4j did not answer on Bolt within {timeout:.0f}s; see {lay.console_log}")


def stop(settings: Settings, timeout: float = 60.0, log=print) -> bool:
    """Stop the server cleanly (SIGTERM, then SIGKILL after ``timeout``). False if it was not running."""
    lay = layout(settings)
    current = status(settings)
    if not current.running:
        lay.pid_file.unlink(missing_ok=True)
        log("Neo4j is not running — nothing to stop")
        return False
    assert current.pid is not None
    os.kill(current.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _alive(current.pid):
        time.sleep(0.2)
    if _alive(current.pid):
        os.kill(current.pid, signal.SIGKILL)
        log(f"Neo4j (pid {current.pid}) did not stop within {timeout:.0f}s and was killed")
    else:
        log(f"Neo4j (pid {current.pid}) stopped")
    lay.pid_file.unlink(missing_ok=True)
    return True


def resolve_jars(lay: Layout, log=print) -> None:
    """Copy Neo4j's jars from Maven once; re-run only when docker/pom.xml changes."""
    stamp = hashlib.sha256(POM.read_bytes()).hexdigest()
    if lay.lib_stamp.exists() and lay.lib_stamp.read_text() == stamp:
        return
    mvn = shutil.which("mvn")
    if mvn is None:
        raise LocalNeo4jError("mvn was not found on PATH; Maven resolves the Neo4j jars from Maven Central")
    log(f"resolving Neo4j jars with Maven into {lay.lib} (once)")
    if lay.lib.exists():
        shutil.rmtree(lay.lib)
    result = subprocess.run(
        [mvn, "-q", "-B", "-f", str(POM), "dependency:copy-dependencies",
         f"-DoutputDirectory={lay.lib}", "-DincludeScope=runtime"],
        capture_output=True, text=True,
    )
    if result.returncode != 0:
        raise LocalNeo4jError(f"Maven could not resolve the Neo4j jars:\n{(result.stdout + result.stderr)[-3000:]}")
    lay.lib_stamp.write_text(stamp)


def write_config(settings: Settings, lay: Layout) -> None:
    for folder in (lay.conf, lay.data, lay.logs, lay.home / "import", lay.home / "plugins"):
        folder.mkdir(parents=True, exist_ok=True)
    text = Template(CONF_TEMPLATE.read_text()).substitute(
        bolt_port=settings.neo4j_bolt_port,
        http_port=settings.neo4j_http_port,
        data_dir=lay.data,
        logs_dir=lay.logs,
        import_dir=lay.home / "import",
        plugins_dir=lay.home / "plugins",
        heap=settings.neo4j_heap,
        pagecache=settings.neo4j_pagecache,
    )
    (lay.conf / "neo4j.conf").write_text(text)


def _set_initial_password(java: str, lay: Layout, env: dict[str, str], password: str) -> None:
    if len(password) < 8:
        raise LocalNeo4jError("NEO4J_PASSWORD must have at least 8 characters (Neo4j's minimum)")
    result = subprocess.run(
        [java, "-cp", f"{lay.lib}/*", ADMIN_TOOL, "dbms", "set-initial-password", password],
        cwd=lay.home, env=env, capture_output=True, text=True,
    )
    if result.returncode != 0:
        raise LocalNeo4jError(f"could not set the initial Neo4j password:\n{(result.stdout + result.stderr)[-2000:]}")


def _server_env(lay: Layout) -> dict[str, str]:
    return {**os.environ, "NEO4J_HOME": str(lay.home), "NEO4J_CONF": str(lay.conf)}


def _read_pid(pid_file: Path) -> int | None:
    try:
        return int(pid_file.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped by us) still answers kill(0).
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def _port_taken(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _bolt_answers(port: int) -> bool:
    # The Bolt handshake: magic preamble then four version proposals; a server answers four bytes.
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as s:
            s.sendall(b"\x60\x60\xb0\x17" + b"\x00\x00\x04\x04" + b"\x00" * 12)
            return len(s.recv(4)) == 4
    except OSError:
        return False


def _http_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as s:
            s.sendall(b"GET / HTTP/1.0\r\n\r\n")
            return s.recv(12).startswith(b"HTTP/1.")
    except OSError:
        return False


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
