"""``hippograph bench langgraph``: LangGraph's store on hippograph beside LangGraph's ``InMemoryStore``, and
the Agents SDK's session on hippograph beside the SDK's ``SQLiteSession``, in one run.

One run, one machine: a real ``hippograph serve`` on the configured Neo4j, and ``InMemoryStore`` in
this process with the same embedding model (the server's, loaded here) as its ``index``, so the two
embed the same texts with the same model. Each store takes the same items (a fact about 40 tokens
long, a new key each), then puts over those keys again, gets them, and searches their namespace with
a query; every call is timed alone (p50, p95). For hippograph, each call's requests are timed too,
by operation (``memories``, ``remember``, ``forget``, ``itemScores``), which says where a put's time goes.
Each session (``SQLiteSession`` on a file, ``HippographSession`` on the same server) takes the same
items, one ``add_items`` call each (a user's message and an assistant's reply in turn, the facts as
their text), then gives them back with ``get_items()`` and ``get_items(limit=10)``.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from agents import SQLiteSession
from agents.items import TResponseInputItem
from agents.memory import Session
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from hippograph.integrations.agents import HippographSession
from hippograph.integrations.langgraph import HippographStore
from hippograph.memory import keys
from hippograph.memory.services import Services
from hippograph_bench.metrics import percentile
from hippograph_bench.server import running_server

CALLS = ("put (new key)", "put (same key again)", "get", "search (query)")
SESSION_CALLS = ("add_items (one item)", "get_items ()", "get_items (limit=10)")
QUERIES = (
    "which warehouse opens at nine?",
    "spare parts on shelf 30",
    "who answers the phone on line 105?",
    "pallets of spare parts",
    "the manager of district 7",
)


def fact(n: int) -> str:
    return (
        f"Fact number {n}: the warehouse in district {n} opens at {n % 12 + 1} o'clock, keeps {n * 7} pallets "
        f"of spare parts on shelf {n * 3}, and its manager answers the phone on line {n + 100}."
    )


def _timed(calls: Sequence[Callable[[], Any]]) -> list[float]:
    seconds = []
    for call in calls:
        start = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - start)
    return seconds


async def _atimed(calls: Sequence[Callable[[], Awaitable[Any]]]) -> list[float]:
    seconds = []
    for call in calls:
        start = time.perf_counter()
        await call()
        seconds.append(time.perf_counter() - start)
    return seconds


def session_item(n: int) -> TResponseInputItem:
    """The n-th item a session takes: a user's message, then an assistant's reply as the SDK gives one."""
    if n % 2 == 0:
        return {"role": "user", "content": fact(n)}
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": fact(n), "annotations": []}],
    }


async def _measure_session(
    session: Session, items: int, reads: int, progress: Callable[[str], None], name: str
) -> dict[str, dict[str, float]]:
    progress(f"{name}: {items} add_items of one item")
    added = await _atimed([partial(session.add_items, [session_item(n)]) for n in range(items)])
    progress(f"{name}: {reads} get_items(), {reads} get_items(limit=10)")
    everything = await _atimed([session.get_items for _ in range(reads)])
    last = await _atimed([partial(session.get_items, limit=10) for _ in range(reads)])
    return dict(zip(SESSION_CALLS, (_figures(added), _figures(everything), _figures(last))))


def _figures(seconds: Sequence[float]) -> dict[str, float]:
    return {"n": len(seconds), "p50_ms": percentile(seconds, 50) * 1000, "p95_ms": percentile(seconds, 95) * 1000}


def _measure(
    store: BaseStore, where: tuple[str, ...], items: int, searches: int, progress: Callable[[str], None], name: str
) -> dict[str, dict[str, float]]:
    names = [f"fact-{n}" for n in range(items)]
    figures = {}
    progress(f"{name}: {items} puts of new keys")
    figures[CALLS[0]] = _figures(_timed([partial(store.put, where, names[n], {"text": fact(n)}) for n in range(items)]))
    progress(f"{name}: {items} puts over the same keys")
    figures[CALLS[1]] = _figures(
        _timed([partial(store.put, where, names[n], {"text": fact(n) + " Still true."}) for n in range(items)])
    )
    progress(f"{name}: {items} gets")
    figures[CALLS[2]] = _figures(_timed([partial(store.get, where, names[n]) for n in range(items)]))
    progress(f"{name}: {searches} searches with a query")
    figures[CALLS[3]] = _figures(
        _timed([partial(store.search, where, query=QUERIES[n % len(QUERIES)], limit=10) for n in range(searches)])
    )
    return figures


def run(services: Services, items: int, searches: int, progress: Callable[[str], None]) -> dict[str, Any]:
    """Both stores and both sessions measured (see the module docstring); the result as JSON."""
    progress("loading the embedding model for InMemoryStore (the server's model, in this process)")
    embedder = services.embedder
    memory_store = InMemoryStore(
        index={"dims": embedder.dimension, "embed": lambda texts: embedder.embed_documents(list(texts)).tolist()}
    )
    in_memory = _measure(memory_store, ("memories", "bench"), items, searches, progress, "InMemoryStore")
    progress("starting hippograph serve (Neo4j reachable, migrations applied, model loaded)")
    user = f"bench-langgraph-{uuid.uuid4().hex[:8]}"
    secret = keys.create_key(services.driver, services.database, user).secret
    with tempfile.TemporaryDirectory() as folder, running_server(Path(folder) / "serve.log") as server:
        store = HippographStore(server.base, secret)
        requests: dict[str, list[float]] = {}
        send = store.client.send

        def timed_send(operation: Any) -> Any:
            start = time.perf_counter()
            try:
                return send(operation)
            finally:
                requests.setdefault(operation.name, []).append(time.perf_counter() - start)

        store.client.send = timed_send  # type: ignore[method-assign]  # wrapped to time the requests a call makes
        hippograph = _measure(store, ("memories", "bench"), items, searches, progress, "HippographStore")
        store.close()
        sqlite = asyncio.run(
            _measure_session(
                SQLiteSession("bench", Path(folder) / "sessions.db"), items, searches, progress, "SQLiteSession"
            )
        )
        ours = asyncio.run(
            _measure_session(
                HippographSession(f"bench-{uuid.uuid4().hex[:8]}", server.base, secret),
                items,
                searches,
                progress,
                "HippographSession",
            )
        )
    return {
        "items": items,
        "searches": searches,
        "model": embedder.name,
        "server_ready_s": server.ready_seconds,
        "stores": {"InMemoryStore": in_memory, "HippographStore": hippograph},
        "sessions": {"SQLiteSession": sqlite, "HippographSession": ours},
        "requests": {name: _figures(seconds) for name, seconds in sorted(requests.items())},
        "load_average": list(os.getloadavg()),
    }


def _beside(measured: dict[str, Any], theirs: str, ours: str, calls: Sequence[str]) -> list[str]:
    """A table of the calls' p50 / p95, the host's reference implementation beside hippograph's."""
    lines = [f"| call | {theirs} p50 / p95 ms | {ours} p50 / p95 ms |", "|---|---|---|"]
    for call in calls:
        a, b = measured[theirs][call], measured[ours][call]
        lines.append(f"| {call} | {a['p50_ms']:.2f} / {a['p95_ms']:.2f} | {b['p50_ms']:.1f} / {b['p95_ms']:.1f} |")
    return lines


def report(result: dict[str, Any]) -> str:
    """The markdown page."""
    stores = result["stores"]
    lines = [
        "# LangGraph's store: HippographStore beside InMemoryStore",
        "",
        f"`hippograph bench langgraph`: {result['items']} items (a fact of about 40 tokens each, a new key "
        f"each) put, put again over the same keys, got, and {result['searches']} searches with a query; each "
        f"call timed alone. InMemoryStore embeds with the same model ({result['model']}) in this process; "
        "HippographStore talks to a real `hippograph serve` on Neo4j over HTTP.",
        "",
        *_beside(stores, "InMemoryStore", "HippographStore", CALLS),
    ]
    lines += [
        "",
        "Where HippographStore's time goes: each request, by operation (a put of a new key is a "
        "`memories` lookup of the key's request ids and a `remember`; over an existing key, a `forget` "
        "of the old item too; a search reads the namespace's items (`memories`) and scores them "
        "(`itemScores`, 50 a request)).",
        "",
        "| request | n | p50 ms | p95 ms |",
        "|---|---|---|---|",
    ]
    for name, figures in result["requests"].items():
        lines.append(f"| `{name}` | {figures['n']} | {figures['p50_ms']:.1f} | {figures['p95_ms']:.1f} |")
    sessions = result["sessions"]
    lines += [
        "",
        "## The Agents SDK's session: HippographSession beside SQLiteSession",
        "",
        f"The same run: {result['items']} items (a user's message and an assistant's reply in turn, the facts "
        f"above as their text) added one `add_items` call each, then {result['searches']} `get_items()` and "
        f"{result['searches']} `get_items(limit=10)`. SQLiteSession keeps a file in this process; "
        "HippographSession talks to the same server.",
        "",
        *_beside(sessions, "SQLiteSession", "HippographSession", SESSION_CALLS),
    ]
    if result.get("load_average"):
        lines += [
            "",
            f"Load average (1, 5, 15 min) at the end of the run, on a machine shared with other work: "
            f"{', '.join(f'{x:.2f}' for x in result['load_average'])}.",
        ]
    lines.append("")
    return "\n".join(lines)
