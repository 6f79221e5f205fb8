"""Events: declared names, order of calls, unsubscribing, misspelt names."""

import pytest

from app.events import Events


def test_listeners_run_in_order_with_the_arguments():
    events = Events("pose", "model")
    calls = []
    events.subscribe("pose", lambda *args: calls.append(("first", args)))
    events.subscribe("pose", lambda *args: calls.append(("second", args)))
    events.subscribe("model", lambda: calls.append(("model", ())))
    events.emit("pose", 1, "x")
    assert calls == [("first", (1, "x")), ("second", (1, "x"))]


def test_unsubscribe_stops_the_calls_even_while_emitting():
    events = Events("pose")
    calls = []
    remove_second = None

    def first():
        calls.append("first")
        remove_second()

    events.subscribe("pose", first)
    remove_second = events.subscribe("pose", lambda: calls.append("second"))
    events.emit("pose")
    events.emit("pose")
    assert calls == ["first", "second", "first"]
    remove_second()


def test_an_undeclared_name_is_an_error():
    events = Events("pose")
    with pytest.raises(KeyError):
        events.subscribe("poes", lambda: None)
    with pytest.raises(KeyError):
        events.emit("poes")
    assert events.names == ("pose",)
