"""Calls that arrive together run together: the expensive part of many writes done once.

While one group runs, new calls queue; when it is done, the first waiting caller takes the
queue (up to a limit) as the next group and runs it for everyone in it. A lone call runs at
once, alone; under load each group carries every call that arrived meanwhile, so many writers
share one embedding pass and one transaction where each used to wait its turn for its own.
Each caller gets its own result or its own exception. No thread of its own: a caller runs
the group (so nothing is left running when the service closes).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

Item = TypeVar("Item")
Result = TypeVar("Result")


@dataclass
class _Ticket(Generic[Item]):
    item: Item
    done: bool = False
    outcome: object = None


class Grouped(Generic[Item, Result]):
    """A queue of calls run in groups by ``run``, one group at a time; every caller passes the same ``run``."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._changed = threading.Condition()
        self._queue: list[_Ticket[Item]] = []
        self._running = False

    def submit(self, item: Item, run: Callable[[Sequence[Item]], Sequence[Result | BaseException]]) -> Result:
        """``item``'s result from ``run`` over the group it joins; its exception is raised here."""
        ticket = _Ticket(item)
        with self._changed:
            self._queue.append(ticket)
        while True:
            with self._changed:
                while self._running and not ticket.done:
                    self._changed.wait()
                if ticket.done:
                    break
                self._running = True
                group = self._queue[: self._limit]
                del self._queue[: self._limit]
            self._run(group, run)
        if isinstance(ticket.outcome, BaseException):
            raise ticket.outcome
        return cast(Result, ticket.outcome)  # done, and not an exception: what `run` gave for it

    def _run(
        self, group: list[_Ticket[Item]], run: Callable[[Sequence[Item]], Sequence[Result | BaseException]]
    ) -> None:
        try:
            outcomes: Sequence[object] = run([t.item for t in group])
            if len(outcomes) != len(group):
                raise RuntimeError(f"a group of {len(group)} calls returned {len(outcomes)} outcomes")
        except BaseException as exc:  # the whole group failed: each of its callers hears why
            outcomes = [exc] * len(group)
        with self._changed:
            for ticket, outcome in zip(group, outcomes):
                ticket.outcome, ticket.done = outcome, True
            self._running = False
            self._changed.notify_all()
