"""A request's deadline as its writes see it (``hippograph.memory.writing.outcomes``)."""

from __future__ import annotations

import contextvars
import threading

import pytest

from hippograph.memory.errors import DeadlinePassed
from hippograph.memory.writing.outcomes import Deadline, current_deadline, set_deadline, working_for


def test_a_request_that_has_not_begun_writing_never_begins_once_its_deadline_passed() -> None:
    deadline = Deadline()
    assert deadline.expire() is False  # nothing began: the answer may say "cut off"
    with pytest.raises(DeadlinePassed, match="nothing was stored"):
        deadline.begin_write()
    with pytest.raises(DeadlinePassed):
        deadline.begin_write()


def test_a_request_that_has_begun_writing_goes_on_and_is_answered_with_its_outcome() -> None:
    deadline = Deadline()
    deadline.begin_write()
    assert deadline.expire() is True  # the answer waits for the outcome
    deadline.begin_write()  # its next transaction (a document's next entry) still runs


def test_the_time_left_runs_to_the_answer_and_once_writing_to_the_outcomes_wait() -> None:
    reading = Deadline(30)
    assert 0 < reading.left() <= 30
    writing = Deadline(30)
    writing.begin_write()
    assert 30 < writing.left() <= 60  # the API waits as long again for a write's outcome
    reading.expire()
    assert reading.left() == 0  # cut off: nothing more of it runs
    assert Deadline().left() is None  # a deadline that keeps no time bounds nothing


def test_a_group_of_writes_runs_until_the_furthest_of_its_deadlines() -> None:
    near, far = Deadline(1), Deadline(30)
    with working_for([near, far]):
        assert current_deadline() is far
    with working_for([near, None]):  # one of them without a deadline: the group is not bounded
        assert current_deadline() is None
    assert current_deadline() is None


def test_the_deadline_follows_the_request_into_its_worker_threads() -> None:
    deadline = Deadline()
    context = contextvars.copy_context()
    context.run(set_deadline, deadline)
    seen: list[Deadline | None] = []
    # As anyio runs a worker: in a copy of the request's context.
    thread = threading.Thread(target=lambda: seen.append(context.copy().run(current_deadline)))
    thread.start()
    thread.join()
    assert seen == [deadline]
    assert current_deadline() is None  # outside the request (MCP, the CLI): no deadline
