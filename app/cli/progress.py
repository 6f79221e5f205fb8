"""A one-line progress report for long command-line runs, on stderr and only when it is a terminal
(a pipe or a log file gets nothing). Qt-free: the headless commands use it."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

#: Nothing is shown for runs shorter than this (seconds).
DELAY = 0.5
#: Seconds between redraws.
INTERVAL = 0.25


class Progress:
    """``with Progress("ragdoll") as progress: progress.update(0.3, "18 of 60 s")``.

    A background thread redraws ``label: 30% · 18 of 60 s · 4 s`` in place a few times a second
    once the run has taken ``delay`` seconds, so a single long call (a big render) still shows its
    elapsed time; the line is cleared at the end.
    """

    def __init__(self, label: str, stream: TextIO | None = None, delay: float = DELAY):
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.delay = delay
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.fraction: float | None = None
        self.detail = ""
        self.width = 0
        self._start = time.perf_counter()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Progress:
        self._start = time.perf_counter()
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            if self.width:
                self.stream.write("\r" + " " * self.width + "\r")
                self.stream.flush()
                self.width = 0

    def update(self, fraction: float | None = None, detail: str = "") -> None:
        """The share done (0..1, None: unknown) and a few words on where the run is."""
        self.fraction, self.detail = fraction, detail

    def line(self) -> str:
        """The text shown now."""
        parts = [f"{self.label}:"]
        if self.fraction is not None:
            parts.append(f"{min(max(self.fraction, 0.0), 1.0):4.0%}")
        if self.detail:
            parts.append(self.detail)
        parts.append(f"· {time.perf_counter() - self._start:.0f} s")
        return " ".join(parts)

    def draw(self) -> None:
        """Write the line over the previous one."""
        with self._lock:
            text = self.line()
            self.stream.write("\r" + text.ljust(self.width))
            self.stream.flush()
            self.width = max(self.width, len(text))

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        while True:
            self.draw()
            if self._stop.wait(INTERVAL):
                return
