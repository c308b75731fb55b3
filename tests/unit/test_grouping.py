"""Grouped calls with real threads: who runs together, and who hears which outcome."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest

from hippograph.memory.grouping import Grouped


class Held:
    """A run that blocks its first group until released, and records every group it ran."""

    def __init__(self) -> None:
        self.groups: list[list[int]] = []
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self, items: Sequence[int]) -> list[int | BaseException]:
        self.groups.append(list(items))
        if len(self.groups) == 1:
            self.started.set()
            assert self.release.wait(10)
        return [ValueError(f"odd {i}") if i % 2 else i * 10 for i in items]


def submit_all(grouped: Grouped, run: Held, items: Sequence[int]) -> tuple[dict[int, object], list[threading.Thread]]:
    outcomes: dict[int, object] = {}

    def call(item: int) -> None:
        try:
            outcomes[item] = grouped.submit(item, run)
        except ValueError as exc:
            outcomes[item] = exc

    threads = [threading.Thread(target=call, args=(i,)) for i in items]
    for t in threads:
        t.start()
    return outcomes, threads


def wait_queued(grouped: Grouped, n: int) -> None:
    for _ in range(1000):
        with grouped._changed:
            if len(grouped._queue) >= n:
                return
        threading.Event().wait(0.01)
    raise AssertionError(f"{n} calls never queued")


def test_a_lone_call_runs_at_once_by_itself() -> None:
    grouped: Grouped[int, int] = Grouped(limit=8)
    run = Held()
    run.release.set()
    assert grouped.submit(4, run) == 40
    assert run.groups == [[4]]


def test_calls_that_arrive_while_a_group_runs_form_the_next_group_and_each_hears_its_own_outcome() -> None:
    grouped: Grouped[int, int] = Grouped(limit=8)
    run = Held()
    first, first_threads = submit_all(grouped, run, [0])
    assert run.started.wait(10)
    waiting, threads = submit_all(grouped, run, [2, 3, 4, 6])
    wait_queued(grouped, 4)
    run.release.set()
    for t in first_threads + threads:
        t.join(10)
    assert run.groups[0] == [0]
    assert sorted(run.groups[1]) == [2, 3, 4, 6] and len(run.groups) == 2
    assert first == {0: 0}
    assert waiting[2] == 20 and waiting[4] == 40 and waiting[6] == 60
    assert isinstance(waiting[3], ValueError) and str(waiting[3]) == "odd 3"


def test_a_group_takes_at_most_its_limit_and_the_rest_follow() -> None:
    grouped: Grouped[int, int] = Grouped(limit=3)
    run = Held()
    _, first_threads = submit_all(grouped, run, [0])
    assert run.started.wait(10)
    waiting, threads = submit_all(grouped, run, [2, 4, 6, 8, 10, 12, 14])
    wait_queued(grouped, 7)
    run.release.set()
    for t in first_threads + threads:
        t.join(10)
    assert [len(g) for g in run.groups] == [1, 3, 3, 1]
    assert sorted(i for g in run.groups[1:] for i in g) == [2, 4, 6, 8, 10, 12, 14]
    assert all(waiting[i] == i * 10 for i in waiting)


def test_when_the_whole_group_fails_every_caller_hears_it_and_the_next_group_still_runs() -> None:
    grouped: Grouped[int, int] = Grouped(limit=8)

    def broken(items: Sequence[int]) -> list[int]:
        raise ConnectionError("the store went away")

    with pytest.raises(ConnectionError, match="went away"):
        grouped.submit(1, broken)
    assert grouped.submit(2, lambda items: [i + 1 for i in items]) == 3


def test_a_run_that_loses_an_outcome_fails_its_group_instead_of_leaving_a_caller_waiting() -> None:
    grouped: Grouped[int, int] = Grouped(limit=8)
    with pytest.raises(RuntimeError, match="returned 0 outcomes"):
        grouped.submit(1, lambda items: [])
