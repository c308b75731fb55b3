"""Progress of a long command on stderr: a bar on a terminal, a plain line every few seconds otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from tqdm import tqdm

# How often a log (stderr not a terminal) gets a line.
LINE_SECONDS = 5.0


class Progress:
    """Counts ``done`` of ``total`` ``unit``; on a terminal tqdm's bar (done, total, rate, time left), else a line
    ``what: done/total unit (rate/s, time left)`` at most every ``LINE_SECONDS`` and at the end, unless the
    last line said it already (a summary written after the count was said makes the end say it again, so that
    a log always ends on the count).

    Called as ``shown(done, total)`` it is the callback a layer that must not draw reports to."""

    def __init__(self, what: str, total: int, unit: str, done: int = 0, stream: TextIO | None = None) -> None:
        self.what, self.total, self.unit, self.done = what, total, unit, done
        self._stream = stream or sys.stderr
        self._bar = (
            tqdm(total=total, initial=done, desc=what, unit=f" {unit}", file=self._stream, dynamic_ncols=True)
            if self._stream.isatty()
            else None
        )
        self._started = self._said = time.monotonic()
        self._from = self._said_done = done
        self._count_last = True  # the last line written is a count (or nothing was written)

    def advance(self, count: int) -> None:
        self.done += count
        if self._bar is not None:
            self._bar.update(count)
        elif time.monotonic() - self._said >= LINE_SECONDS:
            self._line()

    def __call__(self, done: int, total: int) -> None:
        if total != self.total:
            self.total = total
            if self._bar is not None:
                self._bar.total = total
        self.advance(done - self.done)

    def write(self, line: str) -> None:
        """A line of its own (a summary, an event) that leaves the bar whole."""
        if self._bar is not None:
            self._bar.write(line, file=self._stream)
        else:
            print(line, file=self._stream, flush=True)
            self._count_last = False

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.done != self._from and (self.done != self._said_done or not self._count_last):
            self._line()  # nor when it did nothing (nothing to do, or failed first)

    def _line(self) -> None:
        self._said, self._said_done, self._count_last = time.monotonic(), self.done, True
        rate = (self.done - self._from) / max(self._said - self._started, 1e-9)
        left = (
            f"{tqdm.format_interval(max(self.total - self.done, 0) / rate)} left" if rate > 0 else "time left unknown"
        )
        print(
            f"{self.what}: {self.done}/{self.total} {self.unit} ({rate:.1f}/s, {left})", file=self._stream, flush=True
        )

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def opening(what: str, model: str, stream: TextIO | None = None) -> None:
    """The first line of a command that opens the services: connecting and loading the model take a while
    before any progress can be counted, so it says that is what is happening."""
    print(f"{what}: connecting to Neo4j and loading the embedding model {model}", file=stream or sys.stderr, flush=True)
