"""A real ``hippograph serve`` in a child process: what the benchmarks and the e2e tests talk to.

Started on a free loopback port with the environment given, waited for until ``/readyz``
answers 200 (Neo4j reachable, migrations applied, model loaded), and stopped on the way
out whatever happened.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

READY_TIMEOUT_S = 180.0


@dataclass
class Server:
    base: str
    log: Path
    process: subprocess.Popen[bytes]
    # From the start of the process until /readyz said ready.
    ready_seconds: float = 0.0

    @property
    def graphql(self) -> str:
        return f"{self.base}/graphql"

    @property
    def websocket(self) -> str:
        return self.graphql.replace("http://", "ws://")

    def log_lines(self) -> list[str]:
        return self.log.read_text(encoding="utf-8", errors="replace").splitlines()


class ServerFailed(RuntimeError):
    """The server exited, or was not ready in time; the message holds the end of its log."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server(
    log: Path,
    env: Mapping[str, str] | None = None,
    executable: Path | None = None,
    cwd: Path | None = None,
    until: str = "/readyz",
    port: int | None = None,
    ready_timeout: float = READY_TIMEOUT_S,
) -> Iterator[Server]:
    """``hippograph serve`` (by default the command beside this interpreter), with ``env`` added to
    this process's environment, for as long as the block runs, from when ``until`` answers 200
    (``/healthz``: as soon as it serves, before it is ready), on ``port`` (by default a free one);
    ``ServerFailed`` past ``ready_timeout`` seconds."""
    executable = executable or Path(sys.executable).with_name("hippograph")
    if not executable.exists():
        raise FileNotFoundError(f"no `hippograph` command beside {sys.executable}")
    port = port or free_port()
    started = time.monotonic()
    with log.open("w") as out:
        process = subprocess.Popen(
            [str(executable), "serve", "--host", "127.0.0.1", "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            cwd=cwd,
        )
    server = Server(f"http://127.0.0.1:{port}", log, process)
    try:
        reason = "no answer"
        while True:
            if process.poll() is not None:
                raise ServerFailed(f"hippograph serve exited with {process.returncode}:\n{_tail(log)}")
            try:
                answer = httpx.get(f"{server.base}{until}", timeout=2)
                if answer.status_code == 200:
                    break
                reason = answer.text[:300]
            except httpx.HTTPError as exc:
                reason = f"{type(exc).__name__}: {exc}"
            if time.monotonic() - started > ready_timeout:
                raise ServerFailed(f"hippograph serve was not ready within {ready_timeout:.0f} s: {reason}")
            time.sleep(0.3)
        if until == "/readyz":
            server.ready_seconds = time.monotonic() - started
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
