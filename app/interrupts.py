"""Signals that end a command the way Ctrl+C does: SIGTERM (``timeout``, a service stop) and SIGHUP
(a closed terminal) raise ``Terminated``, a KeyboardInterrupt, so every ``finally`` runs — partial
outputs are removed, a batch stops its workers and writes its summary — instead of the process
vanishing mid-write."""

from __future__ import annotations

import ctypes
import signal
import sys

#: Linux's prctl option that sends the calling process a signal when its parent ends.
PR_SET_PDEATHSIG = 1

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


def kill_when_parent_ends() -> bool:
    """Ask Linux to SIGKILL this (forked) process when its parent ends, even killed outright; False
    where that cannot be asked. The signal follows the thread that forked it: fork from the main
    thread, or watch the parent some other way."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
