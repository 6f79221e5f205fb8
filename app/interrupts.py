"""Signals that end a command the way Ctrl+C does: SIGTERM (``timeout``, a service stop) and SIGHUP
(a closed terminal) raise ``Terminated``, a KeyboardInterrupt, so every ``finally`` runs — partial
outputs are removed, a batch stops its workers and writes its summary — instead of the process
vanishing mid-write."""

from __future__ import annotations

import signal

#: The signals turned into ``Terminated`` (those a platform lacks are left out).
SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Terminated(KeyboardInterrupt):
    """The process was asked to stop by ``signum``."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum, _frame) -> None:
    raise Terminated(signum)


def stop_on_signals() -> None:
    """Make SIGTERM and SIGHUP raise ``Terminated`` in the main thread."""
    for signum in SIGNALS:
        signal.signal(signum, _raise_terminated)


def default_signals() -> None:
    """Give SIGTERM and SIGHUP their default action again (a batch worker, which its parent stops)."""
    for signum in SIGNALS:
        signal.signal(signum, signal.SIG_DFL)


def exit_status(interrupt: KeyboardInterrupt) -> int:
    """128 + the signal's number, as a shell reports a process the signal ended (130 for Ctrl+C)."""
    return 128 + (interrupt.signum if isinstance(interrupt, Terminated) else signal.SIGINT)
