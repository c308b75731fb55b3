"""The local Neo4j server, without Docker.

Neo4j Community and Neo4j Browser come from Maven Central (``docker/pom.xml``):
Maven copies the jars once into ``<state>/neo4j/lib`` and the server runs as
``java -cp 'lib/*' org.neo4j.server.Neo4jCommunity`` — the same code the
Neo4j tarball runs — on a Java 21+ (``hippograph.local.java``), with a config
written from ``docker/neo4j.conf``.

Opening a store written by an older Neo4j upgrades it in place, and there is no way
back; so before the first start of a new version on an existing store, the store is
dumped (``neo4j-admin database dump``, from the same jars) beside it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from string import Template

from hippograph.config import RESOURCES, Settings
from hippograph.local.java import Java, JavaNotFound, find_java

POM = RESOURCES / "neo4j" / "pom.xml"
CONF_TEMPLATE = RESOURCES / "neo4j" / "neo4j.conf"
ENTRY_POINT = "org.neo4j.server.Neo4jCommunity"
# Where progress lines go: print by default, the CLI's progress display when it has one.
Log = Callable[[str], object]
ADMIN_TOOL = "org.neo4j.cli.AdminTool"
# Every store hippograph made before it recorded the version was made by this one.
UNRECORDED_VERSION = "5.26"
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
    # Neo4j computes vector similarities with the incubating Vector API when it can read it.
    "--add-modules=jdk.incubator.vector",
]
# Java 23 and later warn on every use of sun.misc.Unsafe's memory access, which Neo4j's page cache makes.
UNSAFE_MEMORY_ACCESS = (23, "--sun-misc-unsafe-memory-access=allow")


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

    @property
    def store_version(self) -> Path:
        """The Neo4j version that last opened the store in ``data``."""
        return self.home / "store-version"

    @property
    def dumps(self) -> Path:
        return self.home / "dumps"


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


def start(settings: Settings, timeout: float = 180.0, log: Log = print) -> Status:
    """Start the server in the background and wait until Bolt answers; a no-op if it runs."""
    current = status(settings)
    if current.running:
        log(f"{current.describe()} — already started, nothing to do")
        return current
    for port, variable in (
        (settings.neo4j_bolt_port, "HIPPOGRAPH_NEO4J_BOLT_PORT"),
        (settings.neo4j_http_port, "HIPPOGRAPH_NEO4J_HTTP_PORT"),
    ):
        if _port_taken(port):
            raise LocalNeo4jError(
                f"port {port} on 127.0.0.1 is already in use by another process; "
                f"stop that process or choose another port with {variable}"
            )
    lay = layout(settings)
    stored = (lay.data / "databases").exists()
    if stored and _numbers(_store_version(lay)) > _numbers(neo4j_version()):
        raise LocalNeo4jError(
            f"the store under {lay.data} was written by Neo4j {_store_version(lay)}, newer than the {neo4j_version()} "
            "this hippograph runs, which cannot open it: use the hippograph that wrote it, or load a dump made "
            "before it was upgraded (`hippograph neo4j load FOLDER`)"
        )
    java = _java()
    log(f"Neo4j {neo4j_version()} on {java.describe()}")
    resolve_jars(lay, log=log)
    write_config(settings, lay)
    env = _server_env(lay)
    if not stored and not (lay.data / "dbms" / "auth.ini").exists():
        _set_initial_password(java, lay, env, settings.neo4j_password)
    if stored and _store_version(lay) != neo4j_version():
        dump_before_upgrade(java, lay, env, log=log)
    lay.logs.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with open(lay.console_log, "ab") as out:
        proc = subprocess.Popen(
            [
                str(java.executable),
                f"-Xms{settings.neo4j_heap}",
                f"-Xmx{settings.neo4j_heap}",
                *jvm_options(java),
                "-cp",
                f"{lay.lib}/*",
                ENTRY_POINT,
                f"--home-dir={lay.home}",
                f"--config-dir={lay.conf}",
            ],
            cwd=lay.home,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    lay.pid_file.write_text(str(proc.pid))
    while time.monotonic() - started < timeout:
        if proc.poll() is not None:
            lay.pid_file.unlink(missing_ok=True)
            raise LocalNeo4jError(
                f"Neo4j exited with code {proc.returncode} while starting; "
                f"last lines of {lay.console_log}:\n{_tail(lay.console_log)}"
            )
        if _bolt_answers(settings.neo4j_bolt_port) and _http_answers(settings.neo4j_http_port):
            lay.store_version.write_text(neo4j_version())
            current = status(settings)
            log(f"{current.describe()} — started in {time.monotonic() - started:.1f}s")
            return current
        time.sleep(0.5)
    stop(settings, log=lambda _: None)
    raise LocalNeo4jError(f"Neo4j did not answer on Bolt within {timeout:.0f}s; see {lay.console_log}")


def stop(settings: Settings, timeout: float = 60.0, log: Log = print) -> bool:
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


def neo4j_version() -> str:
    """The Neo4j version ``docker/pom.xml`` asks Maven for."""
    found = re.search(r"<neo4j\.version>([^<]+)</neo4j\.version>", POM.read_text())
    if found is None:
        raise LocalNeo4jError(f"{POM} names no <neo4j.version>")
    return found.group(1).strip()


def jvm_options(java: Java) -> list[str]:
    since, option = UNSAFE_MEMORY_ACCESS
    return [*JVM_OPTIONS, option] if java.major >= since else list(JVM_OPTIONS)


def dump_before_upgrade(java: Java, lay: Layout, env: dict[str, str], log: Log = print) -> Path:
    """Dump every database of a store an older Neo4j wrote, before this one upgrades it for good."""
    older = _store_version(lay)
    target = lay.dumps / f"before-{neo4j_version()}-from-{older}-{time.strftime('%Y%m%dT%H%M%S')}"
    log(
        f"the store was written by Neo4j {older}; Neo4j {neo4j_version()} upgrades it in place, one way: "
        f"dumping it first into {target}"
    )
    try:
        dumped = _dump_into(java, lay, env, target)
    except LocalNeo4jError as exc:
        raise LocalNeo4jError(
            f"could not dump the store before upgrading it, so it was not started (nothing changed): {exc}"
        ) from None
    log(f"dumped {dumped} into {target} (load with `neo4j-admin database load` of Neo4j {older})")
    return target


def dump(settings: Settings, target: Path | None = None, log: Log = print) -> Path:
    """Back up every database of the stopped local server into ``target`` (one .dump file each)."""
    java, lay, env = _offline(settings, "dump")
    target = target or lay.dumps / time.strftime("%Y%m%dT%H%M%S")
    log(f"dumped {_dump_into(java, lay, env, target)} of Neo4j {_store_version(lay)} into {target}")
    return target


def load(settings: Settings, source: Path, log: Log = print) -> None:
    """Replace the stopped local server's databases by the dumps in ``source``."""
    dumps = _dumps_in(source)
    if not dumps:
        raise LocalNeo4jError(f"{source} holds no .dump file (`hippograph neo4j dump` writes one per database)")
    java, lay, env = _offline(settings, "load")
    _admin(java, lay, env, "database", "load", "*", f"--from-path={source}", "--overwrite-destination=true")
    log(f"loaded {dumps} from {source}; start the server to open them")


def _dump_into(java: Java, lay: Layout, env: dict[str, str], target: Path) -> str:
    """Dump every database into ``target`` (made if missing); the dump files it holds then."""
    target.mkdir(parents=True, exist_ok=True)
    _admin(java, lay, env, "database", "dump", "*", f"--to-path={target}")
    return _dumps_in(target)


def _dumps_in(folder: Path) -> str:
    return ", ".join(sorted(p.name for p in folder.glob("*.dump")))


def _offline(settings: Settings, action: str) -> tuple[Java, Layout, dict[str, str]]:
    if status(settings).running:
        raise LocalNeo4jError(
            f"Neo4j is running: `hippograph neo4j stop` first (Community can {action} only a stopped database)"
        )
    lay = layout(settings)
    if not (lay.data / "databases").exists():
        raise LocalNeo4jError(f"there is no store under {lay.data} yet: `hippograph neo4j start` makes one")
    java = _java()
    resolve_jars(lay)
    write_config(settings, lay)
    return java, lay, _server_env(lay)


def _java() -> Java:
    try:
        return find_java()
    except JavaNotFound as exc:
        raise LocalNeo4jError(str(exc)) from None


def _admin(java: Java, lay: Layout, env: dict[str, str], *args: str) -> None:
    """Run neo4j-admin from the server's own jars."""
    result = subprocess.run(
        [str(java.executable), *jvm_options(java), "-cp", f"{lay.lib}/*", ADMIN_TOOL, *args],
        cwd=lay.home,
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise LocalNeo4jError(f"neo4j-admin {' '.join(args[:2])} failed:\n{(result.stdout + result.stderr)[-2000:]}")


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version))


def _store_version(lay: Layout) -> str:
    try:
        return lay.store_version.read_text().strip() or UNRECORDED_VERSION
    except FileNotFoundError:
        return UNRECORDED_VERSION


def resolve_jars(lay: Layout, log: Log = print, pom: Path = POM) -> None:
    """Copy Neo4j's jars from Maven once; re-run only when the pom (docker/pom.xml) changes."""
    stamp = hashlib.sha256(pom.read_bytes()).hexdigest()
    if lay.lib_stamp.exists() and lay.lib_stamp.read_text() == stamp:
        return
    mvn = shutil.which("mvn")
    if mvn is None:
        raise LocalNeo4jError("mvn was not found on PATH; Maven resolves the Neo4j jars from Maven Central")
    log(f"resolving Neo4j jars with Maven into {lay.lib} (once)")
    if lay.lib.exists():
        shutil.rmtree(lay.lib)
    result = subprocess.run(
        [
            mvn,
            "-q",
            "-B",
            "-f",
            str(pom),
            "dependency:copy-dependencies",
            f"-DoutputDirectory={lay.lib}",
            "-DincludeScope=runtime",
        ],
        capture_output=True,
        text=True,
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


def _set_initial_password(java: Java, lay: Layout, env: dict[str, str], password: str) -> None:
    if len(password) < 8:
        raise LocalNeo4jError("NEO4J_PASSWORD must have at least 8 characters (Neo4j's minimum)")
    _admin(java, lay, env, "dbms", "set-initial-password", password)


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
