"""Progress of a long command: not on a terminal, plain lines rather than a bar."""

from __future__ import annotations

import io

from hippograph.progress import Progress


def test_off_a_terminal_it_writes_lines_counting_from_what_was_done_before() -> None:
    log = io.StringIO()
    with Progress("reembed with m", 300, "memories", done=100, stream=log) as shown:
        shown.advance(150)
        shown.advance(50)
    lines = log.getvalue().splitlines()
    assert lines[-1].startswith("reembed with m: 300/300 memories (") and lines[-1].endswith("/s)")
    assert "\r" not in log.getvalue()  # no bar redrawn in a log file
