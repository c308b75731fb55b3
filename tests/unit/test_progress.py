"""Progress of a long command: not on a terminal, plain lines rather than a bar."""

from __future__ import annotations

import io
import re

import pytest

from hippograph import progress
from hippograph.progress import Progress


def test_off_a_terminal_it_writes_lines_counting_from_what_was_done_before() -> None:
    log = io.StringIO()
    with Progress("reembed with m", 300, "memories", done=100, stream=log) as shown:
        shown.advance(150)
        shown.advance(50)
    lines = log.getvalue().splitlines()
    assert lines[-1].startswith("reembed with m: 300/300 memories (") and lines[-1].endswith("/s, 00:00 left)")
    assert "\r" not in log.getvalue()  # no bar redrawn in a log file


def test_a_line_says_the_time_left_at_the_rate_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "LINE_SECONDS", 0.0)
    log = io.StringIO()
    with Progress("import", 10**12, "memories", stream=log) as shown:
        shown.advance(0)
        shown.advance(1)
    first, second = log.getvalue().splitlines()  # and the end, said already
    assert first == "import: 0/1000000000000 memories (0.0/s, time left unknown)"
    # All but one to go at the rate of the first one: hours, however fast that one went.
    assert re.fullmatch(r"import: 1/1000000000000 memories \([\d.]+/s, \d+:\d\d:\d\d left\)", second)


def test_called_with_done_and_total_it_moves_to_them() -> None:
    log = io.StringIO()
    with Progress("forget user u", 0, "nodes", stream=log) as shown:
        shown(40, 120)
        shown(120, 120)
    assert log.getvalue().splitlines()[-1].startswith("forget user u: 120/120 nodes (")


def test_a_line_of_its_own_goes_out_as_it_is() -> None:
    log = io.StringIO()
    with Progress("locomo", 2, "conversations", stream=log) as shown:
        shown.write("conv-1: 10 questions")
        shown.advance(1)
    assert log.getvalue().splitlines()[0] == "conv-1: 10 questions"


def test_the_end_is_said_once_and_a_run_that_did_nothing_says_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "LINE_SECONDS", 0.0)
    log = io.StringIO()
    with Progress("bench locomo", 2, "questions", stream=log) as shown:
        shown.advance(2)
    with Progress("forget session s", 0, "memories", stream=log):
        pass  # none found to forget, say, or the command failed first
    assert [line.split(" (")[0] for line in log.getvalue().splitlines()] == ["bench locomo: 2/2 questions"]


def test_a_summary_written_after_the_count_was_said_is_followed_by_the_count_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A slow machine says the count as the last question is answered, then the conversation's summary follows:
    # the log still ends on the count.
    monkeypatch.setattr(progress, "LINE_SECONDS", 0.0)
    log = io.StringIO()
    with Progress("bench locomo", 2, "questions", stream=log) as shown:
        shown.advance(2)
        shown.write("conv-1: 2 questions")
    lines = [line.split(" (")[0] for line in log.getvalue().splitlines()]
    assert lines == ["bench locomo: 2/2 questions", "conv-1: 2 questions", "bench locomo: 2/2 questions"]
