"""Vectors given right after the write (``HIPPOGRAPH_WRITE_VECTORS=after``).

A memory's encoding is most of a write (bench/encoders.md: 83 of 103 ms p50 on all-mpnet-base-v2). In
this mode ``remember`` stores the memory without its vector and answers: the memory is stored, in its
tier, counted, audited and findable by its words at once. One daemon thread then encodes what waits (in
batches: writes that came together share a pass) and writes each vector to the store's slot, where the
memory still holds the text that was encoded and still lacks a vector, and only while the store is this
model's (``hippograph.graph.store_model.FILL``): a memory forgotten or edited meanwhile gets none from here.

What a caller can rely on:

- an answer of OK means stored, as in the default mode;
- at most ``LIMIT`` memories wait: past that a write is given its vector before it answers, as inline, so
  a memory waits for its vector no longer than the encoding of the ``LIMIT`` ahead of it takes (3.7 and
  4.7 s at most in two runs of ``hippograph bench writes`` on all-mpnet-base-v2, bench/clock/writes-after and
  quiet-writes-after; ``slowest`` keeps the longest wait seen);
- a recall waits for its caller's memories that still wait for their vectors (at most its deadline, else
  ``SETTLE_SECONDS``), so a recall after a write finds it by meaning, as it would inline;
- a vector that cannot be written (Neo4j away) is tried again, every ``RETRY_SECONDS``, never dropped;
- after a crash or a stop, the next server's start (``recover``: ``hippograph serve``, ``hippograph mcp``)
  finds every memory of the store that lacks its vector (``LACKING``) and gives it one, in the thread, before
  anything else: none is left without a vector after the restart, and a recall meanwhile waits for that
  look first.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from neo4j import Driver

from hippograph.encoding.protocols import TextEncoder
from hippograph.graph import store_model

log = logging.getLogger(__name__)

# The most memories one encoding pass and one write take.
BATCH = 64
# The most memories that wait for their vectors: the bound on how long one waits.
LIMIT = 32
# How long a recall waits, when its request keeps no time, for its caller's memories still without vectors.
SETTLE_SECONDS = 30.0
# After a failed pass (Neo4j away), the wait before the next try.
RETRY_SECONDS = 1.0
# How long closing waits for what is queued; what is left is found at the next start.
CLOSE_SECONDS = 30.0


@dataclass(frozen=True)
class Waiting:
    """A memory stored without its vector: what is encoded, and where the vector goes."""

    id: str
    user_id: str
    content: str
    added: float = field(default_factory=time.monotonic)


class LateVectors:
    """The queue of memories waiting for their vectors, and the thread that gives them one."""

    def __init__(self, driver: Driver, database: str, embedder: TextEncoder, recover: bool = False) -> None:
        self._driver = driver
        self._database = database
        self._embedder = embedder
        # Everything below is guarded by _changed.
        self._changed = threading.Condition()
        self._queue: list[Waiting] = []
        self._pending: Counter[str] = Counter()
        self._closing = False
        # The longest a memory waited for its vector, from its write's answer to the vector's commit (seconds).
        self.slowest = 0.0
        # Set once the thread has queued what a crash left (at once, without ``recover``): settle waits for it.
        self._recovered = threading.Event()
        if not recover:
            self._recovered.set()
        self._thread = threading.Thread(target=self._loop, name="hippograph-late-vectors", daemon=True)
        self._thread.start()

    def add(self, waiting: Waiting) -> None:
        with self._changed:
            self._queue.append(waiting)
            self._pending[waiting.user_id] += 1
            self._changed.notify_all()

    def settle(self, user_id: str, timeout: float | None) -> bool:
        """Wait until none of ``user_id``'s memories waits for its vector (at most ``timeout`` seconds, or
        ``SETTLE_SECONDS``); True when none waits."""
        limit = time.monotonic() + (SETTLE_SECONDS if timeout is None else timeout)
        if not self._recovered.wait(max(0.0, limit - time.monotonic())):
            return False
        with self._changed:
            while self._pending[user_id] > 0:
                left = limit - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
            return True

    def full(self) -> bool:
        """Whether ``LIMIT`` memories wait already: the next write gets its vector before it answers."""
        with self._changed:
            return len(self._queue) >= LIMIT

    def close(self) -> None:
        """Give what is queued its vectors (at most ``CLOSE_SECONDS``), then stop the thread."""
        limit = time.monotonic() + CLOSE_SECONDS
        with self._changed:
            while self._queue and time.monotonic() < limit:
                self._changed.wait(max(0.0, limit - time.monotonic()))
            self._closing = True
            self._changed.notify_all()
        self._thread.join(timeout=CLOSE_SECONDS)

    def _loop(self) -> None:
        if not self._recovered.is_set():
            self._recover()
            self._recovered.set()
        while True:
            with self._changed:
                while not self._queue and not self._closing:
                    self._changed.wait()
                if self._closing:
                    return
                batch = self._queue[:BATCH]
            try:
                self._fill(batch)
            except Exception:  # Neo4j away, or the encoder failed: the batch stays queued and is tried again
                log.exception("vectors of %d memories not written yet; trying again", len(batch))
                time.sleep(RETRY_SECONDS)
                continue
            written = time.monotonic()
            with self._changed:
                self.slowest = max(self.slowest, *(written - each.added for each in batch))
                del self._queue[: len(batch)]
                self._pending.subtract(each.user_id for each in batch)
                self._pending += Counter()  # drops the users with none left
                self._changed.notify_all()

    def _fill(self, batch: list[Waiting]) -> None:
        vectors = self._embedder.embed_documents([each.content for each in batch])
        rows = [
            {"id": each.id, "userId": each.user_id, "content": each.content, "embedding": vector.tolist()}
            for each, vector in zip(batch, vectors)
        ]
        with self._driver.session(database=self._database) as session:
            session.execute_write(store_model.fill, self._embedder.name, rows)

    def _recover(self) -> None:
        """Queue every memory of the store that lacks its vector: those a crash or a stop left so."""
        try:
            with self._driver.session(database=self._database, default_access_mode="READ") as session:
                lacking = session.execute_read(store_model.lacking)
        except Exception:  # Neo4j away at start: the writes of this run are still given their vectors
            log.exception("could not look for memories without their vector; the next start looks again")
            return
        for row in lacking:
            self.add(Waiting(row["id"], row["userId"], row["content"]))
        if lacking:
            log.info("%d memories without their vector found at start; giving them one", len(lacking))
