"""Named events with plain callbacks: the one way the state, playback and the ragdoll profile tell
whoever listens what changed (none of them knows its views)."""

from __future__ import annotations

from typing import Callable


class Events:
    """A fixed set of event names, each with its listeners, called in subscription order.

    ``subscribe`` returns a function that removes the listener again. Naming an event that was not
    declared raises ``KeyError``, so a misspelt name fails at once instead of never firing.
    """

    def __init__(self, *names: str):
        self._listeners: dict[str, list[Callable[..., None]]] = {name: [] for name in names}

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._listeners)

    def subscribe(self, name: str, listener: Callable[..., None]) -> Callable[[], None]:
        listeners = self._listeners[name]
        listeners.append(listener)

        def unsubscribe() -> None:
            if listener in listeners:
                listeners.remove(listener)

        return unsubscribe

    def emit(self, name: str, *args) -> None:
        for listener in tuple(self._listeners[name]):
            listener(*args)
