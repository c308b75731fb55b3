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
    ``what: done/total unit (rate/s)`` at most every ``LINE_SECONDS`` and once at the end."""

    def __init__(self, what: str, total: int, unit: str, done: int = 0, stream: TextIO | None = None) -> None:
        self.what, self.total, self.unit, self.done = what, total, unit, done
        self._stream = stream or sys.stderr
        self._bar = (tqdm(total=total, initial=done, desc=what, unit=f" {unit}", file=self._stream, dynamic_ncols=True)
                     if self._stream.isatty() else None)
        self._started = self._said = time.monotonic()
        self._from = done

    def advance(self, count: int) -> None:
        self.done += count
        if self._bar is not None:
            self._bar.update(count)
        elif time.monotonic() - self._said >= LINE_SECONDS:
            self._line()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        else:
            self._line()

    def _line(self) -> None:
        self._said = time.monotonic()
        rate = (self.done - self._from) / max(self._said - self._started, 1e-9)
        print(f"{self.what}: {self.done}/{self.total} {self.unit} ({rate:.1f}/s)", file=self._stream, flush=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
